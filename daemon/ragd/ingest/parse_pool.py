"""Parsing in separate processes, each with a time and a memory limit.

A file's bytes go to a small long-lived worker process (`parse_child`), which caps its
own address space and imports only the loaders. The daemon never forks itself (it holds
torch and a dozen threads); workers are started with fork+exec of a fresh interpreter.
A parse that exceeds `timeout_s` is killed with its process, which is replaced at the
next request; a worker that dies (out of memory, a crash in a C extension) costs one
file, reported with its reason. Nothing a file does in a parser reaches the daemon.

Two workers serve one queue, so one slow file cannot hold every small one behind it.
The caller gets a `Ticket` at once and may wait on it for as long as it likes: the index
writer waits a moment, and parks a file that takes longer (see `planner`, `slow_files`).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragd.core.config import default
from ragd.ingest.document import LOCATED
from ragd.ingest.loaders import Document, SkipFile
from ragd.ingest.parse_child import REPLY, REQUEST

if TYPE_CHECKING:
    from ragd.core.config import Settings

log = logging.getLogger("ragd.parse")


WORKERS = 2
CANCEL_POLL_S = 0.1


@dataclass(frozen=True)
class ParseLimits:
    timeout_s: float = default("parse_timeout_s")
    memory_mb: int = default("parse_memory_mb")
    max_text_chars: int | None = int(default("max_text_mb") * 1024 * 1024)

    @classmethod
    def from_settings(cls, settings: Settings) -> ParseLimits:
        return cls(settings.parse_timeout_s, settings.parse_memory_mb, settings.max_text_chars)


class OutOfDescriptors(Exception):
    """The daemon has no file descriptor left (EMFILE, ENFILE) to open a file or start a
    parser with: a state of the process, not of the file. Peers that connect to a tcp://
    socket and never speak each hold one until they leave; a file saved meanwhile was
    skipped as "read failed (Too many open files)" or "parser failed (OSError)" until it
    changed (the second also dropped its indexed text). The writer reads it again later."""


def out_of_descriptors(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE)


# The reason a ticket finishes with when its parser could not be started for want of
# descriptors; `Ticket.result` raises OutOfDescriptors for it, not SkipFile.
_NO_DESCRIPTORS = "no file descriptor left to start a parser"


class Ticket:
    """One file's parse: wait for it, read its result, or cancel it."""

    def __init__(self, name: str, data: bytes, folder: str | None = None) -> None:
        self.name = name
        self.data = data
        self.folder = folder  # where the file is: a reader may read beside it (DocBook's DTDs)
        self.started: float | None = None  # when a worker took it
        self.progress: tuple[int, int] | None = None  # (done, total) pages of a slow parse
        self.cancelled = False
        self._document: Document | None = None
        self._reason = ""
        self._done = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> Document:
        """The document, or SkipFile with the reason it could not be parsed."""
        self._done.wait()
        if self._document is None and self._reason == _NO_DESCRIPTORS:
            raise OutOfDescriptors(self._reason)
        if self._document is None:
            raise SkipFile(self._reason)
        return self._document

    def cancel(self) -> None:
        self.cancelled = True

    def _finish(self, document: Document | None, reason: str = "") -> None:
        self._document, self._reason, self.data = document, reason, b""
        self._done.set()


class ParsePool:
    def __init__(
        self, limits: Callable[[], ParseLimits] = ParseLimits, workers: int = WORKERS
    ) -> None:
        # Asked at each parse: the daemon's reads its live settings, so a reload applies
        # from the next parse on (a worker started under another memory limit is
        # replaced before its next file).
        self._limits = limits
        self._queue: queue.Queue[Ticket | None] = queue.Queue()
        self.closing = False
        self._workers = [_Worker(self, i) for i in range(workers)]
        for worker in self._workers:
            worker.start()

    @property
    def limits(self) -> ParseLimits:
        """The time, memory and text limits in force."""
        return self._limits()

    def submit(self, name: str, data: bytes, folder: str | None = None) -> Ticket:
        ticket = Ticket(name, data, folder)
        self._queue.put(ticket)
        return ticket

    def parse(self, name: str, data: bytes, folder: str | None = None) -> Document:
        """Parse and wait (within the time limit); raises SkipFile."""
        return self.submit(name, data, folder).result()

    def close(self) -> None:
        self.closing = True
        for _ in self._workers:
            self._queue.put(None)
        for worker in self._workers:
            worker.stop_child()


_shared: ParsePool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> ParsePool:
    """One pool with the default limits for indexers built without one (tests, bench):
    each new pool would otherwise start worker processes of its own."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = ParsePool()
        return _shared


class _Worker(threading.Thread):
    """A thread that feeds one child process, starting a fresh one after each loss."""

    def __init__(self, pool: ParsePool, number: int) -> None:
        super().__init__(name=f"ragd-parse-{number}", daemon=True)
        self.pool = pool
        self.proc: subprocess.Popen[bytes] | None = None
        self.memory_mb = 0  # the address-space limit `proc` was started with

    def run(self) -> None:
        while True:
            ticket = self.pool._queue.get()
            if ticket is None:
                self.kill()
                return
            if ticket.cancelled:
                ticket._finish(None, "cancelled")
                continue
            ticket.started = time.monotonic()
            try:
                document, reason = self._parse(ticket)
            except Exception as exc:  # one bad file never stops the worker
                self.kill()
                if out_of_descriptors(exc):  # the writer logs it, once a minute
                    document, reason = None, _NO_DESCRIPTORS
                else:
                    log.exception("parse worker failed on a file")
                    document, reason = None, f"parser failed ({type(exc).__name__})"
            ticket._finish(document, reason)

    def _spawn(self) -> subprocess.Popen[bytes]:
        memory_mb = self.pool.limits.memory_mb
        if self.proc is not None and self.memory_mb != memory_mb:
            self.kill()  # started under another parse_memory_mb (a reload changed it)
        if self.proc is None or self.proc.poll() is not None:
            self.memory_mb = memory_mb
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ragd.ingest.parse_child", str(memory_mb), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
        return self.proc

    def stop_child(self) -> None:
        """From another thread (shutdown): end the child, and leave its pipes to this
        worker's thread, which may be reading them; closing them here would pull the
        descriptor from under its `select` (EBADF, or worse, a reused number)."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def kill(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.kill()
        if proc is not None:
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:
                    pass  # unwritten request bytes to a dead process

    def _parse(self, ticket: Ticket) -> tuple[Document | None, str]:
        limits = self.pool.limits
        proc = self._spawn()
        assert proc.stdin is not None and proc.stdout is not None
        header = json.dumps(
            {
                "name": ticket.name,
                "max_text_chars": limits.max_text_chars,
                "timeout_s": limits.timeout_s,
                "folder": ticket.folder,
            }
        )
        head = header.encode("utf-8")
        try:
            proc.stdin.write(REQUEST.pack(len(head), len(ticket.data)) + head)
            proc.stdin.write(ticket.data)
            proc.stdin.flush()
        except BrokenPipeError:
            pass  # it stopped reading (out of memory?): its reply, or its exit, says why
        deadline = ticket.started + limits.timeout_s if ticket.started else time.monotonic()
        body = self._read_reply(proc, ticket, deadline)
        if isinstance(body, str):
            return None, body
        reply = json.loads(body)
        if reply.get("retiring"):
            self.kill()  # it exits after this reply; the next file must not reach it first
        if "document" in reply:
            fields = reply["document"]
            fields["pages"] = [(int(n), str(t)) for n, t in fields["pages"]]
            outline = fields.get("outline") or []
            fields["outline"] = [(int(n), int(d), str(t)) for n, d, t in outline]
            # Locations only point into the file: anything but a line or cell number is none.
            fields["located"] = fields.get("located") if fields.get("located") in LOCATED else None
            fields["origins"] = [o if type(o) is int else None for o in fields.get("origins") or []]
            fields["reads"] = [(str(n), str(d)) for n, d in fields.get("reads") or []]
            fields["wants"] = [str(key) for key in fields.get("wants") or []]
            fields["holds"] = [str(key) for key in fields.get("holds") or []]
            title = fields.get("runs_title")
            fields["runs_title"] = title if isinstance(title, str) else None
            return Document(**fields), ""
        reason = str(reply.get("skip", "parser failed"))
        if reason.startswith("out of memory"):
            reason = f"{reason} (limit {limits.memory_mb} MB, parse_memory_mb)"
        return None, reason

    def _read_reply(
        self, proc: subprocess.Popen[bytes], ticket: Ticket, deadline: float
    ) -> bytes | str:
        """The reply's body, or the reason there is none (the worker is then gone). The
        progress frames of a slow parse before it are noted on the ticket."""
        buffer = bytearray()
        while True:
            frame = self._read_frame(proc, ticket, deadline, buffer)
            progress = _progress(frame) if isinstance(frame, bytes) else None
            if progress is None:
                return frame
            ticket.progress = progress

    def _read_frame(
        self, proc: subprocess.Popen[bytes], ticket: Ticket, deadline: float, buffer: bytearray
    ) -> bytes | str:
        """The next frame's body; bytes read past it stay in `buffer` for the next."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            need = REPLY.size
            if len(buffer) >= REPLY.size:
                need += REPLY.unpack(bytes(buffer[: REPLY.size]))[0]
                if len(buffer) >= need:
                    frame = bytes(buffer[REPLY.size : need])
                    del buffer[:need]
                    return frame
            left = deadline - time.monotonic()
            if ticket.cancelled:
                self.kill()
                return "cancelled"
            if left <= 0:
                self.kill()
                return (
                    f"parsing took longer than {self.pool.limits.timeout_s:g} s (parse_timeout_s)"
                )
            if not _readable(fd, min(left, CANCEL_POLL_S)):
                continue
            chunk = os.read(fd, max(65536, need - len(buffer)))
            if not chunk:
                return self._lost(proc)
            buffer += chunk

    def _lost(self, proc: subprocess.Popen[bytes]) -> str:
        code = proc.wait()
        self.kill()
        if self.pool.closing:
            return "cancelled"  # stopped by the shutdown, not by the file
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
            return f"the parser was killed by {name} (out of memory, or a crash)"
        return f"the parser exited with status {code} (out of memory, or a crash)"


def _progress(frame: bytes) -> tuple[int, int] | None:
    """(done, total) of a progress frame; None for the reply (checked by its first bytes,
    so a large document is not decoded twice)."""
    if not frame.startswith(b'{"progress"'):
        return None
    try:
        done, total = json.loads(frame)["progress"]
        return (done, total) if type(done) is int and type(total) is int else (0, 0)
    except (ValueError, TypeError, KeyError):
        return (0, 0)  # a malformed progress frame: progress unknown, the reply still to come


def _readable(fd: int, timeout_s: float) -> bool:
    """Has `fd` data (or its end) within `timeout_s`? poll, not select: select() cannot
    watch a descriptor numbered 1,024 or more, which a daemon holding a thousand
    connections reaches; every parse then failed with ValueError and its file was held
    as unparseable until it changed."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout_s * 1000))
