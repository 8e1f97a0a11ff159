"""The embedded vector store, run in a child process the daemon owns.

ChromaDB's embedded client (native Rust bindings) holds the GIL for the whole of an
`upsert`: every thread of the daemon stood still for it — the event loop serving the
socket, `rag status`, BM25-only searches. Measured (review42): a 256-vector batch on a
26,000-vector index froze the daemon 2.5–2.8 s, one 4,000-vector batch 42.7 s, and the
stall grows with the index. So in embedded mode the daemon never loads ChromaDB's native
library: `StoreProcess` starts `ragd.index.store_worker`, which opens `ChromaStore` in a
process of its own, and forwards each call over a socket pair private to the two (no
port another local user could reach). The worker's GIL is the only one ChromaDB holds.

How each call is bounded, as the other stores' are:

- a read for a search waits at most `query_wait_s` (dense.QUERY_WAIT_S) and then raises
  StoreBusy, so the search answers from BM25 with its note; while a read given up on
  has not come back, the next ones raise StoreBusy at once rather than queue behind it.
  Requests carry ids: an answer that comes after its caller gave up is dropped by id,
  never read as the next call's answer; and a read carries its deadline, so the worker
  skips one nobody waits for any more (after a long upsert) instead of running it;
- a write waits while the worker lives (the index writer pauses), after the disk guard
  and another process's lock on the database (index/store_lock.py, asked here: the
  worker's own locks are not "another process"); waiting for a lock or for a new worker
  gives up at shutdown (`stop_waiting`), a live worker's answer is waited for (the
  shutdown deadline abandons the writer if it never comes);
- the worker dies (kill -9, a segfault, the OOM killer): one log line naming it, reads
  fail at once with VectorStoreUnavailable (BM25 meanwhile, `rag status` says why), a
  write in flight is sent again to the next worker (upsert and delete are idempotent),
  and a new worker is started — after the same check start-up makes (`vet`: the probe,
  which removes a damaged store) — and `take_refill` has the index writer compare it
  with the manifest and restore what is missing from the embedding cache (nothing is
  embedded again), as after a vector server's reconnection;
- the worker is stuck (SIGSTOP, a deadlock inside ChromaDB or SQLite): the thread that
  receives its replies looks every WATCH_S at the request it is working on, and kills it
  (SIGKILL) once that request has gone its bound (`read_stall_s` of core/timings.py for
  a search's read, WRITE_STALL_S for the rest) with the process using no CPU time at
  all, unless another process holds a lock on the database (which it may be waiting
  for). Busy is told from
  stuck by the CPU clock, not by a heartbeat: a native upsert holds the worker's GIL, so a
  heartbeat thread of its own would stand still for a legitimate write too, while the
  CPU time of a write that computes keeps moving however long it runs (a refill of
  100,000 vectors is one request). One log line names the request and how long it went;
  then it is started again as one that died;
- the worker computes without ever answering (a livelock, a loop in native code): its CPU
  clock moves, so it is not stuck by the rule above; once the request it is on has used
  BUSY_CPU_S of CPU time per MAX_BATCH vectors it carries, it is killed and started
  again the same way, in one line saying so;
- its start is watched as a request is (`_Worker.opening`): one that never says "ready"
  (ChromaDB's open on a stalled disk, or computing for ever) is killed after
  WRITE_STALL_S with no CPU or START_CPU_S of CPU time; a first start then fails with
  that line, a later one is logged and tried again (RETRY_S, backing off), as a start
  that failed;
- a write that failed in native code (`judge_write_failure`: the worker's ChromaStore is
  then `wedged` and refuses every further call) gets the worker killed and started again
  in the same way; the daemon goes on (it re-executed itself for this before the store
  had a process of its own).

Workers are started on one long-lived thread of this process ("ragd-vector-process"):
the kernel's parent-death signal (core/parent_death.py) is tied to the thread that
started a child, and start-up's loader thread ends.

The worker's start costs an interpreter, numpy and ChromaDB's import (≈ 1 CPU s), paid
once per daemon start beside the model's load (docs/performance.md). `launch` is how a
worker is started: ragd always executes a fresh interpreter (no lock, thread or socket of
the daemon's can reach the worker); the tests' fork server, which has ChromaDB imported
before any daemon code runs, puts in its own (tests/support/store_fork.py).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ragd.core import timings
from ragd.core.layout import VECTOR_DATABASE
from ragd.core.proc_stat import CLOCK_TICKS, proc_stat
from ragd.core.vector_store import VectorStore
from ragd.index.dense import (
    MAX_BATCH,
    QUERY_WAIT_S,
    DenseIndexError,
    ReadFailed,
    StoreBusy,
    judge_write_failure,
)
from ragd.index.server_store import VectorStoreUnavailable, taken
from ragd.index.space import DiskGuard
from ragd.index.store_lock import LockWatch
from ragd.index.store_worker import AGAIN, CLOSE, EXPIRED

log = logging.getLogger(__name__)

RETRY_S = 1.0  # a write waiting for a new worker, and a worker that would not start
MOST_RETRY_S = 30.0  # … backing off to this between failed starts
CLOSE_WAIT_S = 5.0
# A worker is stuck, and killed, when the request it is on has gone this long without the
# process using any CPU time (and no other process holds a lock on the database, which it
# may be waiting for). Measured through this class (docs/reliability.md): one 4,000-vector
# upsert (MAX_BATCH, the most one native call writes) took 8.5 s on an empty index, 62 s
# at 16,000 vectors and 173 s at 28,000 (load 6 to 18 on 2 cores): no bound on the wall
# time fits a write, whose cost grows with the index and the load. But none went more
# than 0.27 s without a CPU tick: busy is computing. A write may go 60 s with none (over
# 200 times that, room for a slow disk's fsync); a search's read (milliseconds at 100k
# vectors) 20 s (`read_stall_s` in core/timings.py, read at each read: the tests' seam).
WRITE_STALL_S = 60.0
# A worker that keeps computing without answering (a livelock: a loop in native code) is
# killed once the request it is on has used this much CPU time per MAX_BATCH vectors it
# carries (a refill sends them all as one request). CPU time, not wall time: a write's
# wall time grew 8.5 → 173 s with the index and the load, its CPU time 3.2 → 26 s
# (measured above, at 32,000 vectors), so this is over 20 times the costliest write seen
# and no load makes a legitimate one reach it (killed, its write would be sent again).
BUSY_CPU_S = 600.0
# The worker's start (an interpreter, numpy, ChromaDB's import, the store's open) is
# watched as a request: the same WRITE_STALL_S with no CPU (a stalled disk), and this
# much CPU time. Measured (docs/reliability.md, bench/store_write_stall.py --starts): a
# start took 15-24 s of wall time at load 13-22, but 1.2-1.6 CPU s, and never went 0.7 s
# without CPU: a wall bound fits no load, 60 CPU s is 37 times the most seen.
START_CPU_S = 60.0
OPEN = "open"  # what a start is called in the line that kills one
WATCH_S = 1.0  # how often the receiving thread looks at the request in flight
# `ragd check` beside a live daemon reads every id and a sample back: more than a search's
# read at 100k vectors, and the worker bounds each page by QUERY_WAIT_S itself (a lock).
CHECK_WAIT_S = 120.0


class StoreProcessError(DenseIndexError):
    """What the worker's ChromaStore raised, by its class name (`kind`) and text."""

    def __init__(self, kind: str, text: str, pid: int | None = None) -> None:
        super().__init__(text)
        self.kind = kind
        self.pid = pid  # the worker that raised it


def cpu_ticks(pid: int) -> int | None:
    """The process's user + system CPU time, all threads, in clock ticks (None: gone)."""
    stat = proc_stat(pid)
    return stat.cpu_ticks if stat is not None else None


@dataclass
class _Call:
    """One request in flight: its reply, once it comes."""

    rid: int
    op: str
    stall_s: float  # how long it may go without the worker using CPU (WRITE_STALL_S)
    cpu_s: float = BUSY_CPU_S  # how much CPU time it may use before it is called livelocked
    sent: float = field(default_factory=time.monotonic)
    done: threading.Event = field(default_factory=threading.Event)
    reply: tuple[str, Any] | None = None  # (status, value); None: the worker died
    abandoned: bool = False


class WorkerProcess(Protocol):
    """What is used of a started worker: `subprocess.Popen`'s names."""

    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def execute_worker(args: list[str], fd: int) -> WorkerProcess:
    """`python -m ragd.index.store_worker ARGS`, handed the descriptor `fd`."""
    return subprocess.Popen(
        [sys.executable, "-m", "ragd.index.store_worker", *args],
        pass_fds=(fd,),
        stdin=subprocess.DEVNULL,
        env=os.environ | {"ANONYMIZED_TELEMETRY": "False"},
    )


# How `_start_worker` starts a worker process: its arguments (FD PARENT_PID PATH [--again])
# and the descriptor FD names. Looked up at each start (module docstring).
launch: Callable[[list[str], int], WorkerProcess] = execute_worker


class _Worker:
    """One running worker process: its pipe, and its requests in flight by id."""

    def __init__(self, proc: WorkerProcess, conn: Connection) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.conn = conn
        self._sending = threading.Lock()
        self._lock = threading.Lock()
        self._calls: dict[int, _Call] = {}
        self._ids = itertools.count(1)
        self.stuck = 0  # reads given up on whose answer has not come back
        self.count = 0  # the store's size, as its last reply said
        self.gone: str | None = None  # why it ended
        self.killed_for: str | None = None  # why this process killed it (`kill`)
        self._answered = time.monotonic()  # its last reply: the next request starts then
        self._ticks: int | None = None  # its CPU time when last looked at (`stalled`)
        self._ticked = 0.0  # … and when that changed
        self._looked = 0.0  # when `stalled` last looked
        self._head: tuple[int, int] | None = None  # (request id, CPU ticks) when it came first

    def send(
        self,
        op: str,
        args: tuple[Any, ...],
        deadline: float | None,
        stall_s: float,
        cpu_s: float = BUSY_CPU_S,
    ) -> _Call:
        """Send a request; a read (`deadline`) waits for the pipe at most until then.
        `cpu_s`: its CPU bound per MAX_BATCH vectors (`ids`) it carries."""
        batches = -(-len(args[0]) // MAX_BATCH) if args and isinstance(args[0], list) else 1
        with self._lock:
            if self.gone is not None:
                raise VectorStoreUnavailable(self.gone)
            call = _Call(next(self._ids), op, stall_s, cpu_s * max(1, batches))
            self._calls[call.rid] = call
        wait = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
        if not self._sending.acquire(timeout=wait):
            with self._lock:
                self._calls.pop(call.rid, None)  # never sent: no answer to wait for
            raise StoreBusy("the vector store process is busy receiving a large write")
        try:
            self.conn.send((call.rid, op, args, deadline))
        except OSError:
            self.finish(call, None)  # it died: the receiver says so
        finally:
            self._sending.release()
        return call

    def abandon(self, call: _Call) -> bool:
        """The caller stops waiting: True if the answer is still to come (it is then
        dropped when it does)."""
        with self._lock:
            if call.done.is_set() or call.rid not in self._calls:
                return False
            call.abandoned = True
            self.stuck += 1
            return True

    def finish(self, call: _Call, reply: tuple[str, Any] | None) -> None:
        with self._lock:
            if self._calls.pop(call.rid, None) is None:
                return
            if call.abandoned:
                self.stuck -= 1
                return
            call.reply = reply
        call.done.set()

    def reply(self, watch: Callable[[], None] = lambda: None) -> tuple[Any, ...] | None:
        """The next reply (its log lines logged on the way), or None once the pipe closes;
        `watch` is called every WATCH_S while none comes (log lines are none: a worker
        caught in a loop that logs is still watched)."""
        looked = time.monotonic()
        while True:
            try:
                while not self.conn.poll(WATCH_S):
                    looked = time.monotonic()
                    watch()
                message = self.conn.recv()
            except (EOFError, OSError):
                return None
            if message[0] != "log":
                return message  # type: ignore[no-any-return]
            _, level, name, text = message
            logging.getLogger(name).log(level, "%s", text)
            if time.monotonic() - looked >= WATCH_S:
                looked = time.monotonic()
                watch()

    def receive(self, watch: Callable[[_Worker], None]) -> str:
        """Hand each reply to its call until the pipe closes (`watch(self)` every WATCH_S
        while none comes); returns why it closed."""
        while (message := self.reply(lambda: watch(self))) is not None:
            rid, status, value, count = message
            self.count = count
            with self._lock:
                self._answered = time.monotonic()
                call = self._calls.get(rid)
            if call is not None:
                self.finish(call, (status, value))
        return self.ended()

    def opening(self, stall_s: float, cpu_s: float) -> _Call:
        """Its start, watched as a request (id 0, which its "ready" answers): a start that
        hangs (ChromaDB's open on a stalled disk) or computes for ever is stuck too."""
        call = _Call(0, OPEN, stall_s, cpu_s)
        with self._lock:
            self._calls[0] = call
        return call

    def stalled(self, waiting: Callable[[], bool]) -> str | None:
        """What it is stuck on: the request it is working on (they are answered in
        order) has gone its `stall_s` without the process using CPU time, and it is not
        `waiting()` for something that excuses that (another process's lock), or it has
        used its `cpu_s` of CPU time on it (a livelock); else None."""
        now = time.monotonic()
        with self._lock:
            if not self._calls:
                self._ticks = None
                return None
            call = self._calls[min(self._calls)]
            since = max(call.sent, self._answered)
        ticks = cpu_ticks(self.pid)
        if ticks is not None and (self._head is None or self._head[0] != call.rid):
            self._head = (call.rid, ticks)  # (first seen up to WATCH_S late: a tick or so)
        if ticks is not None and self._head is not None:
            used = (ticks - self._head[1]) / CLOCK_TICKS
            if used >= call.cpu_s:
                return (
                    f"{call.op} unanswered for {now - since:.0f} s, computing all along "
                    f"({used:.0f} CPU s, over its bound of {call.cpu_s:g})"
                )
        # A gap between looks is time this thread did not watch (the whole process group
        # stopped by Ctrl-Z or a cgroup freeze, then continued): the worker went without
        # CPU because it was stopped too, not stuck; its quiet counts from now.
        unwatched = now - self._looked > 3 * WATCH_S
        self._looked = now
        if self._ticks is None or ticks != self._ticks or unwatched:
            self._ticks, self._ticked = ticks, now
        quiet = now - max(self._ticked, since)
        if quiet < call.stall_s:
            return None
        if waiting():
            self._ticked = now  # the wait is excused: its clock starts again once it ends
            return None
        return f"{call.op} unanswered for {now - since:.0f} s, {quiet:.0f} s of it using no CPU"

    def kill(self, why: str) -> None:
        """End it now (SIGKILL: it may be stopped, or stuck in native code); `why` is
        said when it is seen gone, and at once to every caller."""
        with self._lock:
            if self.gone is not None:
                return
            self.killed_for = why
            self.gone = self._ending(f"killed: {why}")
        self.proc.kill()

    def _ending(self, how: str) -> str:
        return f"the vector store process (pid {self.pid}) ended ({how})"

    def ended(self) -> str:
        """Its pipe closed: reap it, fail what waits for it, say how it ended."""
        try:
            code = self.proc.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:  # it closed its pipe yet lives: end it
            self.proc.kill()
            code = self.proc.wait()
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        if self.killed_for is not None:
            how = f"killed: {self.killed_for}"
        why = self._ending(how)
        with self._lock:
            self.gone = why
            calls, self._calls = list(self._calls.values()), {}
            self.stuck = 0
        for call in calls:
            if not call.abandoned:
                call.done.set()  # reply None: it died
        self.conn.close()
        return why

    def close(self) -> None:
        """Ask it to exit; kill it if it does not within CLOSE_WAIT_S."""
        try:
            call = self.send(CLOSE, (), None, WRITE_STALL_S)
            call.done.wait(CLOSE_WAIT_S)
        except (DenseIndexError, OSError):
            pass
        try:
            self.proc.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):  # reaped, not a zombie
                self.proc.wait(CLOSE_WAIT_S)


def _start_worker(
    path: Path,
    again: bool,
    watch: Callable[[_Worker], None] = lambda _: None,
    bounds: tuple[float, float] = (WRITE_STALL_S, START_CPU_S),
) -> tuple[_Worker, int]:
    """Start a worker on `path` and wait for its store to open: (worker, count), or
    StoreProcessError with what the worker's open raised. `watch(worker)` every WATCH_S
    meanwhile, as for a request: `bounds` are the start's (stall_s, cpu_s)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        args = [str(theirs.fileno()), str(os.getpid()), str(path), *([AGAIN] if again else [])]
        proc = launch(args, theirs.fileno())
        conn = Connection(os.dup(ours.fileno()))
    worker = _Worker(proc, conn)
    opening = worker.opening(*bounds)
    opened = worker.reply(lambda: watch(worker))
    if opened is None:
        raise StoreProcessError("Exited", worker.ended())
    worker.finish(opening, None)
    _, status, value, count = opened
    if status != "ok":
        worker.close()
        raise StoreProcessError(*value)
    worker.count = count
    return worker, count


class StoreProcess:
    """The embedded store (`DenseStore`), run in a worker process (module docstring)."""

    def __init__(
        self,
        path: Path,
        where: VectorStore | None = None,
        guard: DiskGuard | None = None,
        vet: Callable[[], object] = lambda: None,
        query_wait_s: float = QUERY_WAIT_S,
        # (a read's, the rest's); a read's None: `read_stall_s` of core/timings.py
        stall_s: tuple[float | None, float] = (None, WRITE_STALL_S),
        cpu_s: tuple[float, float] = (START_CPU_S, BUSY_CPU_S),  # (a start's, a request's)
    ) -> None:
        self.where = where or VectorStore()
        self.name = self.where.collection
        path.mkdir(parents=True, exist_ok=True)
        self._path = path
        self.guard = guard
        self._vet = vet  # before a new worker opens the store: the start-up check
        self._query_wait_s = query_wait_s
        self._read_stall_s, self._write_stall_s = stall_s
        self._start_cpu_s, self._busy_cpu_s = cpu_s
        # The worker's own locks are not another process's.
        self._other = LockWatch(path / VECTOR_DATABASE, ours=lambda: self.pid)
        self._give_up = threading.Event()
        self._refill_due = threading.Event()
        self.failure: str | None = None
        self._native_failed = False  # a write failed in native code: no seal this run
        self._worker: _Worker | None = None
        self._count = 0
        self._down: str | None = "the vector store process is starting"
        self._started: queue.Queue[BaseException | None] = queue.Queue()
        self._keeper = threading.Thread(target=self._keep, name="ragd-vector-process", daemon=True)
        self._keeper.start()
        error = self._started.get()  # the first start's outcome
        if error is not None:
            raise error

    # -- the worker's life ---------------------------------------------------------------
    def _keep(self) -> None:
        """Start a worker, serve it until it ends, start another; until `close`. Every
        worker is started here (the parent-death signal follows this thread)."""
        first = True
        pause = RETRY_S
        while not self._give_up.is_set():
            try:
                if not first:
                    self._vet()
                bounds = (self._write_stall_s, self._start_cpu_s)
                worker, _ = _start_worker(self._path, not first, self._watch, bounds)
            except Exception as exc:
                if first:
                    self._started.put(exc)
                    return
                log.error("the vector store process would not start again: %s", exc)
                if self._give_up.wait(pause):
                    return
                pause = min(MOST_RETRY_S, pause * 2)
                continue
            pause = RETRY_S
            self._worker, self._down, self._count = worker, None, worker.count
            if first:
                self._started.put(None)
            else:
                log.info(
                    "vector store process started again (pid %d); checking it against the manifest",
                    worker.pid,
                )
                self.failure = None  # a fresh store, compared and refilled before use
                self._refill_due.set()
            first = False
            if self._give_up.is_set():
                # `close` came while this one started, and saw only the last one: this one
                # is asked to close too, and reaped as its pipe closes (review47).
                with contextlib.suppress(DenseIndexError, OSError):
                    worker.send(CLOSE, (), None, WRITE_STALL_S)
            why = worker.receive(self._watch)
            if self._give_up.is_set():
                return
            self._down = f"{why}; starting it again"
            self._worker = None
            log.error("%s; starting it again (searches answer from BM25 meanwhile)", why)

    def _watch(self, worker: _Worker) -> None:
        """Every WATCH_S while no reply comes: kill a worker stuck on a request (stopped,
        or deadlocked in native code); it is then started again like one that died. A
        write waits while a worker lives, so without this a stuck one held the writer
        forever and every search answered from BM25."""
        stuck = worker.stalled(lambda: self._other.holder(anyone=True) not in (None, worker.pid))
        if stuck is not None:
            worker.kill(stuck)

    def _live(self) -> _Worker:
        if (down := self._gone()) is not None:
            raise VectorStoreUnavailable(down)
        assert self._worker is not None
        return self._worker

    def _gone(self) -> str | None:
        """Why no worker answers now, else None."""
        worker = self._worker
        if worker is None:
            return self._down or "the vector store process is not running"
        if worker.gone is not None:  # killed, and not yet seen ended by the keeper
            return self._down or f"{worker.gone}; starting it again"
        return None

    @property
    def pid(self) -> int | None:
        """The running worker's process id."""
        worker = self._worker
        return worker.pid if worker is not None else None

    # -- calls ---------------------------------------------------------------------------
    def _outcome(self, worker: _Worker, call: _Call) -> Any:
        if call.reply is None:
            raise VectorStoreUnavailable(worker.gone or "the vector store process ended")
        status, value = call.reply
        if status == "ok":
            return value
        if status == EXPIRED:
            raise StoreBusy(self._busy_phrase(self._query_wait_s))
        kind, text = value
        if kind == StoreBusy.__name__:
            raise StoreBusy(text)
        if kind == ReadFailed.__name__:  # (the worker logged it)
            raise ReadFailed(text)
        raise StoreProcessError(kind, text, worker.pid)

    def _read(self, op: str, *args: Any, wait_s: float | None = None) -> Any:
        """A read: its answer within `query_wait_s` (a search's; `ragd check`'s sample
        is given CHECK_WAIT_S), else StoreBusy (module docstring)."""
        wait_s = self._query_wait_s if wait_s is None else wait_s
        worker = self._live()
        if worker.stuck:
            raise StoreBusy(self._busy_phrase(wait_s))
        deadline = time.monotonic() + wait_s
        stall_s = self._read_stall_s or timings.current().read_stall_s
        call = worker.send(op, args, deadline, max(stall_s, wait_s), self._busy_cpu_s)
        if not call.done.wait(max(0.0, deadline - time.monotonic())) and worker.abandon(call):
            log.warning(
                "the vector index did not answer within %.0f s; answering from BM25 until it does",
                wait_s,
            )
            raise StoreBusy(self._busy_phrase(wait_s))
        self._count = worker.count
        return self._outcome(worker, call)

    def _busy_phrase(self, wait_s: float) -> str:
        return (
            f"vector store did not answer within {wait_s:g} s (busy writing, or "
            f"{VECTOR_DATABASE} in {self._path} locked by another process?)"
        )

    def _write(self, op: str, *args: Any) -> Any:
        """A write: waits for room and for another process's lock first, then `_call`."""
        if self.guard is not None:
            self.guard.wait_for_room()
        if not self._other.wait_to_write(self._give_up):
            raise DenseIndexError("stopped waiting for another process's lock on the vector index")
        try:
            return self._call(op, *args)
        except StoreProcessError as exc:
            self._write_failed(exc)
            raise

    def _call(self, op: str, *args: Any) -> Any:
        """A call the writer or start-up makes: waits while a worker lives, sent again to
        the next worker if this one dies (every call is idempotent); waiting for a new
        worker gives up at `stop_waiting`."""
        while True:
            try:
                worker = self._live()
                call = worker.send(op, args, None, self._write_stall_s, self._busy_cpu_s)
            except VectorStoreUnavailable:
                if self._give_up.wait(RETRY_S):
                    raise
                continue
            # A live worker's answer is waited for even at shutdown (the writer's last
            # batch before a clean stop; the shutdown deadline bounds it): only waiting
            # for a new worker gives up.
            call.done.wait()
            if call.reply is not None:
                self._count = worker.count
                return self._outcome(worker, call)

    def _write_failed(self, exc: StoreProcessError) -> None:
        """A write that failed in native code leaves the worker's store refusing every
        further call (ChromaStore's `wedged`): the worker is killed and started again,
        as one that died (the write is the writer's to retry; the daemon goes on)."""
        self.failure, wedged, wedged_by = judge_write_failure(exc, exc.kind, self.guard)
        worker = self._worker
        if wedged is not None:
            self._native_failed = True
            if worker is not None and worker.pid == exc.pid:
                worker.kill(wedged_by)

    # -- the DenseStore state questions -----------------------------------------------
    def unavailable(self) -> str | None:
        """While no worker runs (it died: started again), or another process holds a
        write lock on the database (a write waits)."""
        return self._gone() or self._other.problem()

    def stop_waiting(self) -> None:
        self._give_up.set()

    def wait_until_available(self, stop: Callable[[], bool]) -> bool:
        while not stop() and self.unavailable() is not None:
            if self._give_up.wait(RETRY_S):
                return False
        return not stop()

    def take_refill(self) -> bool:
        return taken(self._refill_due)

    def recount(self) -> None:
        self._call("recount")

    def sealable_folder(self) -> Path | None:
        if self.failure is None and not self._native_failed and self._worker is not None:
            return self._path
        return None

    # -- reading and writing -------------------------------------------------------------
    def space(self) -> str:
        return str(self._call("space"))

    def hnsw_settings(self) -> dict[str, Any]:
        return dict(self._call("hnsw_settings"))

    def count(self) -> int:
        """As the last reply said (while no worker runs: the last one's)."""
        return self._count

    def all_ids(self) -> set[str]:
        return set(self._call("all_ids"))

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return dict(self._read("vectors", list(ids))) if ids else {}

    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]:
        return self.query_many(vector.reshape(1, -1), n, scope)[0]

    def query_many(
        self, vectors: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[list[tuple[str, float]]]:
        if n <= 0 or self.count() == 0 or scope == [] or not len(vectors):
            return [[] for _ in range(len(vectors))]
        return list(self._read("query_many", np.ascontiguousarray(vectors), n, scope))

    def sample(self, size: int) -> dict[str, np.ndarray]:
        return dict(self._read("sample", size, wait_s=CHECK_WAIT_S))

    def unfindable(self, vectors: dict[str, np.ndarray]) -> int:
        return int(self._read("unfindable", vectors, wait_s=CHECK_WAIT_S))

    def warm(self) -> None:
        """Load the HNSW index now (start-up waits for it, as it did in-process)."""
        with contextlib.suppress(VectorStoreUnavailable):
            self._call("warm")

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None:
        self._write("upsert", list(ids), np.ascontiguousarray(vectors), scopes and list(scopes))
        self.failure = None

    def relabel(self, ids: Sequence[str], scopes: Sequence[list[str]]) -> list[str]:
        if not ids:
            return []
        absent = list(self._write("relabel", list(ids), list(scopes)))
        self.failure = None
        return absent

    def scopes(self, ids: Sequence[str]) -> dict[str, list[str]]:
        return dict(self._call("scopes", list(ids))) if ids else {}

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if ids:
            self._write("delete", ids)

    def reset(self) -> None:
        self._write("reset")

    def close(self) -> None:
        """Stop the worker (and start no other)."""
        self._give_up.set()
        worker = self._worker
        if worker is not None:
            worker.close()
        self._keeper.join(CLOSE_WAIT_S)
