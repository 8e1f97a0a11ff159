"""When does `rag` end a request whose daemon has gone silent because it is stopped by a
signal (`ragcli/drop_probe.StoppedLooks`)? The looks are injected here; what a look
sees (the door's `stopped` reply) is tested with a daemon stopped for real in
tests/daemon/test_request_in_flight_when_stopped.py.

fixes74: one look ended the request, so a daemon stopped only for a moment (Ctrl-Z then
`fg`, a debugger attaching) at the instant of a look ended a healthy `rag ask` with
exit 3. Now two looks in a row must find it stopped, the second STOPPED_AGAIN_S later."""

from __future__ import annotations

from ragcli.drop_probe import STOPPED_AGAIN_S, StoppedLooks
from ragcli.transport import STOPPED_LOOK_S
from ragproto.errors import Stopped

STOPPED = Stopped("ragd (pid 7) is stopped and cannot answer")


def decisions(seen: list[Stopped | None]) -> list[tuple[Stopped | None, float]]:
    looks = StoppedLooks(STOPPED_LOOK_S)
    return [looks.after(one) for one in seen]


def test_a_daemon_running_is_looked_at_again_after_the_usual_silence() -> None:
    assert decisions([None, None]) == [(None, STOPPED_LOOK_S)] * 2


def test_one_look_that_finds_the_daemon_stopped_ends_nothing_and_looks_again_soon() -> None:
    # stopped at the first look, continued (`fg`, the debugger detached) by the second
    assert decisions([STOPPED, None]) == [(None, STOPPED_AGAIN_S), (None, STOPPED_LOOK_S)]
    assert STOPPED_AGAIN_S < STOPPED_LOOK_S


def test_two_looks_in_a_row_that_find_it_stopped_end_the_request_in_the_door_s_words() -> None:
    ended = decisions([STOPPED, STOPPED])[-1][0]
    assert ended is STOPPED


def test_stopped_looks_with_a_running_one_between_them_end_nothing() -> None:
    seen = [STOPPED, None, STOPPED, None, STOPPED]
    assert all(error is None for error, _ in decisions(seen))
    assert decisions([*seen, STOPPED])[-1][0] is STOPPED
