"""The index writer thread: takes jobs from the queue, plans each file, applies batches.

For each job it *plans* the file with `ingest/planner.py` (stat → read once → hash →
parse → chunk → window → ids) and has `index/writer.py` embed only what the cache lacks
and *apply* in crash-safe order (indexes first, manifest last). This module schedules;
it writes nothing itself: every change to the stores goes through `IndexWriter`.

Jobs that are due together are applied together: up to BATCH_FILES files (or
BATCH_WINDOWS windows) are planned, their new windows embedded in one call and applied
with one ChromaDB upsert and one tantivy commit, then each file's manifest row is
committed. The order is the same as for one file, so crash safety is unchanged, but a
burst of 10,000 one-line files costs 160 batches instead of 10,000 commits. Anything that
removes files (a vanished path, a forgotten root) first applies the batch planned so far,
so a removal is never overtaken by an older plan.

Slow files do not hold small edits back: a parse still running after a moment, a
document too large to chunk quickly, or a plan with many windows is set aside
(`ingest/slow_files.py`) and moved along a step at a time between other jobs.

File names are the user's and may hold newlines or other control characters: log lines
show them escaped (`shown`), so one event stays one line and a name cannot forge another.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ragd.core.names import disk_path
from ragd.core.roots import Roots
from ragd.index.embedder import Embedder
from ragd.index.manifest import FileRow
from ragd.index.space import Interrupted
from ragd.index.store import Stores
from ragd.index.writer import EMBED_SLICE, PRUNE_AFTER_WINDOWS, IndexWriter
from ragd.ingest.chunking import ChunkParams
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import Document, SkipFile
from ragd.ingest.parse_pool import ParsePool, Ticket
from ragd.ingest.planner import Gone, Loaded, Outcome, Planner, Skip, Unchanged, quarantined
from ragd.ingest.slow_files import (
    Deferred,
    SlowFiles,
    Staged,
    parse_is_slow,
    plan_is_large,
    text_is_large,
)
from ragd.ingest.walking import walk
from ragd.ingest.work_queue import Job, WorkQueue

if TYPE_CHECKING:
    from ragd.core.config import Settings

__all__ = ["EMBED_SLICE", "Indexer", "Interrupted", "shown"]

log = logging.getLogger("ragd.indexer")

BATCH_FILES = 64  # files planned before one joint apply
BATCH_WINDOWS = 256  # ... or fewer files once their windows reach this
FOLDER_UNREADABLE = "cannot read folder"  # a scan's problem for a folder it may not list


def shown(label: str) -> str:
    """A label for a log line: control characters (newlines…) escaped, the rest as is."""
    if label.isprintable():
        return label
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in label)


@dataclass
class _Batch:
    """Files planned (read, parsed, chunked) but not yet embedded and applied."""

    isolate: bool = False  # a failed joint apply is retried file by file
    defer: bool = False  # slow files may be set aside (the background writer only)
    items: list[Staged] = field(default_factory=list)
    windows: int = 0
    paths: set[tuple[str, str]] = field(default_factory=set)

    def add(self, staged: Staged) -> None:
        self.items.append(staged)
        self.windows += staged.plan.window_count()
        self.paths.add((staged.plan.row.root, staged.plan.row.relpath))

    def full(self) -> bool:
        return len(self.items) >= BATCH_FILES or self.windows >= BATCH_WINDOWS

    def describe(self) -> str | None:
        """What is being applied, for status and shutdown: "a.md" or "a.md (+12 more)"."""
        if not self.items:
            return None
        more = len(self.items) - 1
        return self.items[0].label + (f" (+{more} more)" if more else "")


class Indexer:
    def __init__(
        self,
        stores: Stores,
        embedder: Embedder,
        roots: Roots,
        path_filter: PathFilter,
        queue: WorkQueue,
        max_file_bytes: int,
        parser: ParsePool,
        *,
        owns_parser: bool = False,  # closed when the indexer stops (else its owner closes it)
        follow_symlinks: bool = False,
        params: ChunkParams = ChunkParams(),
        writer: IndexWriter | None = None,
        on_folder_readable: Callable[[str], None] = lambda root: None,
        between_jobs: Callable[[], None] = lambda: None,
    ) -> None:
        self.stores = stores  # read here; every write goes through self.writer
        self.writer = writer or IndexWriter(stores, embedder)
        self.planner = Planner(embedder, params, max_file_bytes, follow_symlinks)
        self.roots = roots
        self.filter = path_filter
        self.queue = queue
        self.parser = parser
        self._owns_parser = owns_parser
        self.counters = self.writer.counters
        self._stop = self.writer.stopping  # also ends a long embedding in the writer
        self._thread: threading.Thread | None = None
        self.current: str | None = None  # label of the file being applied
        self.slow = SlowFiles(queue, self.writer)  # worked on between other jobs
        self._planning = ThreadPoolExecutor(1, thread_name_prefix="ragd-planner")
        # Called with a root when a folder there became readable: its inotify watches
        # were refused while it was not, so the watcher must set them again.
        self.on_folder_readable = on_folder_readable
        # Upkeep on this thread between jobs (refilling a vector server that came back).
        self.between_jobs = between_jobs

    @property
    def max_file_bytes(self) -> int:
        """The file size cap in force (`reconfigure` changes it)."""
        return self.planner.max_file_bytes or 0  # (the indexer's planner always has one)

    @property
    def follow_symlinks(self) -> bool:
        return self.planner.follow_symlinks

    def reconfigure(self, settings: Settings) -> None:
        """SIGHUP: the file size cap, following symbolic links, and the parse limits."""
        self.planner.max_file_bytes = settings.max_file_bytes
        self.planner.follow_symlinks = settings.follow_symlinks
        self.parser.reconfigure(settings)

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
            self._planning.shutdown(wait=False, cancel_futures=True)
            if self._owns_parser:
                self.parser.close()
        return stopped

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self.queue.take(timeout=0.05 if self.slow else 0.5)
            if job is not None:
                self._run_batch(job)
            try:
                self.between_jobs()
                if self.slow:
                    self._advance_deferred()  # one step of a slow file between batches
                elif job is None and self.writer.dropped_windows >= PRUNE_AFTER_WINDOWS:
                    self.prune_cache()  # idle: nothing is waiting for the writer
            except Interrupted:
                log.info("stopped while indexing %s; the next start finishes it", self.current)
            except Exception:  # one bad step never stops the writer
                log.exception("background indexing step failed")

    def _run_batch(self, job: Job | None) -> None:
        batch = _Batch(isolate=True, defer=True)
        taken: list[tuple[Job, int]] = []
        try:
            # Plan every job that is already due (up to a batch), then apply them all.
            while job is not None:
                taken.append((job, self._run_one(job, batch)))
                if batch.full() or self._stop.is_set():
                    break
                job = self.queue.take(timeout=0)
            self.current = batch.describe()
            self._flush(batch)
        except Interrupted:
            log.info("stopped while embedding %s; the next start finishes it", self.current)
        except Exception:  # one bad batch never stops the writer
            log.exception("applying %d index job(s) failed", len(taken))
        finally:
            self.current = None
            for done, chunks in taken:
                self.queue.done(chunks, done)

    def _run_one(self, job: Job, batch: _Batch) -> int:
        self.current = self._label(job.root, job.relpath) if job.relpath else None
        try:
            return self._job(job, batch)
        except Exception as exc:  # one bad job never stops the writer
            log.exception("index job %s failed", job)
            if job.kind == "sync":  # shown in `rag status`, retried at the next scan
                self._problem(job.root, job.relpath, f"indexing failed ({_brief(exc)})")
            return 0

    def _label(self, root: str, relpath: str) -> str:
        return shown(self.roots.label(root, relpath))

    # -- slow files -------------------------------------------------------------
    def in_progress(self) -> list[dict[str, object]]:
        """The slow files being worked on between other jobs, for `rag status`."""
        return self.slow.describe()

    def bytes_underway(self) -> int:
        """Bytes of the slow files being embedded, in proportion to the windows done."""
        return self.slow.bytes_underway()

    def _advance_deferred(self) -> None:
        """One step of slow work: take up a finished parse or plan, or embed one slice."""
        step = self.slow.next_step()
        if step is None:
            return
        kind, item = step
        if kind == "parsed":
            self._parsed_deferred(item)
        elif kind == "planned":
            self._planned_deferred(item)
        else:
            self._embed_slice(item)

    def _parsed_deferred(self, item: Deferred) -> None:
        assert item.ticket is not None
        ticket, item.ticket = item.ticket, None
        document = self._parsed(item, ticket, _Batch(isolate=True))
        if document is None:
            self.slow.release(item)
        else:
            item.planning = self._planning.submit(self._stage, item, document)

    def _planned_deferred(self, item: Deferred) -> None:
        assert item.planning is not None
        planning, item.planning = item.planning, None
        try:
            self.slow.embed_later(item, planning.result())
        except Exception as exc:
            log.exception("planning %s failed", item.label)
            self._problem(item.root, item.relpath, f"indexing failed ({_brief(exc)})")
            self.slow.release(item)

    def _embed_slice(self, item: Deferred) -> None:
        assert item.staged is not None
        try:
            if item.embedded < len(item.missing):
                self.current = item.label
            if self.slow.embed_slice(item):
                self._flush(_Batch(isolate=True, items=[item.staged]))
                self.slow.release(item, len(item.staged.plan.chunks))
        except Exception as exc:
            log.exception("indexing %s failed", item.label)
            self._problem(item.root, item.relpath, f"indexing failed ({_brief(exc)})")
            self.slow.release(item)
        finally:
            self.current = None

    # -- jobs --------------------------------------------------------------------
    def _job(self, job: Job, batch: _Batch) -> int:
        if job.kind == "forget":
            self._flush(batch)
            self.forget_root(job.root)
            return 0
        if job.root not in self.roots:
            return 0  # queued before `rag forget` (e.g. by that root's own scan): drop it
        return self._sync(job.root, job.relpath, batch, job.force)

    def sync(self, root: str, relpath: str, force: bool = False) -> int:
        """Bring one path (file or folder) in line with the disk; returns chunks written."""
        batch = _Batch()
        chunks = self._sync(root, relpath, batch, force)
        self._flush(batch)
        return chunks

    def _sync(self, root: str, relpath: str, batch: _Batch, force: bool = False) -> int:
        if (root, relpath) in batch.paths:
            # The same file changed again after it was planned: apply that plan first.
            self._flush(batch)
        path = disk_path(root, relpath)
        try:
            st = os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):  # gone, or a folder above it is a file
            self._flush(batch)  # a plan staged for a file under this path must not outlive it
            self.slow.cancel(root, relpath)
            self._remove_under(root, relpath)
            return 0
        except OSError as exc:
            return self._settle(root, relpath, Skip(f"cannot stat ({exc.strerror})"))
        self._drop_replaced(root, relpath, folder=stat.S_ISDIR(st.st_mode), batch=batch)
        if stat.S_ISDIR(st.st_mode):
            self.scan(root, relpath)
            return 0
        if not self.filter.accepts(PurePosixPath(relpath), path, root):
            self.slow.cancel(root, relpath)
            if self.stores.manifest.file(root, relpath) is not None:
                # Indexed before the include/exclude patterns changed: no longer wanted.
                self._flush(batch)
                self._remove(root, relpath)
            return 0
        if self.slow.covers(root, relpath, st) and not force:
            self.queue.covered(root, relpath)  # the file is counted once, by the slow job
            return 0  # already being worked on, unchanged since
        self.slow.cancel(root, relpath)
        return self._sync_file(root, relpath, path, st, batch, force)

    def _drop_replaced(self, root: str, relpath: str, folder: bool, batch: _Batch) -> None:
        """A file replaced by a folder of the same name, or a folder by a file: what was
        indexed under the old kind goes (a scan would otherwise queue the file for ever)."""
        if not relpath:
            return
        stale = [
            row.relpath
            for row in self.stores.manifest.files_under(root, relpath)
            if (row.relpath == relpath) == folder
        ]
        if stale:
            self._flush(batch)
            self.slow.cancel(root, relpath)
        for rel, chunks in self.writer.remove_files(root, stale).items():
            self._removed(root, rel, chunks)

    def scan(self, root: str, relpath: str = "") -> int:
        """Queue every document under a folder and prune what vanished; returns files queued."""
        manifest = self.stores.manifest
        base = disk_path(root, relpath)
        seen: set[str] = set()
        queued = 0
        self.filter.tally.clear_under(root, relpath)  # the walk counts what it leaves out

        def clash(key: str) -> None:
            reason = "its name, with undecodable bytes escaped, is another file's name"
            self._problem(root, key + " (undecodable name)", reason)

        unreadable: set[str] = set()

        def cannot_read(key: str, error: OSError) -> None:
            unreadable.add(key)
            self._problem(root, key, f"{FOLDER_UNREADABLE} ({error.strerror})")

        for rel, st in walk(
            base, root, self.filter, self.planner.follow_symlinks, clash, cannot_read
        ):
            seen.add(rel)
            row = manifest.file(root, rel)
            if row is not None and row.size == st.st_size and row.mtime_ns == st.st_mtime_ns:
                continue
            if quarantined(manifest.problem(root, rel), st):
                continue  # known bad and unchanged: reported once already
            self.queue.put(Job("sync", root, rel), debounce=False, size=st.st_size)
            queued += 1
        for row in manifest.files_under(root, relpath):
            if row.relpath not in seen:  # vanished: no bytes to read
                self.queue.put(Job("sync", root, row.relpath), debounce=False)
                queued += 1
        self._clear_readable_folders(root, relpath, unreadable)
        return queued

    def _clear_readable_folders(self, root: str, relpath: str, unreadable: set[str]) -> None:
        """Folders reported unreadable that this walk could read (or that are gone)."""
        for problem_root, rel, reason, _ in self.stores.manifest.problem_rows():
            below = not relpath or rel == relpath or rel.startswith(relpath + "/")
            folder = problem_root == root and reason.startswith(FOLDER_UNREADABLE)
            if folder and below and rel not in unreadable:
                self.writer.remove(root, rel)  # holds no chunks: only the problem goes
                self.on_folder_readable(root)

    def _sync_file(
        self,
        root: str,
        relpath: str,
        path: Path,
        st: os.stat_result,
        batch: _Batch,
        force: bool = False,
    ) -> int:
        """Plan one file up to its parse; the parse and the rest go on in `_stage_parsed`."""
        indexed = self.stores.manifest.file(root, relpath)
        problem = None if force else self.stores.manifest.problem(root, relpath)
        started = time.monotonic()
        loaded = self.planner.load(path, st, indexed, problem)
        if isinstance(loaded, Loaded) or (isinstance(loaded, Unchanged) and loaded.stat):
            self.counters.files_read += 1  # (an unchanged stat: read, and the same bytes)
        if not isinstance(loaded, Loaded):
            return self._settle(root, relpath, loaded)
        checked = loaded.stat
        label = self._label(root, relpath)
        item = Deferred(
            root, relpath, label, checked.st_size, checked.st_mtime_ns, loaded.digest, started
        )
        ticket = self.parser.submit(relpath, loaded.data)
        del loaded  # the bytes are not held while the parse runs
        return self._stage_parsed(item, ticket, batch)

    def _stage_parsed(self, item: Deferred, ticket: Ticket, batch: _Batch) -> int:
        """Wait briefly for the parse, then chunk and window the file into the batch; a
        slow file is set aside instead (background writer only). Returns chunks staged."""
        if batch.defer and parse_is_slow(ticket):
            item.ticket = ticket
            return self.slow.hold(item)  # parsed in the background; small jobs go on meanwhile
        document = self._parsed(item, ticket, batch)
        if document is None:
            return 0
        if batch.defer and text_is_large(document):
            item.planning = self._planning.submit(self._stage, item, document)
            return self.slow.hold(item)  # chunked off the writer thread, then embedded in slices
        staged = self._stage(item, document)
        if batch.defer and plan_is_large(staged):
            self.slow.embed_later(item, staged)
            return self.slow.hold(item)  # embedded a slice at a time between other jobs
        batch.add(staged)
        return len(staged.plan.chunks)

    def _settle(self, root: str, relpath: str, outcome: Outcome) -> int:
        """Carry out what the planner said instead of a plan; returns 0 (chunks written)."""
        if isinstance(outcome, Unchanged):
            if outcome.stat is not None:  # same bytes, new stat: start-up skips it unread
                self.writer.touch(root, relpath, *outcome.stat)
            self.counters.files_unchanged += 1
        elif isinstance(outcome, Gone):
            log.info("%s vanished before it could be read", self._label(root, relpath))
            self._remove(root, relpath)
        else:
            if outcome.drop:
                self._remove(root, relpath, keep_problem=True)
            self._problem(root, relpath, outcome.reason, outcome.version)
        return 0

    def _parsed(self, item: Deferred, ticket: Ticket, batch: _Batch) -> Document | None:
        """The parsed document, or None with the reason recorded (that version held)."""
        try:
            document = ticket.result()
        except SkipFile as exc:
            if ticket.cancelled:
                return None
            if (item.root, item.relpath) in batch.paths:
                self._flush(batch)
            why = Skip(str(exc), (item.size, item.mtime_ns), drop=True)
            self._settle(item.root, item.relpath, why)
            return None
        for note in document.notes:
            log.warning("%s: %s", item.label, note)
        return document

    def _stage(self, item: Deferred, document: Document) -> Staged:
        """Chunk and window a parsed file (pure: also runs on the planner thread)."""
        row = FileRow(item.root, item.relpath, item.size, item.mtime_ns, item.digest, ())
        return Staged(self.planner.plan(row, document), item.label, item.started)

    # -- apply -------------------------------------------------------------------
    def _flush(self, batch: _Batch) -> None:
        """Embed and apply every staged plan; in an isolating batch, a failed joint apply
        is retried file by file so one bad file cannot sink the others."""
        staged, batch.items, batch.windows = batch.items, [], 0
        batch.paths.clear()
        if not staged:
            return
        if not batch.isolate:
            self._apply_staged(staged)
            return
        try:
            self._apply_staged(staged)
        except Exception as exc:
            if len(staged) == 1:
                self._apply_failed(staged[0], exc)
                return
            log.warning(
                "applying %d files together failed (%s); retrying one by one",
                len(staged),
                type(exc).__name__,
            )
            for item in staged:
                try:
                    self._apply_staged([item])
                except Exception as one:
                    self._apply_failed(item, one)

    def _apply_failed(self, item: Staged, exc: Exception) -> None:
        """Logged, and shown in `rag status` until the file is indexed (retried at the
        next scan: no stat is recorded, as the cause may be passing, e.g. a full disk)."""
        log.error("indexing %s failed: %s", item.label, _brief(exc))
        self._problem(item.plan.row.root, item.plan.row.relpath, f"indexing failed ({_brief(exc)})")

    def _apply_staged(self, staged: list[Staged]) -> None:
        windows = {h: w for item in staged for h, w in item.plan.windows().items()}
        counted = all(item.reuse_counted for item in staged)  # (a slow file is applied alone)
        vectors = self.writer.vectors_for(windows, count_reuse=not counted)
        self.writer.apply([item.plan for item in staged], vectors)
        for item in staged:
            log.info(
                "indexed %s: %d chunks in %.0f ms",
                item.label,
                len(item.plan.chunks),
                (time.monotonic() - item.started) * 1000,
            )

    def _remove(self, root: str, relpath: str, keep_problem: bool = False) -> None:
        """Drop a file's chunks from both indexes, then its manifest rows."""
        self._removed(root, relpath, self.writer.remove(root, relpath, keep_problem))

    def _removed(self, root: str, relpath: str, chunks: int) -> None:
        if chunks:
            log.info("removed %s (%d chunks)", self._label(root, relpath), chunks)

    def _remove_under(self, root: str, relpath: str) -> None:
        """A path vanished: it was a file, or a folder (moved out / deleted whole)."""
        self._remove(root, relpath)
        gone = [
            row.relpath
            for row in self.stores.manifest.files_under(root, relpath)
            if not disk_path(root, row.relpath).exists()
        ]
        for rel, chunks in self.writer.remove_files(root, gone).items():
            self._removed(root, rel, chunks)

    def forget_root(self, root: str) -> None:
        self.slow.cancel(root, "")
        self.writer.forget_root(root, lambda relpath, chunks: self._removed(root, relpath, chunks))
        log.info("forgot root %s", Path(root).name)

    def _problem(
        self, root: str, relpath: str, reason: str, held: tuple[int, int] | None = None
    ) -> None:
        """Record why a file is not indexed (the writer writes each record once); `held`:
        the (size, mtime_ns) not to try again until it changes."""
        size, mtime_ns = held or (None, None)
        if self.writer.record_problem(root, relpath, reason, size, mtime_ns):
            log.warning("skipped %s: %s", self._label(root, relpath), shown(reason))

    def prune_cache(self) -> int:
        """Drop cached vectors no chunk uses, keeping those of files still being worked on."""
        return self.writer.prune_cache(self.slow.windows_kept())


def _brief(exc: BaseException) -> str:
    """An exception as a one-line reason: its type and the start of its message."""
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
