"""The notify protocol and journal logging, on real sockets and real file descriptors."""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.logs import JournalFormatter, journal_stream, make_formatter, priority
from ragd.core.notify import Notifier, StatusReporter


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    path = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    yield sock, str(path)
    sock.close()


def pending(sock: socket.socket) -> list[str]:
    """Every datagram already queued on the socket (never waits)."""
    out = []
    sock.setblocking(False)
    while True:
        try:
            out.append(sock.recv(65536).decode())
        except BlockingIOError:
            return out


def test_messages_reach_the_socket(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    notifier = Notifier(environ={"NOTIFY_SOCKET": path})
    assert notifier.enabled
    notifier.ready("idle: 3 files, 12 chunks")
    notifier.status("indexing 1/3 files")
    notifier.watchdog()
    notifier.stopping()
    assert pending(sock) == [
        "READY=1\nSTATUS=idle: 3 files, 12 chunks",
        "STATUS=indexing 1/3 files",
        "WATCHDOG=1",
        "STOPPING=1\nSTATUS=stopping",
    ]
    notifier.close()


def test_a_status_text_cannot_add_a_field(listener: tuple[socket.socket, str]) -> None:
    """STATUS= carries text from outside (a vector server's error message): a newline in
    it added a field of the server's choosing (`WATCHDOG=trigger`: systemd restarts the
    service; `MAINPID=`: it tracks another process)."""
    sock, path = listener
    notifier = Notifier(environ={"NOTIFY_SOCKET": path})
    notifier.status("degraded: vector index: unexpected reply (x\nWATCHDOG=trigger\nMAINPID=1)")
    (message,) = pending(sock)
    fields = message.split("\n")
    assert len(fields) == 1 and fields[0].startswith("STATUS=degraded"), fields
    assert "WATCHDOG=trigger\\nMAINPID=1)" in message
    notifier.close()


def test_abstract_socket_address() -> None:
    name = f"ragd-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    try:
        Notifier(environ={"NOTIFY_SOCKET": "@" + name}).send("READY=1")
        assert pending(sock) == ["READY=1"]
    finally:
        sock.close()


def test_without_systemd_everything_is_a_no_op(tmp_path: Path) -> None:
    notifier = Notifier(environ={})
    assert not notifier.enabled
    assert notifier.watchdog_interval_s == 0
    assert not notifier.send("READY=1")
    assert not notifier.keepalive(now=100.0)
    # systemd gone (socket path vanished): sending fails quietly
    gone = Notifier(environ={"NOTIFY_SOCKET": str(tmp_path / "nobody.sock")})
    assert not gone.send("WATCHDOG=1")


def test_watchdog_pings_at_half_the_interval(listener: tuple[socket.socket, str]) -> None:
    sock, path = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": str(os.getpid())}
    notifier = Notifier(environ=env)
    assert notifier.watchdog_interval_s == 2.0
    sent = [t for t in (0.0, 1.0, 1.99, 2.0, 3.5, 4.0, 4.1) if notifier.keepalive(now=100 + t)]
    assert sent == [0.0, 2.0, 4.0]
    assert pending(sock) == ["WATCHDOG=1"] * 3


def test_watchdog_meant_for_another_process_is_ignored(listener: tuple[socket.socket, str]) -> None:
    _, path = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000", "WATCHDOG_PID": "1"}
    assert Notifier(environ=env).watchdog_interval_s == 0


def test_status_is_rate_limited_and_sent_only_on_change(
    listener: tuple[socket.socket, str],
) -> None:
    sock, path = listener
    now = [0.0]
    texts = iter(["indexing 1/9 files", "indexing 2/9 files", "indexing 2/9 files", "idle: 9"])
    computed = []

    def compute() -> str:
        computed.append(now[0])
        return next(texts)

    reporter = StatusReporter(
        Notifier(environ={"NOTIFY_SOCKET": path}), compute, 1.0, lambda: now[0]
    )
    for t in (0.0, 0.1, 0.2, 0.5, 0.99, 1.0, 1.5, 2.1, 2.2, 3.2):  # ten loop ticks
        now[0] = t
        reporter.tick()
    assert computed == [0.0, 1.0, 2.1, 3.2]  # at most once a second
    assert pending(sock) == [  # and only what changed
        "STATUS=indexing 1/9 files",
        "STATUS=indexing 2/9 files",
        "STATUS=idle: 9",
    ]


def test_status_costs_nothing_without_systemd() -> None:
    calls = []
    reporter = StatusReporter(Notifier(environ={}), lambda: calls.append(1) or "x")
    reporter.tick()
    assert calls == []


# -- logs ------------------------------------------------------------------------------
def record(level: int, message: str, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise ValueError("boom")
        except ValueError:
            import sys

            exc_info = sys.exc_info()
    return logging.LogRecord("ragd.indexer", level, __file__, 1, message, (), exc_info)


def test_journal_lines_carry_priorities_and_no_timestamps() -> None:
    formatter = JournalFormatter("%(name)s: %(message)s")
    assert formatter.format(record(logging.INFO, "indexed a.md")) == "<6>ragd.indexer: indexed a.md"
    assert formatter.format(record(logging.WARNING, "skipped b.pdf")).startswith("<4>")
    assert formatter.format(record(logging.ERROR, "x")).startswith("<3>")
    assert formatter.format(record(logging.DEBUG, "x")).startswith("<7>")
    assert [priority(n) for n in (5, 15, 25, 35, 45, 55)] == [7, 7, 6, 4, 3, 2]
    lines = formatter.format(record(logging.ERROR, "failed", exc=True)).splitlines()
    assert len(lines) > 2 and all(line.startswith("<3>") for line in lines)  # tracebacks too


def test_plain_lines_have_timestamps_and_levels() -> None:
    line = make_formatter(journal=False).format(record(logging.WARNING, "skipped b.pdf: empty"))
    time_part, level, rest = line.split(maxsplit=2)
    assert len(time_part) == 8 and time_part.count(":") == 2
    assert (level, rest) == ("WARNING", "ragd.indexer: skipped b.pdf: empty")


def test_journal_stream_must_name_our_stderr(tmp_path: Path) -> None:
    with open(tmp_path / "a", "wb") as a, open(tmp_path / "b", "wb") as b:
        st = os.fstat(a.fileno())
        env = {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}
        assert journal_stream(env, fd=a.fileno())
        assert not journal_stream(env, fd=b.fileno())  # inherited, but stderr was redirected
        assert not journal_stream({}, fd=a.fileno())
        assert not journal_stream({"JOURNAL_STREAM": "garbage"}, fd=a.fileno())
