"""Log lines written by a thread of their own, so no other thread ever waits on stderr.

A write to stderr blocks once the pipe or socket behind it is full: journald backlogged,
a parent that never reads, a terminal paused with Ctrl-S. Written by the thread that
logged, that stopped the index writer mid-burst holding the handler's lock, and then
every thread that logged after it — the server loop's own "shutting down" included, so
the daemon could not even stop. Here a record is formatted by the thread that logs it
(cheap, and its arguments are read before they can change) and handed to a bounded
queue; one writer thread writes the lines. When the queue is full the line is dropped
and counted, and once the writer catches up it says how many in one warning line.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import TextIO

QUEUED_LINES = 4096  # a few hundred KiB of lines at most; a burst past it is counted
FLUSH_DEADLINE_S = 2.0  # at close (shutdown): what the writer may still take to write
DROPPED_LOGGER = "ragd.log"


class QueuedHandler(logging.Handler):
    """A handler whose `emit` never blocks: the line goes to a bounded queue or is
    counted as dropped; a writer thread writes the queue to `stream`."""

    def __init__(self, stream: TextIO, capacity: int = QUEUED_LINES) -> None:
        super().__init__()
        self.stream = stream
        self._lines: queue.Queue[str] = queue.Queue(capacity)
        self._count_lock = threading.Lock()
        self._dropped = 0  # since the last notice
        self.dropped_total = 0  # since start (`stats`)
        self._writer = threading.Thread(target=self._write_all, name="ragd-log", daemon=True)
        self._writer.start()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        try:
            self._lines.put_nowait(line)
        except queue.Full:
            with self._count_lock:
                self._dropped += 1
                self.dropped_total += 1

    def flush(self) -> None:
        """`logging.shutdown` calls it before the daemon exits: what is queued then is
        written, within the deadline."""
        self.drain()

    def drain(self, timeout: float = FLUSH_DEADLINE_S) -> bool:
        """Wait until every queued line is written, at most `timeout`; False if some
        were not (the stream is not being read)."""
        deadline = time.monotonic() + timeout
        with self._lines.all_tasks_done:
            while self._lines.unfinished_tasks:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lines.all_tasks_done.wait(left)
        return True

    # -- the writer thread ------------------------------------------------------------
    def _write_all(self) -> None:
        while True:
            line = self._lines.get()
            try:
                self._write(line)
                if self._lines.empty():  # caught up: say what could not be queued
                    self._write_dropped_notice()
            finally:
                self._lines.task_done()

    def _write_dropped_notice(self) -> None:
        with self._count_lock:
            dropped, self._dropped = self._dropped, 0
        if dropped:
            notice = logging.LogRecord(
                DROPPED_LOGGER,
                logging.WARNING,
                __file__,
                0,
                "%d log line(s) dropped: stderr was not being read",
                (dropped,),
                None,
            )
            self._write(self.format(notice))

    def _write(self, line: str) -> None:
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # closed or broken: nobody reads it, nothing to say
            pass


_installed: QueuedHandler | None = None


def install(handler: QueuedHandler) -> None:
    """Remember the daemon's handler, so `dropped_lines` can report its count."""
    global _installed
    _installed = handler


def dropped_lines() -> int:
    """Log lines dropped since start because stderr was not read (0 without the handler)."""
    return _installed.dropped_total if _installed is not None else 0


def flush(timeout: float = FLUSH_DEADLINE_S) -> None:
    """Write what is queued before something else is printed to stderr (a fatal line)."""
    if _installed is not None:
        _installed.drain(timeout)
