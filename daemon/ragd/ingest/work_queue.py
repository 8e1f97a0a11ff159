"""The index writer's queue: debounced, coalesced, and honest about what is pending.

Work is *state-based*: a job says "bring this path in line with the disk", never "this
event happened". A save, a rename's two ends, a delete or a burst of 100 writes all
become one `sync` of each path involved, applied once the path has been quiet for the
debounce interval (capped, so a file written non-stop is still indexed).

What is pending is also measured for `rag status`, in files and bytes (`ingest/progress.py`).
"""

from __future__ import annotations

import heapq
import itertools
import os
import stat
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragd.core.config import Settings

from ragd.core import timings
from ragd.core.config import default
from ragd.ingest.moves import Moves
from ragd.ingest.progress import Flight, Ledger, Progress
from ragd.ingest.rewrites import LinkedNames, Rewrites


@dataclass(frozen=True, order=True)
class Job:
    kind: str  # "sync" (a file or folder path) | "forget" (a whole root)
    root: str
    relpath: str = ""
    force: bool = False  # `rag ingest FILE`: retry a file skipped for an unchanged problem

    @property
    def is_file(self) -> bool:
        """What progress counts: not a whole root's scan, which only queues its files, nor
        a forget (`rag ingest` of 64 files shows 0/64, not 0/65)."""
        return self.kind == "sync" and self.relpath != ""


def file_size(path: str | os.PathLike[str]) -> int:
    """A file's bytes as progress counts them when it is queued (one stat, far cheaper than
    the indexing it announces); 0 for what is gone or is not a regular file."""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


@dataclass
class _Entry:
    due: float
    first: float
    size: int = 0  # bytes, as last stat'ed by whoever queued it (0: gone, or a folder)
    counted: bool = False  # counted as a file in `Progress.total`


class WorkQueue:
    def __init__(
        self, debounce_s: float = default("debounce_ms") / 1000, max_delay_s: float | None = None
    ) -> None:
        self.debounce_s = debounce_s
        # The cap on a path's debounce: a file written non-stop is synced this often
        # (None: `change_cap_s` of core/timings.py, 3 s).
        self.max_delay_s = timings.current().change_cap_s if max_delay_s is None else max_delay_s
        self._items: dict[Job, _Entry] = {}
        # (due, seq, job) min-heap; entries whose due changed are skipped lazily, so taking
        # the next job is O(log n) even with 100,000 files queued.
        self._heap: list[tuple[float, int, Job]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False
        self._ledger = Ledger()
        # The renames the watcher saw, shared with the reconciler through the queue both hold.
        self.moves = Moves()
        # Files to read whatever their stat says, and the names of hard-linked files.
        self.rewrites = Rewrites()
        self.links = LinkedNames()

    @property
    def progress(self) -> Progress:
        """The current burst's files and bytes (replaced when a new burst begins)."""
        return self._ledger.progress

    def put(self, job: Job, debounce: bool = True, size: int = 0, folder: bool = False) -> None:
        """Queue `job` (or push its due time back); `size` is the file's bytes now, for
        progress (0 when it is gone), and a `folder` is not counted as a file (its scan
        queues its files)."""
        now = time.monotonic()
        counted = job.is_file and not folder
        with self._cond:
            if not self._items and not self._active:
                self._ledger.progress = Progress()
            if job.kind == "forget":
                self._drop_root(job.root)
            entry = self._items.get(job)
            delay = self.debounce_s if debounce else 0.0
            fresh = entry is None
            if entry is None:
                entry = self._items[job] = _Entry(now + delay, now)
            # A new job, or a file that grew or shrank (or became a folder) while it waited.
            self._ledger.queued((job.root, job.relpath), size, counted, (entry.size, entry.counted))
            entry.size, entry.counted = size, counted
            if not fresh:
                # capped (a file written non-stop is still indexed), never below the debounce
                cap = entry.first + max(self.max_delay_s, self.debounce_s)
                due = min(max(entry.due, now + delay), cap)
                if due == entry.due:
                    return
                entry.due = due
            heapq.heappush(self._heap, (entry.due, next(self._seq), job))
            self._cond.notify_all()

    def _drop_root(self, root: str) -> None:
        """A forget of `root` is queued (the root left the watched set): its jobs still
        waiting go (the writer would only have dropped them) and its work leaves the
        burst's progress, done or not. (Under the lock.)"""
        jobs = [job for job in self._items if job.root == root and job.kind != "forget"]
        dropped = [self._items.pop(job) for job in jobs]
        self._ledger.forget_root(root, [(entry.size, entry.counted) for entry in dropped])

    def reconfigure(self, settings: Settings) -> None:
        """SIGHUP: a new debounce, for the changes already waiting too (a shorter one
        brings them forward)."""
        debounce_s = settings.debounce_ms / 1000
        with self._cond:
            self.debounce_s = debounce_s
            latest = time.monotonic() + debounce_s
            for job, entry in self._items.items():
                if entry.due > latest:
                    entry.due = latest
                    heapq.heappush(self._heap, (latest, next(self._seq), job))
            self._cond.notify_all()

    def waiting(self, job: Job) -> bool:
        """Is this job queued and not yet taken?"""
        with self._cond:
            return job in self._items

    def take(self, timeout: float) -> Job | None:
        """The job that has been quiet longest and is due, or None after `timeout`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._closed:
                now = time.monotonic()
                while self._heap:
                    due, _, job = self._heap[0]
                    entry = self._items.get(job)
                    if entry is None or entry.due != due:
                        heapq.heappop(self._heap)  # stale: taken already or re-scheduled
                        continue
                    break
                if self._heap:
                    due, _, job = self._heap[0]
                    if due <= now:
                        heapq.heappop(self._heap)
                        entry = self._items.pop(job)
                        self._active += 1
                        self._ledger.taken(job, (job.root, job.relpath), entry.size, entry.counted)
                        return job
                    wait = min(due, deadline) - now
                else:
                    wait = deadline - now
                if wait <= 0:
                    return None
                self._cond.wait(wait)
            return None

    def done(self, chunks: int = 0, job: Job | None = None) -> None:
        """The writer finished `job` (without one: the oldest job taken). A file it set
        aside (`hold`) is done only at `release`."""
        with self._cond:
            self._active -= 1
            self._ledger.returned(job, chunks)
            self._cond.notify_all()

    def hold(self, root: str, relpath: str) -> Flight:
        """The writer set this file aside (a slow file): it stays pending, and counts as
        done, with its bytes, at `release`."""
        with self._cond:
            self._active += 1
            return self._ledger.hold(root, relpath)

    def release(self, flight: Flight, chunks: int = 0, superseded: bool = False) -> None:
        """A file set aside is finished (indexed, or given up with its problem recorded),
        or `superseded` by a newer job, a delete or a forget, which carries the file."""
        with self._cond:
            self._active -= 1
            self._ledger.release(flight, chunks, superseded)
            self._cond.notify_all()

    def covered(self, root: str, relpath: str) -> None:
        """The running job for this file found it set aside already, unchanged (the slow
        file carries it), or put it back in the queue (the job put back carries it): this
        job adds no file and no bytes of its own."""
        with self._cond:
            self._ledger.covered(root, relpath)

    def pending(self) -> int:
        """Jobs queued or under way. The writer calls `done` after a job's manifest commit,
        so a committed file may still count for a moment, never the reverse: zero (idle)
        means everything queued is searchable."""
        with self._cond:
            return len(self._items) + self._active

    def underway(self) -> int:
        """Files in the writer's batch, not done until it is stored (`Ledger.underway`)."""
        with self._cond:
            return self._ledger.underway()

    def pending_files(self) -> int:
        """Files queued or under way in this burst (a slow file set aside included), what
        every reply's `pending` tells a user: a folder's scan or a forget is a job, not a
        file (`rag ask` right after `rag forget` said "1 file is still being indexed")."""
        with self._cond:
            if not self._items and not self._active:
                return 0  # idle: nothing is pending, whatever the last burst's tally says
            p = self._ledger.progress
            return max(0, p.total - p.done)

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._items or self._active:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        """Shutdown has begun: nothing more will be taken."""
        return self._closed
