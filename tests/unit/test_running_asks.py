"""Cancels find their own ask, and only it, whenever they come (serve/running_asks.py).

Ids are each client's own (`rag` draws random ones, but any client may send "1"), so an
ask is known by its connection and its id; a cancel may come before its ask is seen,
while it waits for a worker, while its model call blocks, or after its answer."""

from __future__ import annotations

import socket
import threading

from ragd.query.cancellation import Cancel
from ragd.serve.running_asks import EARLY_CANCELS, RunningAsks
from ragd.serve.server import Request

ALICE, BOB = b"\x00alice", b"\x00bob"


def test_a_cancel_reaches_its_ask_and_wakes_what_it_waits_on() -> None:
    asks = RunningAsks()
    cancel = asks.start(ALICE, "1")
    woken = threading.Event()
    with cancel.waking(woken.set):
        assert asks.cancel(ALICE, "1")
        assert woken.is_set() and cancel.cancelled


def test_another_clients_cancel_for_the_same_id_reaches_nothing() -> None:
    asks = RunningAsks()
    alices = asks.start(ALICE, "1")
    assert not asks.cancel(BOB, "1")
    assert not alices.cancelled
    assert asks.gone(BOB) == 0 and not alices.cancelled


def test_cancelling_twice_or_after_the_answer_does_nothing_more() -> None:
    asks = RunningAsks()
    cancel = asks.start(ALICE, "1")
    calls: list[int] = []
    with cancel.waking(lambda: calls.append(1)):
        assert asks.cancel(ALICE, "1")
        assert not asks.cancel(ALICE, "1")  # (still under way: already cancelled)
    asks.done(ALICE, "1", cancel)
    assert not asks.cancel(ALICE, "1")
    assert calls == [1]


def test_a_cancel_that_comes_after_its_answer_does_not_cancel_the_next_ask_with_that_id() -> None:
    # A client that sends "1" for each of its requests, one at a time: its Ctrl-C raced the
    # final frame, the cancel came after the answer (`cancelled: false`), and it was kept
    # as an early cancel: the client's next question, "1" again, was swallowed without a
    # frame, no model call, until the client's silence bound (180 s) ended it (attack62).
    asks = RunningAsks()
    cancel = asks.start(ALICE, "1")
    asks.done(ALICE, "1", cancel)
    assert not asks.cancel(ALICE, "1")
    assert not asks.start(ALICE, "1").cancelled
    cancelled = asks.start(BOB, "2")
    assert asks.cancel(BOB, "2")
    asks.done(BOB, "2", cancelled)
    assert not asks.cancel(BOB, "2")  # a second Ctrl-C, after the ask ended
    assert not asks.start(BOB, "2").cancelled


def test_a_cancel_before_its_ask_cancels_the_ask_when_it_comes() -> None:
    asks = RunningAsks()
    assert not asks.cancel(ALICE, "7")
    assert asks.start(ALICE, "7").cancelled
    assert not asks.start(ALICE, "7").cancelled  # (kept once: the next ask is its own)
    assert not asks.start(BOB, "8").cancelled


def test_cancels_kept_for_asks_not_seen_are_bounded() -> None:
    asks = RunningAsks()
    for n in range(EARLY_CANCELS + 10):
        asks.cancel(BOB, str(n))
    assert not asks.start(BOB, "0").cancelled  # the oldest forgotten
    assert asks.start(BOB, str(EARLY_CANCELS + 9)).cancelled


def test_a_cancel_between_two_reads_is_not_missed() -> None:
    cancel = Cancel()
    cancel.cancel()
    woken: list[int] = []
    with cancel.waking(lambda: woken.append(1)):  # a read starting after the cancel
        assert woken == [1]


def test_a_client_gone_cancels_all_its_asks_and_no_one_elses() -> None:
    asks = RunningAsks()
    first, second, bobs = asks.start(ALICE, "1"), asks.start(ALICE, "2"), asks.start(BOB, "1")
    assert asks.gone(ALICE) == 2
    assert first.cancelled and second.cancelled and not bobs.cancelled
    assert asks.gone(ALICE) == 0


def test_the_cancel_op_names_its_id_and_answers_whether_it_found_it() -> None:
    asks = RunningAsks()
    asks.start(ALICE, "1")
    assert asks.cancel_request(Request("c", "cancel", {"id": "1"}, ALICE)) == {"cancelled": True}
    assert asks.cancel_request(Request("c", "cancel", {"id": "1"}, BOB)) == {"cancelled": False}


def test_a_waker_on_a_closed_socket_does_not_raise() -> None:
    left, right = socket.socketpair()
    left.close()
    cancel = Cancel()
    with cancel.waking(lambda: left.shutdown(socket.SHUT_RDWR)):
        assert cancel.cancel()  # OSError (a closed socket) is swallowed: nothing blocks
    right.close()


def test_a_waker_whose_block_has_ended_is_never_run() -> None:
    """The read ended and its connection went back to the pool, for another call: a
    cancel coming as the block ends must not shut that connection down under it."""
    cancel = Cancel()
    entered, leave = threading.Event(), threading.Event()
    woken: list[str] = []

    def reading() -> None:
        with cancel.waking(lambda: woken.append("late")):
            entered.set()
            leave.wait(5)

    reader = threading.Thread(target=reading)
    reader.start()
    assert entered.wait(5)
    leave.set()
    reader.join(5)
    assert cancel.cancel()
    assert woken == []
