"""The index writer thread: takes jobs from the queue, batches their plans, applies them.

This module schedules; it decides nothing about a path and writes nothing itself. Each
job goes to `ingest/reconcile.py`, which looks at the disk and has a file planned
(`ingest/planner.py`); the plans it stages join a batch here, and `index/writer.py`
embeds only what the cache lacks and applies them in crash-safe order (new chunks into
the indexes, the manifest, old chunks out).

Jobs that are due together are applied together: up to BATCH_FILES files (or
BATCH_WINDOWS windows, or BATCH_JOBS jobs of any kind) are planned, their new windows
embedded in one call and applied with one ChromaDB upsert and one tantivy commit, then
each file's manifest row is committed. The order is the same as for one file, so crash
safety is unchanged, but a burst of 10,000 one-line files costs 160 batches instead of
10,000 commits.

Slow files do not hold small edits back: they are set aside (`ingest/slow_files.py`)
and this thread moves them along a step at a time between batches. When idle (after
start-up at once, later once it has been idle for PRUNE_QUIET_S), it prunes the
embedding cache.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ragd.index.manifest_busy import held_by_another
from ragd.index.space import Interrupted
from ragd.index.writer import PRUNE_AFTER_WINDOWS, IndexWriter
from ragd.ingest.planner import FilePlanner, OutOfDescriptors, Staged
from ragd.ingest.reconcile import Reconciler
from ragd.ingest.slow_files import SlowFiles
from ragd.ingest.work_queue import Job, WorkQueue

log = logging.getLogger("ragd.indexer")

# How long the writer must have had nothing to do before it prunes the embedding cache.
# A folder deleted and put back (a build replacing its output, `rm -rf` and a fresh
# clone, a branch switched and back) drops thousands of windows at once, and pruned at
# the first idle moment its vectors were gone when the same text came back: all of it
# was embedded again (2,000 notes: 84 s instead of 15). Kept for this long, it reuses
# them; a dropped vector costs 1.5 KB of disk meanwhile.
PRUNE_QUIET_S = 600.0
# ... unless this many are waiting: a writer never quiet that long (a generated file
# rewritten every minute) would keep every vector it ever dropped (≈ 75 MB at this count).
PRUNE_ANYWAY_WINDOWS = 50_000
BATCH_FILES = 64  # files planned before one joint apply
BATCH_WINDOWS = 256  # ... or fewer files once their windows reach this
# ... or this many jobs, whatever they gave: files that give no plan (empty, binary, a
# type not indexed, deleted, unchanged) fill no batch, and a burst of them was one
# batch, holding every plan in it unapplied and the progress unmoved until its end.
BATCH_JOBS = 256

Apply = Callable[[list[Staged], bool], None]  # (plans, isolate): the indexer's `_apply`


@dataclass
class _Batch:
    """Files planned (read, parsed, chunked) but not yet embedded and applied."""

    apply: Apply
    isolate: bool = False  # a failed joint apply is retried file by file
    defer: bool = False  # slow files may be set aside (the background writer only)
    items: list[Staged] = field(default_factory=list)
    windows: int = 0
    paths: set[tuple[str, str]] = field(default_factory=set)

    def add(self, staged: Staged) -> None:
        self.items.append(staged)
        self.windows += staged.plan.window_count()
        self.paths.add((staged.plan.row.root, staged.plan.row.relpath))

    def holds(self, root: str, relpath: str) -> bool:
        return (root, relpath) in self.paths

    def holds_under(self, root: str, relpath: str) -> bool:
        """A plan for this path or for a file below it (at most a batch of paths)."""
        below = relpath + "/"
        return any(r == root and (p == relpath or p.startswith(below)) for r, p in self.paths)

    def full(self) -> bool:
        return len(self.items) >= BATCH_FILES or self.windows >= BATCH_WINDOWS

    def describe(self) -> str | None:
        """What is being applied, for status and shutdown: "a.md" or "a.md (+12 more)"."""
        if not self.items:
            return None
        more = len(self.items) - 1
        return self.items[0].label + (f" (+{more} more)" if more else "")

    def flush(self) -> None:
        """Embed and apply every staged plan (before a removal, or when the batch ends)."""
        staged, self.items, self.windows = self.items, [], 0
        self.paths.clear()
        if staged:
            self.apply(staged, self.isolate)


DESCRIPTOR_WARNING_S = 60.0


@dataclass
class _PruneSchedule:
    """When the embedding cache drops the windows no file holds any more: once enough are
    dropped and (but for the first prune after start-up, which clears what earlier runs
    left, or PRUNE_ANYWAY_WINDOWS of them) the writer has been quiet for PRUNE_QUIET_S, so
    a folder deleted and put back soon is not embedded again."""

    worked_at: float = field(default_factory=time.monotonic)  # a job or slow step last ran
    pruned: bool = False  # the first prune waits for no quiet

    def worked(self) -> None:
        self.worked_at = time.monotonic()

    def due(self, dropped: int) -> bool:
        if dropped < PRUNE_AFTER_WINDOWS:
            return False
        quiet = time.monotonic() - self.worked_at >= PRUNE_QUIET_S
        if self.pruned and not quiet and dropped < PRUNE_ANYWAY_WINDOWS:
            return False
        self.pruned = True
        return True


class Indexer:
    def __init__(
        self,
        queue: WorkQueue,
        writer: IndexWriter,
        files: FilePlanner,
        slow: SlowFiles,
        reconcile: Reconciler,
        between_jobs: Callable[[], None],  # upkeep on this thread (refilling a vector server)
        owns_parser: bool,  # its parse pool is closed when the indexer stops
    ) -> None:
        self.queue = queue
        self.writer = writer
        self.counters = writer.counters
        self.files = files
        self.slow = slow
        self.reconcile = reconcile
        self.between_jobs = between_jobs
        self._owns_parser = owns_parser
        self._stop = writer.stopping  # also ends a long embedding in the writer
        self._thread: threading.Thread | None = None
        self._current: str | None = None  # label of the file(s) being planned or applied
        self._descriptors_warned = float("-inf")  # when running out of them was last logged
        self._prunes = _PruneSchedule()

    @property
    def current(self) -> str | None:
        """What the writer is working on, for status and shutdown."""
        return self._current or self.slow.current

    @property
    def max_file_bytes(self) -> int:
        """The file size cap in force."""
        return self.files.planner.max_file_bytes or 0  # (the daemon's planner has one)

    @property
    def follow_symlinks(self) -> bool:
        return self.files.planner.follow_symlinks

    def in_progress(self) -> list[dict[str, object]]:
        """The slow files being worked on between other jobs, for `rag status`."""
        return self.slow.describe()

    # -- thread ------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ragd-indexer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float) -> bool:
        """Finish the file in progress (or give up after `timeout`); True if it stopped."""
        self._stop.set()
        self.queue.close()
        if self._thread is not None:
            self._thread.join(timeout)
            stopped = not self._thread.is_alive()
        else:
            stopped = True
        if stopped:
            self.files.close()
            if self._owns_parser:
                self.files.parser.close()
        return stopped

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self.queue.take(timeout=0.05 if self.slow else 0.5)
            if job is not None:
                self._run_batch(job)
            if job is not None or self.slow:
                self._prunes.worked()
            try:
                self.between_jobs()
                if self.slow:
                    self.slow.advance()  # one step of a slow file between batches
                elif job is None and self._prunes.due(self.writer.dropped_windows):
                    # Idle for a while: nothing is waiting for the writer. Vectors of
                    # files still being worked on are kept.
                    self.writer.prune_cache(self.slow.windows_kept())
            except Interrupted:
                log.info("stopped while indexing %s; the next start finishes it", self.current)
            except Exception as exc:  # one bad step never stops the writer
                if not self.writer.limit_reached(exc):
                    log.exception("background indexing step failed")

    # -- batching ----------------------------------------------------------------
    def _run_batch(self, job: Job | None) -> None:
        batch = _Batch(self._apply, isolate=True, defer=True)
        taken: list[tuple[Job, int]] = []
        try:
            # Plan every job that is already due (up to a batch), then apply them all.
            while job is not None:
                taken.append((job, self._run_one(job, batch)))
                if batch.full() or len(taken) >= BATCH_JOBS or self._stop.is_set():
                    break
                job = self.queue.take(timeout=0)
            self._current = batch.describe()
            batch.flush()
        except Interrupted:
            what = self.current or "a folder's listing"
            log.info("stopped while indexing %s; the next start finishes it", what)
        except Exception as exc:  # one bad batch never stops the writer
            if not self.writer.limit_reached(exc):
                log.exception("applying %d index job(s) failed", len(taken))
        finally:
            self._current = None
            for done, chunks in taken:
                self.queue.done(chunks, done)

    def _run_one(self, job: Job, batch: _Batch) -> int:
        """One job into the batch; returns the chunks it staged."""
        label = self.files.label(job.root, job.relpath)
        self._current = label if job.relpath else None
        try:
            if job.kind == "forget":
                batch.flush()
                self.reconcile.forget(job.root)
                return 0
            if job.root not in self.reconcile.roots:
                return 0  # queued before `rag forget` (e.g. by that root's own scan): drop it
            return self.reconcile.sync(job.root, job.relpath, batch, job.force)
        except OutOfDescriptors as exc:
            self._again_later(job, label, exc)
            return 0
        except Exception as exc:  # one bad job never stops the writer
            if job.kind == "sync":  # shown in `rag status`, retried at the next scan
                self.writer.file_failed(job.root, job.relpath, label or str(job), exc, "index job")
            elif held_by_another(exc):
                self.queue.put(job)  # a forget another process's lock stopped: again later
            elif not self.writer.limit_reached(exc):
                log.exception("index job %s failed", job)
            return 0

    def _again_later(self, job: Job, label: str, exc: OutOfDescriptors) -> None:
        """The job queued again, due after the debounce (its write mark kept, so the file
        is read whatever its stat says): the descriptors come back when whatever holds them
        closes. Logged at most once a minute, however many files wait."""
        if job.is_file:
            self.queue.rewrites.mark((job.root, job.relpath))
        self.queue.put(job)
        now = time.monotonic()
        if now - self._descriptors_warned >= DESCRIPTOR_WARNING_S:
            self._descriptors_warned = now
            log.warning(
                "no file descriptor left to read %s (%s: a flood of connections to the "
                "socket?); it and the files after it are read again once some are free",
                label or "a folder",
                exc,
            )

    def sync(self, root: str, relpath: str, force: bool = False) -> int:
        """Bring one path in line with the disk now, on the caller's thread, waiting for
        every parse (the evaluation, the bench, tests); returns chunks written."""
        batch = _Batch(self._apply)
        chunks = self.reconcile.sync(root, relpath, batch, force)
        batch.flush()
        return chunks

    def _apply(self, staged: list[Staged], isolate: bool) -> None:
        """Embed and apply these plans together; when isolating, a failed joint apply is
        retried file by file so one bad file cannot sink the others. A file the file size
        limit would stop anyway is left out unembedded (`IndexWriter.cannot_fit`)."""
        staged = [item for item in staged if not self._cannot_fit(item)]
        if not staged:
            return None
        try:
            _index(self.writer, staged)
        except Exception as exc:
            if not isolate:
                raise
            if len(staged) == 1 or held_by_another(exc):  # each alone would wait the lock out
                for item in staged:
                    self._apply_failed(item, exc)
                return None
            if not self.writer.limit_reached(exc):  # (else said once already)
                log.warning(
                    "applying %d files together failed (%s); retrying one by one",
                    len(staged),
                    type(exc).__name__,
                )
            for item in staged:
                try:
                    _index(self.writer, [item])
                except Exception as one:
                    self._apply_failed(item, one)
        return None

    def _cannot_fit(self, item: Staged) -> bool:
        row = item.plan.row
        return self.writer.cannot_fit(row.root, row.relpath, item.label, item.plan.windows())

    def _apply_failed(self, item: Staged, exc: Exception) -> None:
        """Logged, and shown in `rag status` until the file is indexed."""
        row = item.plan.row
        self.writer.file_failed(row.root, row.relpath, item.label, exc, trace=False, plan=item.plan)


def _index(writer: IndexWriter, staged: list[Staged]) -> None:
    writer.index_files([item.plan for item in staged])
    for item in staged:
        item.log_indexed(len(staged))
