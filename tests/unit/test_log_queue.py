"""The daemon's log handler never blocks the thread that logs (fix23, item 1): lines go
through a bounded queue to a writer thread; past the queue they are dropped and counted,
and the count is written, in the log's own format, once the writer catches up.

A real pipe stands in for a stderr nobody reads."""

from __future__ import annotations

import fcntl
import logging
import os
import sys
import threading
import warnings
from collections.abc import Iterator

import pytest

from ragd.core.log_queue import DROPPED_LOGGER, QueuedHandler
from ragd.core.logs import make_formatter, setup_logging

RECORDS = 500
NOTICE = "log line(s) dropped: stderr was not being read"


class Pipe:
    """A pipe of one page (a few dozen lines fill it), closed once, whatever the test did."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        fcntl.fcntl(self.write_end, fcntl.F_SETPIPE_SZ, 4096)
        self.open = [self.read_end, self.write_end]

    def close_writer(self) -> None:
        """The end of what is written: the reader sees end of file."""
        os.close(self.write_end)
        self.open.remove(self.write_end)

    def close(self) -> None:
        for fd in self.open:
            os.close(fd)


@pytest.fixture
def pipe() -> Iterator[Pipe]:
    made = Pipe()
    yield made
    made.close()


def journal_handler(write_end: int) -> tuple[QueuedHandler, logging.Logger]:
    stream = open(write_end, "w", buffering=1, closefd=False)  # noqa: SIM115 - the handler's
    handler = QueuedHandler(stream, capacity=8)
    handler.setFormatter(make_formatter(journal=True))
    logger = logging.getLogger(f"ragd.test-log-queue-{write_end}")
    logger.propagate = False
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    return handler, logger


def read_all(read_end: int, into: list[bytes]) -> None:
    while chunk := os.read(read_end, 65536):
        into.append(chunk)


def test_a_full_pipe_drops_and_counts_lines_and_says_so(pipe: Pipe) -> None:
    os.write(pipe.write_end, b"x" * 4095 + b"\n")  # full: nobody has read it yet
    handler, logger = journal_handler(pipe.write_end)
    for n in range(RECORDS):  # returns although nothing reads the pipe
        logger.warning("skipped a-file-with-a-name-long-enough-to-fill-the-pipe-%04d.md", n)
    assert handler.dropped_total > 0
    assert not handler.drain(timeout=0.2)  # the writer is stuck on the full pipe
    # The reader comes back: what was queued is written, then the count of what was not.
    received: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(pipe.read_end, received), daemon=True)
    reader.start()
    assert handler.drain(timeout=30)
    pipe.close_writer()
    reader.join(30)
    lines = b"".join(received).decode().splitlines()[1:]  # after the one written before
    notices = [line for line in lines if NOTICE in line]
    records = [line for line in lines if "skipped" in line]
    assert notices and all(n.startswith(f"<4>{DROPPED_LOGGER}: ") for n in notices)
    assert sum(int(n.split(": ")[1].split()[0]) for n in notices) == handler.dropped_total
    assert len(records) + handler.dropped_total == RECORDS
    assert all(line.startswith("<4>ragd.test-log-queue") for line in records)  # unchanged format
    assert lines[-1] in notices  # said once the writer caught up


def test_nothing_is_dropped_while_the_pipe_is_read(pipe: Pipe) -> None:
    received: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(pipe.read_end, received), daemon=True)
    reader.start()
    handler, logger = journal_handler(pipe.write_end)
    for n in range(RECORDS):
        logger.info("indexed %d.md", n)
        handler.drain(timeout=30)  # a reader that keeps up
    pipe.close_writer()
    reader.join(30)
    lines = b"".join(received).decode().splitlines()
    assert handler.dropped_total == 0
    assert lines == [f"<6>{logger.name}: indexed {n}.md" for n in range(RECORDS)]


@pytest.fixture
def daemon_logging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """setup_logging's process-wide changes, undone after the test."""
    root = logging.getLogger()
    handlers, level, hook = root.handlers[:], root.level, threading.excepthook
    monkeypatch.setattr(warnings, "filters", list(warnings.filters))
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    threading.excepthook = hook
    logging.captureWarnings(False)


def test_warnings_and_thread_exceptions_go_through_the_queue(
    pipe: Pipe, monkeypatch: pytest.MonkeyPatch, daemon_logging: None
) -> None:
    os.write(pipe.write_end, b"x" * 4095 + b"\n")  # full: nobody has read it yet
    monkeypatch.setattr(sys, "stderr", open(pipe.write_end, "w", buffering=1, closefd=False))  # noqa: SIM115
    setup_logging("INFO", journal=False)
    warnings.simplefilter("always")

    def fail() -> None:
        raise ValueError("a bug in a worker thread")

    def misbehave() -> None:  # each would have written to the full pipe from this thread
        warnings.warn("a library's deprecation", DeprecationWarning, stacklevel=1)
        failing = threading.Thread(target=fail, name="ragd-test-worker")
        failing.start()
        failing.join()

    done = threading.Thread(target=misbehave, daemon=True)
    done.start()
    done.join(60)  # a hang detector: a write to the full pipe would block for good
    assert not done.is_alive(), "a warning or a thread's exception blocked on stderr"
    received: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(pipe.read_end, received), daemon=True)
    reader.start()
    handler = logging.getLogger().handlers[0]
    assert isinstance(handler, QueuedHandler) and handler.drain(timeout=30)
    pipe.close_writer()
    reader.join(30)
    text = b"".join(received).decode()
    assert "WARNING py.warnings: " in text and "a library's deprecation" in text
    assert "ERROR   ragd.thread: uncaught exception in ragd-test-worker" in text
    assert "ValueError: a bug in a worker thread" in text
