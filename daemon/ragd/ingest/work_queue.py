"""The index writer's queue: debounced, coalesced, and honest about what is pending.

Work is *state-based*: a job says "bring this path in line with the disk", never "this
event happened". A save, a rename's two ends, a delete or a burst of 100 writes all
become one `sync` of each path involved, applied once the path has been quiet for the
debounce interval (capped, so a file written non-stop is still indexed).
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragd.config import Settings

from ragd.config import default


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


@dataclass
class _Entry:
    due: float
    first: float


@dataclass
class Progress:
    """One burst of work, from the queue turning non-empty until it drains; counts files
    (`Job.is_file`) only."""

    total: int = 0
    done: int = 0
    chunks: int = 0
    started: float = field(default_factory=time.monotonic)


class WorkQueue:
    def __init__(
        self, debounce_s: float = default("debounce_ms") / 1000, max_delay_s: float = 3.0
    ) -> None:
        self.debounce_s = debounce_s
        self.max_delay_s = max_delay_s
        self._items: dict[Job, _Entry] = {}
        # (due, seq, job) min-heap; entries whose due changed are skipped lazily, so taking
        # the next job is O(log n) even with 100,000 files queued.
        self._heap: list[tuple[float, int, Job]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()
        self._active = 0
        self._closed = False
        self.progress = Progress()

    def put(self, job: Job, debounce: bool = True) -> None:
        now = time.monotonic()
        with self._cond:
            if not self._items and not self._active:
                self.progress = Progress()
            entry = self._items.get(job)
            delay = self.debounce_s if debounce else 0.0
            if entry is None:
                entry = self._items[job] = _Entry(now + delay, now)
                self.progress.total += job.is_file
            else:
                # capped (a file written non-stop is still indexed), never below the debounce
                cap = entry.first + max(self.max_delay_s, self.debounce_s)
                due = min(max(entry.due, now + delay), cap)
                if due == entry.due:
                    return
                entry.due = due
            heapq.heappush(self._heap, (entry.due, next(self._seq), job))
            self._cond.notify_all()

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
                        del self._items[job]
                        self._active += 1
                        return job
                    wait = min(due, deadline) - now
                else:
                    wait = deadline - now
                if wait <= 0:
                    return None
                self._cond.wait(wait)
            return None

    def done(self, chunks: int = 0, job: Job | None = None) -> None:
        with self._cond:
            self._active -= 1
            self.progress.done += job is None or job.is_file
            self.progress.chunks += chunks
            self._cond.notify_all()

    def hold(self) -> None:
        """Work set aside by the writer (a slow file) stays pending until `release`."""
        with self._cond:
            self._active += 1
            self.progress.total += 1

    def release(self, chunks: int = 0) -> None:
        self.done(chunks)

    def pending(self) -> int:
        with self._cond:
            return len(self._items) + self._active

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
