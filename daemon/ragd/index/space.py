"""Disk space for the index: on a full disk, writes wait for room instead of failing.

A write that fails for space is worse than one that waits: SQLite rolls a whole batch
back, and a ChromaDB write that fails that way leaves its native code holding a lock,
so the *next* ChromaDB call blocks forever while holding the GIL (seen with py-spy: the
writer thread parked in `RustBindingsAPI._upsert`), and the whole daemon stops answering,
SIGTERM included. So every store checks, before it writes, that the data dir's file
system has room to spare (`reserve`, plus a tenth of the vector index, which ChromaDB
rewrites when it persists its graph). Below that the index writer (or start-up repair)
waits, re-checking every second, and carries on by itself when space returns; a
shutdown ends the wait. Searches never write, so they go on being answered from what
the index holds. The main thread never waits: it gets `NoSpace` at once.

A write stopped by the file size limit (`ulimit -f`, `LimitFSIZE=`: core/file_size_limit.py)
is no full disk: the limit does not change while the process runs, so waiting would never
end. It is said once (`over_limit`, shown by `rag status`), and the writer goes on: what
still fits (a small file's rows) is indexed, what does not is left for a start under a
larger limit, without a traceback or a record against the file. A file needing as many new
vectors as the write the limit stopped is left out before it is embedded (`cannot_fit`).

A write can still fail for space: another program may fill the disk between the guard's
look and the write. That failure is the disk's, not the file's (`full_now`): the file is
queued again, and its next write waits for room like any.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragd.core.file_size_limit import file_size_limit, stopped_by_limit
from ragd.core.layout import DataDir
from ragproto.errors import NoSpace
from ragproto.sizes import counted, human_size

log = logging.getLogger("ragd")

RESERVE_BYTES = 32 << 20
POLL_S = 1.0
SIZE_REFRESH_S = 10.0


class Interrupted(BaseException):
    """Shutdown arrived while an index write was waiting (for room here, or for a large
    batch to be embedded by the writer): the next start finishes the job.

    A BaseException, like KeyboardInterrupt: the writer's many "one bad file never stops
    the writer" handlers catch Exception, and a shutdown must pass through all of them to
    the writer's loop instead of being logged as a failed job or retried file by file."""


def is_space_error(exc: BaseException) -> bool:
    """Did this write fail because the disk (or quota) is full?"""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return any(s in text for s in ("disk is full", "no space left", "quota exceeded"))


class DiskGuard:
    def __init__(
        self,
        data_dir: Path,
        stopping: threading.Event | None = None,
        reserve: int = RESERVE_BYTES,
    ) -> None:
        self.data_dir = data_dir
        self.stopping = stopping
        self.reserve = reserve
        self.short: str | None = None  # why writes are waiting (status shows it), or None
        self._vector_bytes = 0
        self._sized_at = -SIZE_REFRESH_S
        self._extra = 0  # after a write failed for space: what was free then, needed on top
        self._over_limit: str | None = None  # a write failed against the file size limit
        self.left_out: set[tuple[str, str]] = set()  # (root, relpath) it stopped
        # The fewest new vectors one write could not store under the limit, since room was
        # last made (`room_made`): a file needing as many cannot fit either (`cannot_fit`).
        self._no_fit_from: int | None = None
        # Threads answering a request (the server loop, the search pool) must not wait for
        # space that may never come: their writes fail at once with NoSpace.
        self._answering = threading.local()

    def free_bytes(self) -> int:
        path = self.data_dir
        while not path.exists() and path != path.parent:  # not created yet: its file system
            path = path.parent
        st = os.statvfs(path)
        return st.f_bavail * st.f_frsize

    def needed_bytes(self) -> int:
        now = time.monotonic()
        if now - self._sized_at >= SIZE_REFRESH_S:
            self._sized_at = now
            self._vector_bytes = _tree_bytes(DataDir(self.data_dir).vectors)
        return self.reserve + self._vector_bytes // 10 + self._extra

    def room(self) -> bool:
        return self.free_bytes() >= self.needed_bytes()

    def describe(self, where: str | None = None) -> str:
        """Why writes wait; `where` names the data dir (replies never hold absolute paths)."""
        free, needed = human_size(self.free_bytes()), human_size(self.needed_bytes())
        return (
            f"disk full: {free} free on {where or self.data_dir} (the index needs "
            f"{needed}); indexing resumes by itself when space returns"
        )

    def wait_for_room(self) -> None:
        """Called before every index write: return once there is room to write."""
        answering = threading.current_thread() is threading.main_thread() or getattr(
            self._answering, "active", False
        )
        # A request's write asks the disk itself, not `short`: a write waiting for room
        # clears that only at its next poll (up to POLL_S later), and a `rag ingest` sent in
        # that second after space came back was refused as "disk full" with room to spare.
        if (self.short is None or answering) and self.room():
            return
        if answering:
            raise NoSpace(self.describe("the data dir"))
        if self.short is None:
            self.short = self.describe()
            log.warning("index writes paused: %s", self.short)
        while not self.room():
            self.short = self.describe()
            if self.stopping is not None and self.stopping.wait(POLL_S):
                raise Interrupted
            if self.stopping is None:
                time.sleep(POLL_S)
        self.short, self._extra = None, 0
        log.info(
            "%s free on %s again; index writes resume", human_size(self.free_bytes()), self.data_dir
        )

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Writes made inside this block, on this thread, fail at once with NoSpace on a
        full disk instead of waiting for room (a request must get its answer)."""
        was = getattr(self._answering, "active", False)
        self._answering.active = True
        try:
            yield
        finally:
            self._answering.active = was

    def failed(self, exc: BaseException, maybe_space: bool = False) -> str | None:
        """A write failed: if for space, the next write waits until there is room. Returns
        "disk full" or "the file size limit" when it took the failure for one, else None.

        `maybe_space`: the error does not say why (ChromaDB's native errors often do not);
        with little space left, treat it as a full disk: room is then more than was free
        just now."""
        if self.reached_limit(exc):
            return "the file size limit"
        plausible = maybe_space and self.free_bytes() < 4 * self.needed_bytes()
        if plausible or is_space_error(exc):
            self._extra = self.free_bytes()
            self._sized_at = -SIZE_REFRESH_S
            self.short = self.describe()
            log.warning("an index write failed for lack of space: %s", self.short)
            return "disk full"
        return None

    def full_now(self, exc: BaseException) -> bool:
        """Did this failed write fail for space? Yes while writes wait for room (a store
        told `failed` of it already: ChromaDB's native errors do not say why), or when it
        says so itself (SQLite's `database or disk is full`, tantivy's `No space left`),
        which `failed` then says once. A file whose write failed so is queued again."""
        return self.short is not None or self.failed(exc) == "disk full"

    def reached_limit(self, exc: BaseException) -> bool:
        """Did this write fail against the file size limit? Said in the log the first
        time; `rag status` says it from then on (`over_limit`)."""
        if not stopped_by_limit(exc, self.data_dir):
            return False
        if self._over_limit is None:
            limit = file_size_limit()
            cap = (
                f"the file size limit (ulimit -f / LimitFSIZE) of {human_size(limit)}"
                if limit is not None
                else "the largest file its file system allows"
            )
            self._over_limit = (
                f"an index file reached {cap}: what does not fit is not indexed, searches "
                "answer from what is; start ragd under a larger limit to index the rest"
            )
            log.error("index writes fail: %s (%s)", self._over_limit, exc)
        return True

    def stopped(self, needed: int) -> None:
        """The file size limit stopped a write of `needed` new vectors."""
        if self._no_fit_from is None or needed < self._no_fit_from:
            self._no_fit_from = needed

    @property
    def stopped_any(self) -> bool:
        """Has the limit stopped a write of vectors since room was last made?"""
        return self._no_fit_from is not None

    def cannot_fit(self, needed: int) -> bool:
        """Would a file needing `needed` new vectors only be stopped by the limit too? The
        index files have not shrunk since a write of as many failed. Each such file was
        embedded (a slice of 128 windows at least) only to fail at its first write."""
        return self._no_fit_from is not None and needed >= self._no_fit_from

    def room_made(self) -> None:
        """A file's rows were deleted: SQLite reuses their pages, so a file stopped before
        may fit now. The embedding cache's prune is no such room: what it drops after a
        failure is mostly what the stopped file itself stored (the room it had, and did
        not fit in), and counted as room it had each later file embedded and stopped."""
        self._no_fit_from = None

    def over_limit(self) -> str | None:
        """Why the index stopped growing (the file size limit), with the files left out."""
        if self._over_limit is None:
            return None
        files = f" ({counted(len(self.left_out), 'file')} not indexed)"
        return self._over_limit + (files if self.left_out else "")


def _tree_bytes(path: Path) -> int:
    total = 0
    for folder, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(folder, name)).st_size
            except OSError:
                continue
    return total
