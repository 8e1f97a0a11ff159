"""The server's pools, on real ZeroMQ sockets: searches from different clients run at the
same time, and neither a stuck `ask` nor `ragd check`s waiting for the writer hold up a
search."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from ragcli.transport import Connection
from ragd.serve.server import Request, Responder, Route, Server
from ragproto.errors import InternalError


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    srv = Server(f"ipc://{tmp_path / 'run' / 's.sock'}", pending=lambda: 0, search_workers=2)
    srv.bind()
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            srv.poll_once(20)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield srv
    stop.set()
    thread.join(10)
    srv.close()


def call_together(address: str, count: int, op: str) -> list[dict[str, Any]]:
    def one(_: int) -> dict[str, Any]:
        conn = Connection(address)
        try:
            return conn.call(op, {}, timeout_s=30)
        finally:
            conn.close()

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(one, range(count)))


def test_two_searches_are_served_at_the_same_time(server: Server) -> None:
    # Each search waits until the other one is running too: served one at a time, the
    # first would give up at the barrier's deadline and the call would fail.
    both_running = threading.Barrier(2, timeout=20)

    def search(request: Request) -> dict[str, Any]:
        both_running.wait()
        return {"thread": threading.current_thread().name}

    server.serve([Route("search", "search", search)])
    replies = call_together(server.address, 2, "search")
    assert {r["thread"] for r in replies} == {"ragd-search_0", "ragd-search_1"}


def test_a_stuck_ask_does_not_hold_up_a_search(server: Server) -> None:
    release = threading.Event()

    def ask(request: Request, responder: Responder) -> None:
        release.wait(30)
        responder.final({"answer": "late"})

    server.serve(
        [Route("ask", "ask", ask), Route("search", "search", lambda request: {"ok": True})]
    )
    asker = threading.Thread(target=call_together, args=(server.address, 1, "ask"))
    asker.start()
    try:
        assert call_together(server.address, 1, "search")[0]["ok"] is True
        assert not release.is_set()  # the ask was still in progress
    finally:
        release.set()
        asker.join(30)


def test_checks_waiting_for_the_writer_do_not_hold_up_a_search(server: Server) -> None:
    """A `check` waits up to two minutes for the index writer to be idle. On the search
    pool, two of them held both workers of a two-core machine, and every `rag search`
    beside a daemon that kept indexing went unanswered (attack52: 30 s timeouts for two
    minutes). They run one at a time on a pool of their own."""
    release = threading.Event()
    started = threading.Semaphore(0)

    def check(request: Request) -> dict[str, Any]:
        started.release()
        release.wait(30)
        return {"thread": threading.current_thread().name}

    server.serve(
        [Route("check", "check", check), Route("search", "search", lambda request: {"ok": 1})]
    )
    checkers = [
        threading.Thread(target=call_together, args=(server.address, 1, "check")) for _ in range(2)
    ]
    for checker in checkers:
        checker.start()
    try:
        assert started.acquire(timeout=20)  # one check is running and waiting
        assert [r["ok"] for r in call_together(server.address, 2, "search")] == [1, 1]
        assert not release.is_set()  # both searches answered while the checks waited
        assert not started.acquire(blocking=False)  # the second check waits its turn
    finally:
        release.set()
        for checker in checkers:
            checker.join(30)


def test_two_servers_in_one_process_each_have_their_own_outbox(tmp_path: Path) -> None:
    # ZeroMQ frees a closed socket's inproc name asynchronously, so with one shared name a
    # server bound right after another closed could fail "Address already in use" (this
    # file's fixture did once in CI under load). Both alive at once shows the names differ.
    first = Server(f"ipc://{tmp_path / 'a.sock'}", pending=lambda: 0)
    second = Server(f"ipc://{tmp_path / 'b.sock'}", pending=lambda: 0)
    try:
        first.bind()
        second.bind()
    finally:
        first.close()
        second.close()


class PanicException(BaseException):
    """A stand-in for pyo3's PanicException (a BaseException, made by pyo3 when a native
    library first panics, so not importable), named as pyo3 names it."""


def test_a_panic_in_native_code_is_an_internal_error_said_in_the_log(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """A handler whose native library panics (tantivy on a damaged segment, attack73) is
    answered `internal error: PanicException` and logged with its traceback, on the
    search pool and on the loop alike; the server answers the next request."""

    def panics(request: Request) -> dict[str, Any]:
        raise PanicException("index out of bounds: the len is 49 but the index is 49")

    server.serve(
        [
            Route("search", "search", panics),
            Route("stats", "loop", panics),
            Route("status", "loop", lambda request: {"ok": True}),
        ]
    )
    for op in ("search", "stats"):
        conn = Connection(server.address)
        try:
            with pytest.raises(InternalError, match="internal error: PanicException"):
                conn.call(op, {}, timeout_s=30)
        finally:
            conn.close()
    assert call_together(server.address, 1, "status")[0]["ok"] is True
    logged = [r for r in caplog.records if r.exc_info and r.exc_info[0] is PanicException]
    assert len(logged) == 2, caplog.text
