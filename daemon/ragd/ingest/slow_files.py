"""Slow files, set aside so that small edits are not held behind them.

A file is *slow* when its parse is still running after PARSE_PATIENCE_S, its text is too
large to chunk quickly on the writer thread (LARGE_TEXT_CHARS), or its plan has more
windows than LARGE_WINDOWS. The writer sets it aside (`SlowFiles.hold`) and moves it
along one step at a time between other jobs: take up a finished parse, take up a plan
built on the planner thread, or embed one slice of EMBED_SLICE windows.

While set aside the file stays pending in the queue (`WorkQueue.hold`): it is counted
once, its bytes credited as its windows are embedded (`bytes_underway`), and it is
`release`d when it is applied, fails, or is superseded by a newer job, a delete or a
forget (`cancel`).
"""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Literal

from ragd.index.plan import FilePlan
from ragd.index.writer import EMBED_SLICE, IndexWriter
from ragd.ingest.loaders import Document, text_size
from ragd.ingest.parse_pool import Ticket
from ragd.ingest.progress import Flight
from ragd.ingest.work_queue import WorkQueue

# A parse still running after this is set aside, and a plan with more windows than this is
# embedded a slice at a time between other jobs: neither holds small edits behind it.
PARSE_PATIENCE_S = 0.5
LARGE_WINDOWS = 2 * EMBED_SLICE
# A document with more text than this is chunked and windowed on the planner thread
# (≈ 5 s per MB of text on a busy 2-core machine), not on the writer.
LARGE_TEXT_CHARS = 256 * 1024

Step = Literal["parsed", "planned", "embed"]


@dataclass
class Staged:
    """A planned file waiting to be embedded and applied."""

    plan: FilePlan
    label: str
    started: float
    reuse_counted: bool = False  # a slow file's cache hits are counted as it is embedded


def parse_is_slow(ticket: Ticket) -> bool:
    """Waits up to PARSE_PATIENCE_S for the parse; True if it is still running."""
    return not ticket.wait(PARSE_PATIENCE_S)


def text_is_large(document: Document) -> bool:
    return text_size(document) > LARGE_TEXT_CHARS


def plan_is_large(staged: Staged) -> bool:
    return staged.plan.window_count() > LARGE_WINDOWS


@dataclass
class Deferred:
    """A file set aside: its parse is still running (`ticket`), it is being chunked on
    the planner thread (`planning`), or its windows are being embedded a slice at a
    time (`staged`). It stays pending in the queue until it is released."""

    root: str
    relpath: str
    label: str
    size: int
    mtime_ns: int
    digest: str
    started: float
    ticket: Ticket | None = None
    planning: Future[Staged] | None = None  # chunked and windowed on the planner thread
    staged: Staged | None = None
    windows: dict[str, str] = field(default_factory=dict)  # window hash → text, to embed
    missing: list[str] = field(default_factory=list)  # hashes not cached when it was planned
    embedded: int = 0  # how many of `missing` are embedded (or were found cached since)
    flight: Flight | None = None  # its place in the queue's progress, until released

    def bytes_done(self) -> int:
        """Progress credit while it is embedded: its queued bytes times the share of its
        windows done (the embedding is nearly all of a large file's time)."""
        flight, missing, embedded = self.flight, len(self.missing), self.embedded
        if flight is None or self.staged is None or not missing:
            return 0
        return flight.size * min(embedded, missing) // missing

    def describe(self) -> dict[str, object]:
        """For `rag status`: what this file is waiting for, and how far it got. (Read on
        a request thread while the writer moves it along: each field is read once.)"""
        ticket, staged = self.ticket, self.staged
        now = time.monotonic()
        if staged is not None:
            return {
                "source": self.label,
                "stage": "embedding",
                "done": self.embedded,
                "total": len(self.missing),
                "elapsed_s": round(now - self.started, 1),
            }
        if ticket is None:
            stage, since = "chunking", self.started
        elif ticket.started is None:
            stage, since = "queued", self.started  # for a parse worker: not parsing yet
        else:
            stage, since = "parsing", ticket.started
        described: dict[str, object] = {
            "source": self.label,
            "stage": stage,
            "elapsed_s": round(now - since, 1),
        }
        progress = ticket.progress if ticket is not None else None
        if progress is not None:  # a scanned PDF being read by OCR, page by page
            described.update(done=progress[0], total=progress[1], unit="pages")
        return described


class SlowFiles:
    """The files set aside, and the queue's hold/release rules for them."""

    def __init__(self, queue: WorkQueue, writer: IndexWriter) -> None:
        self.queue = queue
        self.writer = writer
        self._items: list[Deferred] = []

    def __bool__(self) -> bool:
        return bool(self._items)

    def hold(self, item: Deferred) -> int:
        """Set a file aside; returns 0 (no chunks yet: the queue counts them at release)."""
        item.flight = self.queue.hold(item.root, item.relpath)
        self._items.append(item)
        return 0

    def release(self, item: Deferred, chunks: int = 0, superseded: bool = False) -> None:
        if item in self._items:
            self._items.remove(item)
            assert item.flight is not None  # set by `hold`
            self.queue.release(item.flight, chunks, superseded)

    def cancel(self, root: str, relpath: str) -> None:
        """A newer job, a delete or a forget supersedes slow work on a path or under it."""
        for item in list(self._items):
            if item.root == root and (
                not relpath or item.relpath == relpath or item.relpath.startswith(relpath + "/")
            ):
                if item.ticket is not None:
                    item.ticket.cancel()
                if item.planning is not None:
                    item.planning.cancel()  # a plan already running is simply dropped
                self.release(item, superseded=True)  # the newer job carries the file

    def covers(self, root: str, relpath: str, st: os.stat_result) -> bool:
        """Is this version of the file already being worked on?"""
        return any(
            i.root == root
            and i.relpath == relpath
            and (i.size, i.mtime_ns) == (st.st_size, st.st_mtime_ns)
            for i in self._items
        )

    def describe(self) -> list[dict[str, object]]:
        """The slow files being worked on between other jobs, for `rag status`."""
        return [item.describe() for item in list(self._items)]

    def bytes_underway(self) -> int:
        """Bytes of the slow files being embedded, in proportion to the windows done."""
        return sum(item.bytes_done() for item in list(self._items))

    def windows_kept(self) -> set[str]:
        """Window hashes of files still being worked on (a cache prune keeps them)."""
        return {h for item in list(self._items) for h in item.windows}

    def next_step(self) -> tuple[Step, Deferred] | None:
        """The next step of slow work: a finished parse or plan first, else a slice."""
        for item in list(self._items):
            if item.ticket is not None and item.ticket.done():
                return "parsed", item
            if item.planning is not None and item.planning.done():
                return "planned", item
        for item in list(self._items):
            if item.staged is not None:
                return "embed", item
        return None

    def embed_later(self, item: Deferred, staged: Staged) -> None:
        """Queue a planned file's windows for embedding a slice at a time."""
        item.staged = staged
        item.windows = staged.plan.windows()
        cached = self.writer.cached(list(item.windows), count_reuse=True)
        staged.reuse_counted = True  # not again when it is applied
        item.missing = [h for h in item.windows if h not in cached]

    def embed_slice(self, item: Deferred) -> bool:
        """Embed the next slice of a file's windows; True once all are embedded."""
        part = item.missing[item.embedded : item.embedded + EMBED_SLICE]
        if part:
            # `missing` was read from the cache when the file was planned; since then a
            # batch or another slow file may have embedded some of the same windows
            # (shared paragraphs): embed only what the cache still lacks.
            cached = self.writer.cached(part, count_reuse=True)
            fresh = [h for h in part if h not in cached]
            if fresh:
                self.writer.embed(item.windows, fresh)
            item.embedded += len(part)
        return item.embedded >= len(item.missing)
