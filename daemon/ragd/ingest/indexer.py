"""The single index writer: the only code that mutates ChromaDB, tantivy and the manifest.

For each job it *plans* (stat → read once → hash → parse → chunk → window → embed only
what the cache lacks) and then *applies* in crash-safe order: delete stale vectors and
lexical docs, add new ones, commit tantivy, and commit the manifest row last. A crash at
any point leaves the manifest behind the indexes, never ahead; start-up repair and
reconcile finish the job.

Jobs that are due together are applied together: the writer plans up to BATCH_FILES files
(or BATCH_WINDOWS windows), embeds all their new windows in one call and applies them with
one ChromaDB upsert and one tantivy commit, then commits each file's manifest row. The
order is the same as for one file (indexes first, manifest last), so crash safety is
unchanged, but a burst of 10,000 one-line files costs 160 batches instead of 10,000
commits. Anything that removes files (a vanished path, a forgotten root) first applies the
batch planned so far, so a removal is never overtaken by an older plan.

File names are the user's and may hold newlines or other control characters: log lines
show them escaped (`shown`), so one event stays one line and a name cannot forge another.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import numpy as np

from ragd.index.dense import window_id
from ragd.index.embedder import Embedder
from ragd.index.lexical import LexicalDoc
from ragd.index.manifest import ChunkRow, FileRow
from ragd.index.store import Stores
from ragd.index.windows import make_windows
from ragd.ingest.chunking import ChunkParams, chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import Document, SkipFile, text_size
from ragd.ingest.names import clashes, disk_path, name_key
from ragd.ingest.parse_pool import ParsePool, Ticket, shared_pool
from ragd.ingest.work_queue import Job, WorkQueue
from ragd.roots import Roots

if TYPE_CHECKING:
    from ragd.config import Settings

log = logging.getLogger("ragd.indexer")

BATCH_FILES = 64  # files planned before one joint apply
BATCH_WINDOWS = 256  # ... or fewer files once their windows reach this
EMBED_SLICE = 128  # windows per encoder call; each slice is cached as soon as it is done
# A parse still running after this is set aside, and a plan with more windows than this is
# embedded a slice at a time between other jobs: neither holds small edits behind it.
PARSE_PATIENCE_S = 0.5
LARGE_WINDOWS = 2 * EMBED_SLICE
# A document with more text than this is chunked and windowed on the planner thread
# (≈ 5 s per MB of text on a busy 2-core machine), not on the writer.
LARGE_TEXT_CHARS = 256 * 1024
# Windows dropped (edits, deletes) before the embedding cache is pruned, once idle.
PRUNE_AFTER_WINDOWS = 5000


def shown(label: str) -> str:
    """A label for a log line: control characters (newlines…) escaped, the rest as is."""
    if label.isprintable():
        return label
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in label)


class FileTooLarge(Exception):
    """The file grew past the size cap between the stat and the read."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class NotRegularFile(Exception):
    """What was opened is not a regular file (a FIFO or device swapped in after the stat)."""


class Interrupted(BaseException):
    """Shutdown arrived while a large batch was being embedded: the slices already computed
    are in the embedding cache, and the next start redoes the files (reusing them).

    A BaseException, like KeyboardInterrupt: the writer's many "one bad file never stops
    the writer" handlers catch Exception, and a shutdown must pass through all of them to
    the loop in `_run` instead of being logged as a failed job or retried file by file."""


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_id_for(root: str, relpath: str, heading: str, text: str, occurrence: int) -> str:
    key = "\0".join((root, relpath, heading, text_hash(text), str(occurrence)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


@dataclass
class Counters:
    embeddings_computed: int = 0
    embeddings_reused: int = 0
    files_indexed: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    files_read: int = 0  # files whose bytes were read (start-up skips unchanged ones unread)


@dataclass
class PlannedChunk:
    row: ChunkRow
    windows: list[str]  # the texts the encoder sees


@dataclass
class FilePlan:
    row: FileRow
    chunks: list[PlannedChunk]
    vectors: dict[str, np.ndarray] = field(default_factory=dict)  # window hash → vector


@dataclass
class _Staged:
    plan: FilePlan
    label: str
    started: float


@dataclass
class _Deferred:
    """A file the writer set aside so that small jobs are not held behind it: its parse
    is still running (`ticket`), it is being chunked on the planner thread (`planning`),
    or its windows are being embedded a slice at a time (`staged`). It stays pending in
    the queue until it is applied."""

    root: str
    relpath: str
    label: str
    size: int
    mtime_ns: int
    digest: str
    started: float
    ticket: Ticket | None = None
    planning: Future[_Staged] | None = None  # chunked and windowed on the planner thread
    staged: _Staged | None = None
    windows: dict[str, str] = field(default_factory=dict)  # window hash → text, to embed
    missing: list[str] = field(default_factory=list)  # hashes not embedded yet
    embedded: int = 0

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
            stage, since = "waiting for a parser", self.started
        else:
            stage, since = "parsing", ticket.started
        return {"source": self.label, "stage": stage, "elapsed_s": round(now - since, 1)}


@dataclass
class _Batch:
    """Files planned (read, parsed, chunked) but not yet embedded and applied."""

    isolate: bool = False  # a failed joint apply is retried file by file
    defer: bool = False  # slow files may be set aside (the background writer only)
    items: list[_Staged] = field(default_factory=list)
    windows: int = 0
    paths: set[tuple[str, str]] = field(default_factory=set)

    def add(self, staged: _Staged) -> None:
        self.items.append(staged)
        self.windows += sum(len(p.windows) for p in staged.plan.chunks)
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
        follow_symlinks: bool = False,
        params: ChunkParams = ChunkParams(),
        parser: ParsePool | None = None,
    ) -> None:
        self.stores = stores
        self.embedder = embedder
        self.roots = roots
        self.filter = path_filter
        self.queue = queue
        self.max_file_bytes = max_file_bytes
        self.follow_symlinks = follow_symlinks
        self.params = params
        self.parser = parser or shared_pool()
        self._owns_parser = parser is not None
        self.counters = Counters()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.current: str | None = None  # label of the file being applied
        self._deferred: list[_Deferred] = []  # slow files, worked on between other jobs
        self._planner = ThreadPoolExecutor(1, thread_name_prefix="ragd-planner")
        self.dropped_windows = PRUNE_AFTER_WINDOWS  # so the first idle moment prunes

    def reconfigure(self, settings: Settings) -> None:
        """SIGHUP: the file size cap, following symbolic links, and the parse limits."""
        self.max_file_bytes = settings.max_file_bytes
        self.follow_symlinks = settings.follow_symlinks
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
            self._planner.shutdown(wait=False, cancel_futures=True)
            if self._owns_parser:
                self.parser.close()
        return stopped

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self.queue.take(timeout=0.05 if self._deferred else 0.5)
            if job is not None:
                self._run_batch(job)
            try:
                if self._deferred:
                    self._advance_deferred()  # one step of a slow file between batches
                elif job is None and self.dropped_windows >= PRUNE_AFTER_WINDOWS:
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
        self.current = shown(self.roots.label(job.root, job.relpath)) if job.relpath else None
        try:
            return self._job(job, batch)
        except Exception as exc:  # one bad job never stops the writer
            log.exception("index job %s failed", job)
            if job.kind == "sync":  # shown in `rag status`, retried at the next scan
                self._problem(job.root, job.relpath, f"indexing failed ({_brief(exc)})")
            return 0

    # -- slow files --------------------------------------------------------------
    def in_progress(self) -> list[dict[str, object]]:
        """The slow files being worked on between other jobs, for `rag status`."""
        return [item.describe() for item in list(self._deferred)]

    def _defer(self, item: _Deferred) -> None:
        self.queue.hold()
        self._deferred.append(item)

    def _release(self, item: _Deferred, chunks: int = 0) -> None:
        if item in self._deferred:
            self._deferred.remove(item)
            self.queue.release(chunks)

    def _cancel_deferred(self, root: str, relpath: str) -> None:
        """A newer job, a delete or a forget supersedes slow work on a path or under it."""
        for item in list(self._deferred):
            if item.root == root and (
                not relpath or item.relpath == relpath or item.relpath.startswith(relpath + "/")
            ):
                if item.ticket is not None:
                    item.ticket.cancel()
                if item.planning is not None:
                    item.planning.cancel()  # a plan already running is simply dropped
                self._release(item)

    def _in_progress(self, root: str, relpath: str, st: os.stat_result) -> bool:
        return any(
            i.root == root
            and i.relpath == relpath
            and (i.size, i.mtime_ns) == (st.st_size, st.st_mtime_ns)
            for i in self._deferred
        )

    def _advance_deferred(self) -> None:
        """One step of slow work: take up a finished parse or plan, or embed one slice."""
        for item in list(self._deferred):
            if item.ticket is not None and item.ticket.done():
                self._parsed_deferred(item)
                return
            if item.planning is not None and item.planning.done():
                self._planned_deferred(item)
                return
        for item in list(self._deferred):
            if item.staged is not None:
                self._embed_slice(item)
                return

    def _parsed_deferred(self, item: _Deferred) -> None:
        assert item.ticket is not None
        ticket, item.ticket = item.ticket, None
        document = self._parsed(item, ticket, _Batch(isolate=True))
        if document is None:
            self._release(item)
        else:
            item.planning = self._planner.submit(self._stage, item, document)

    def _planned_deferred(self, item: _Deferred) -> None:
        assert item.planning is not None
        planning, item.planning = item.planning, None
        try:
            self._embed_later(item, planning.result())
        except Exception as exc:
            log.exception("planning %s failed", item.label)
            self._problem(item.root, item.relpath, f"indexing failed ({_brief(exc)})")
            self._release(item)

    def _embed_later(self, item: _Deferred, staged: _Staged) -> None:
        """Queue a planned file's windows for embedding a slice at a time."""
        item.staged = staged
        item.windows = _windows_of([staged])
        cached = self.stores.manifest.cached_vectors(self.embedder.model_id, list(item.windows))
        self.counters.embeddings_reused += len(cached)
        item.missing = [h for h in item.windows if h not in cached]

    def _embed_slice(self, item: _Deferred) -> None:
        assert item.staged is not None
        part = item.missing[item.embedded : item.embedded + EMBED_SLICE]
        try:
            if part:
                self.current = item.label
                computed = self.embedder.embed([item.windows[h] for h in part], lane="index")
                fresh = dict(zip(part, computed, strict=True))
                self.stores.manifest.store_vectors(self.embedder.model_id, fresh)
                self.counters.embeddings_computed += len(part)
                item.embedded += len(part)
            if item.embedded >= len(item.missing):
                self._flush(_Batch(isolate=True, items=[item.staged]))
                self._release(item, len(item.staged.plan.chunks))
        except Exception as exc:
            log.exception("indexing %s failed", item.label)
            self._problem(item.root, item.relpath, f"indexing failed ({_brief(exc)})")
            self._release(item)
        finally:
            self.current = None

    # -- jobs --------------------------------------------------------------------
    def run_job(self, job: Job) -> int:
        """Run one job to completion; returns chunks written."""
        batch = _Batch()
        chunks = self._job(job, batch)
        self._flush(batch)
        return chunks

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
        except FileNotFoundError:
            self._flush(batch)  # a plan staged for a file under this path must not outlive it
            self._cancel_deferred(root, relpath)
            self._remove_under(root, relpath)
            return 0
        except OSError as exc:
            self._problem(root, relpath, f"cannot stat ({exc.strerror})")
            return 0
        if stat.S_ISDIR(st.st_mode):
            self.scan(root, relpath)
            return 0
        if not self.filter.accepts(PurePosixPath(relpath), path, root):
            self._cancel_deferred(root, relpath)
            if self.stores.manifest.file(root, relpath) is not None:
                # Indexed before the include/exclude patterns changed: no longer wanted.
                self._flush(batch)
                self._remove(root, relpath)
            return 0
        if self._in_progress(root, relpath, st) and not force:
            return 0  # already being worked on, unchanged since
        self._cancel_deferred(root, relpath)
        return self._sync_file(root, relpath, path, st, batch, force)

    def scan(self, root: str, relpath: str = "") -> int:
        """Queue every document under a folder and prune what vanished; returns files queued."""
        base = disk_path(root, relpath)
        seen: set[str] = set()
        queued = 0
        self.filter.tally.clear_under(root, relpath)  # the walk counts what it leaves out

        def clash(key: str) -> None:
            reason = "its name, with undecodable bytes escaped, is another file's name"
            self._problem(root, key + " (undecodable name)", reason)

        for rel, st in walk(base, root, self.filter, self.follow_symlinks, clash):
            seen.add(rel)
            row = self.stores.manifest.file(root, rel)
            if row is not None and row.size == st.st_size and row.mtime_ns == st.st_mtime_ns:
                continue
            if self._quarantined(root, rel, st):
                continue  # known bad and unchanged: reported once already
            self.queue.put(Job("sync", root, rel), debounce=False)
            queued += 1
        for row in self.stores.manifest.files_under(root, relpath):
            if row.relpath not in seen:
                self.queue.put(Job("sync", root, row.relpath), debounce=False)
                queued += 1
        return queued

    def _quarantined(self, root: str, relpath: str, st: os.stat_result) -> bool:
        """Did this exact version of the file (size and mtime) fail before?"""
        problem = self.stores.manifest.problem(root, relpath)
        return bool(problem) and problem[1:] == (st.st_size, st.st_mtime_ns)  # type: ignore[index]

    def _too_large(self, root: str, relpath: str, size: int, mtime_ns: int) -> None:
        self._remove(root, relpath, keep_problem=True)
        cap = self.max_file_bytes / 1024 / 1024
        reason = f"too large ({size / 1024 / 1024:.1f} MB, cap {cap:g} MB)"
        self._problem(root, relpath, reason, size, mtime_ns)

    def _sync_file(
        self,
        root: str,
        relpath: str,
        path: Path,
        st: os.stat_result,
        batch: _Batch,
        force: bool = False,
    ) -> int:
        label = shown(self.roots.label(root, relpath))
        if stat.S_ISLNK(st.st_mode) and not self.follow_symlinks:
            self._remove(root, relpath, keep_problem=True)
            self._problem(root, relpath, "symbolic link (not followed)")
            return 0
        if stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(path)
            except OSError as exc:
                self._problem(root, relpath, f"broken symbolic link ({exc.strerror})")
                return 0
        if not stat.S_ISREG(st.st_mode):
            self._problem(root, relpath, "not a regular file", st.st_size, st.st_mtime_ns)
            return 0
        if st.st_size > self.max_file_bytes:
            self._too_large(root, relpath, st.st_size, st.st_mtime_ns)
            return 0
        existing = self.stores.manifest.file(root, relpath)
        if (
            existing is not None
            and existing.size == st.st_size
            and existing.mtime_ns == st.st_mtime_ns
        ) or (not force and self._quarantined(root, relpath, st)):
            self.counters.files_unchanged += 1
            return 0
        started = time.monotonic()
        data = self._read(root, relpath, path, st, label)
        if data is None:
            return 0
        digest = sha256_hex(data)
        if existing is not None and existing.sha256 == digest:
            # Same bytes (a save without change, a touch): no work, remember the new stat.
            self.stores.manifest.touch_file(root, relpath, st.st_size, st.st_mtime_ns)
            self.counters.files_unchanged += 1
            return 0
        item = _Deferred(root, relpath, label, st.st_size, st.st_mtime_ns, digest, started)
        ticket = self.parser.submit(relpath, data)
        del data
        if batch.defer and not ticket.wait(PARSE_PATIENCE_S):
            item.ticket = ticket
            self._defer(item)  # parsed in the background; small jobs go on meanwhile
            return 0
        document = self._parsed(item, ticket, batch)
        if document is None:
            return 0
        if batch.defer and text_size(document) > LARGE_TEXT_CHARS:
            item.planning = self._planner.submit(self._stage, item, document)
            self._defer(item)  # chunked off the writer thread, then embedded in slices
            return 0
        staged = self._stage(item, document)
        if batch.defer and sum(len(p.windows) for p in staged.plan.chunks) > LARGE_WINDOWS:
            self._embed_later(item, staged)
            self._defer(item)  # embedded a slice at a time between other jobs
            return 0
        batch.add(staged)
        return len(staged.plan.chunks)

    def _read(
        self, root: str, relpath: str, path: Path, st: os.stat_result, label: str
    ) -> bytes | None:
        """The file's bytes, or None with the reason recorded (or the file removed)."""
        try:
            data = read_file(path, self.follow_symlinks, self.max_file_bytes)
            self.counters.files_read += 1
            return data
        except FileTooLarge as exc:  # it grew after the stat: never read more than the cap
            self._too_large(root, relpath, exc.size, st.st_mtime_ns)
        except NotRegularFile:
            self._problem(root, relpath, "not a regular file", st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            log.info("%s vanished before it could be read", label)
            self._remove(root, relpath)
        except PermissionError:
            self._problem(root, relpath, "permission denied", st.st_size, st.st_mtime_ns)
        except OSError as exc:
            reason = f"read failed ({exc.strerror})"
            self._problem(root, relpath, reason, st.st_size, st.st_mtime_ns)
        return None

    def _parsed(self, item: _Deferred, ticket: Ticket, batch: _Batch) -> Document | None:
        """The parsed document, or None with the reason recorded (that version held)."""
        root, relpath = item.root, item.relpath
        try:
            document = ticket.result()
        except SkipFile as exc:
            if ticket.cancelled:
                return None
            if (root, relpath) in batch.paths:
                self._flush(batch)
            self._remove(root, relpath, keep_problem=True)
            self._problem(root, relpath, str(exc), item.size, item.mtime_ns)
            return None
        for note in document.notes:
            log.warning("%s: %s", item.label, note)
        return document

    def _stage(self, item: _Deferred, document: Document) -> _Staged:
        """Chunk and window a parsed file (pure: also runs on the planner thread)."""
        row = FileRow(item.root, item.relpath, item.size, item.mtime_ns, item.digest, ())
        return _Staged(self.plan(row, document, embed=False), item.label, item.started)

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

    def _apply_failed(self, item: _Staged, exc: Exception) -> None:
        """Logged, and shown in `rag status` until the file is indexed (retried at the
        next scan: no stat is recorded, as the cause may be passing, e.g. a full disk)."""
        log.error("indexing %s failed: %s", item.label, _brief(exc))
        self._problem(item.plan.row.root, item.plan.row.relpath, f"indexing failed ({_brief(exc)})")

    def _apply_staged(self, staged: list[_Staged]) -> None:
        vectors = self.vectors_for(_windows_of(staged))
        for item in staged:
            item.plan.vectors = vectors
        self.apply_many([item.plan for item in staged])
        for item in staged:
            self.counters.files_indexed += 1
            log.info(
                "indexed %s: %d chunks in %.0f ms",
                item.label,
                len(item.plan.chunks),
                (time.monotonic() - item.started) * 1000,
            )

    # -- plan --------------------------------------------------------------------
    def plan(self, row: FileRow, document, embed: bool = True) -> FilePlan:  # type: ignore[no-untyped-def]
        chunks = chunk_document(document, self.params)
        seen: Counter[tuple[str, str]] = Counter()
        planned: list[PlannedChunk] = []
        for ordinal, chunk in enumerate(chunks):
            heading = chunk.heading_path
            occurrence = seen[(heading, chunk.text)]
            seen[(heading, chunk.text)] += 1
            windows = make_windows(
                heading, chunk.embed_text, self.embedder.count_tokens, self.embedder.max_tokens
            )
            cid = chunk_id_for(row.root, row.relpath, heading, chunk.text, occurrence)
            chunk_row = ChunkRow(
                cid,
                row.root,
                row.relpath,
                ordinal,
                heading,
                chunk.text,
                chunk.page,
                tuple(text_hash(w) for w in windows),
                chunk.lines,
                chunk.cells,
            )
            planned.append(PlannedChunk(chunk_row, windows))
        plan = FilePlan(
            FileRow(
                row.root,
                row.relpath,
                row.size,
                row.mtime_ns,
                row.sha256,
                tuple(p.row.chunk_id for p in planned),
            ),
            planned,
        )
        if embed:
            plan.vectors = self.vectors_for(
                {h: w for p in planned for h, w in zip(p.row.windows, p.windows, strict=True)}
            )
        return plan

    def vectors_for(self, windows: dict[str, str]) -> dict[str, np.ndarray]:
        """Window hash → vector, computing only what the cache does not hold."""
        model = self.embedder.model_id
        vectors = self.stores.manifest.cached_vectors(model, list(windows))
        missing = [h for h in windows if h not in vectors]
        self.counters.embeddings_reused += len(windows) - len(missing)
        # Slice by slice, so a 20 MB file neither loses minutes of encoding to a kill nor
        # holds up a shutdown until its last window is done.
        for start in range(0, len(missing), EMBED_SLICE):
            if start and self._stop.is_set():
                raise Interrupted
            part = missing[start : start + EMBED_SLICE]
            computed = self.embedder.embed([windows[h] for h in part], lane="index")
            fresh = dict(zip(part, computed, strict=True))
            self.stores.manifest.store_vectors(model, fresh)
            self.counters.embeddings_computed += len(part)
            vectors.update(fresh)
        return vectors

    # -- apply -------------------------------------------------------------------
    def apply(self, plan: FilePlan) -> None:
        self.apply_many([plan])

    def apply_many(self, plans: list[FilePlan]) -> None:
        """Apply several files' plans (distinct files, vectors already computed)."""
        manifest, dense, lexical = self.stores.manifest, self.stores.dense, self.stores.lexical
        stale: list[ChunkRow] = []
        fresh: list[tuple[PlannedChunk, FilePlan]] = []
        for plan in plans:
            old = {c.chunk_id: c for c in manifest.chunks_of(plan.row.root, plan.row.relpath)}
            new_ids = {p.row.chunk_id for p in plan.chunks}
            stale.extend(c for cid, c in old.items() if cid not in new_ids)
            fresh.extend((p, plan) for p in plan.chunks if p.row.chunk_id not in old)
        self.dropped_windows += sum(len(c.windows) for c in stale)
        # 1. indexes first ...
        dense.delete(window_id(c.chunk_id, i) for c in stale for i in range(len(c.windows)))
        lexical.delete(c.chunk_id for c in stale)
        if fresh:
            ids = [window_id(p.row.chunk_id, i) for p, _ in fresh for i in range(len(p.windows))]
            vectors = np.stack([plan.vectors[h] for p, plan in fresh for h in p.row.windows])
            dense.upsert(ids, vectors)
            lexical.add(
                LexicalDoc(p.row.chunk_id, p.row.relpath, p.row.heading, p.row.text)
                for p, _ in fresh
            )
        lexical.commit()
        # 2. ... manifest last: after a crash it lags the indexes, never leads them.
        for plan in plans:
            manifest.commit_file(plan.row, [p.row for p in plan.chunks])

    def _remove(self, root: str, relpath: str, keep_problem: bool = False) -> None:
        """Drop a file's chunks from both indexes, then its manifest rows."""
        manifest = self.stores.manifest
        chunks = manifest.chunks_of(root, relpath)
        self.dropped_windows += sum(len(c.windows) for c in chunks)
        if chunks:
            self.stores.dense.delete(
                window_id(c.chunk_id, i) for c in chunks for i in range(len(c.windows))
            )
            self.stores.lexical.delete(c.chunk_id for c in chunks)
            self.stores.lexical.commit()
        has_problem = not keep_problem and manifest.problem(root, relpath) is not None
        if chunks or manifest.file(root, relpath) or has_problem:
            manifest.remove_file(root, relpath)
            if chunks:
                self.counters.files_removed += 1
                label = shown(self.roots.label(root, relpath))
                log.info("removed %s (%d chunks)", label, len(chunks))

    def _remove_under(self, root: str, relpath: str) -> None:
        """A path vanished: it was a file, or a folder (moved out / deleted whole)."""
        self._remove(root, relpath)
        for row in self.stores.manifest.files_under(root, relpath):
            if not disk_path(root, row.relpath).exists():
                self._remove(root, row.relpath)

    def forget_root(self, root: str) -> None:
        self._cancel_deferred(root, "")
        for row in self.stores.manifest.files(root):
            self._remove(root, row.relpath)
        self.stores.manifest.forget_root(root)
        log.info("forgot root %s", Path(root).name)

    def _problem(
        self,
        root: str,
        relpath: str,
        reason: str,
        size: int | None = None,
        mtime_ns: int | None = None,
    ) -> None:
        """Record why a file is not indexed (shown by `rag status`). With its size and
        mtime, that version of the file is not tried again until it changes (or
        `rag ingest FILE`); without them it is retried at the next scan."""
        previous = self.stores.manifest.problem(root, relpath)
        if previous is not None and previous == (reason, size, mtime_ns):
            return  # reported once already
        self.stores.manifest.record_problem(root, relpath, reason, size, mtime_ns)
        if previous is None or previous[0] != reason:
            log.warning("skipped %s: %s", shown(self.roots.label(root, relpath)), shown(reason))

    # -- embedding cache ---------------------------------------------------------
    def prune_cache(self) -> int:
        """Drop cached vectors no chunk uses (edited or deleted text). Runs on the writer
        thread when it is idle; searches read their own connections meanwhile."""
        log.debug("pruning the embedding cache (%d windows dropped since)", self.dropped_windows)
        self.dropped_windows = 0
        keep = {h for item in self._deferred for h in item.windows}
        dropped = self.stores.manifest.prune_embedding_cache(self.embedder.model_id, keep)
        if dropped:
            log.info("embedding cache: dropped %d vectors no chunk uses any more", dropped)
        return dropped


def _brief(exc: BaseException) -> str:
    """An exception as a one-line reason: its type and the start of its message."""
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _windows_of(staged: list[_Staged]) -> dict[str, str]:
    """Window hash → window text, for every window of these plans."""
    return {
        h: w
        for item in staged
        for p in item.plan.chunks
        for h, w in zip(p.row.windows, p.windows, strict=True)
    }


def read_file(path: Path, follow_symlinks: bool, limit: int | None = None) -> bytes:
    """The file's bytes, read once. Never blocks on a FIFO swapped in after the stat
    (O_NONBLOCK, then fstat), and never reads more than `limit` + 1 bytes."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_symlinks else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(path.name)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read() if limit is None else handle.read(limit + 1)
    finally:
        os.close(fd)
    if limit is not None and len(data) > limit:
        raise FileTooLarge(max(st.st_size, len(data)))
    return data


def walk(  # type: ignore[no-untyped-def]
    base: Path,
    root: str,
    path_filter: PathFilter,
    follow_symlinks: bool,
    on_clash: Callable[[str], None] | None = None,
):
    """Yield (key, stat) for every document under `base`, never leaving the root. The key
    is the path relative to the root, printable (`names.name_key`: the name itself unless
    it holds bytes that are not UTF-8); a name whose key is another file's literal name
    is passed to `on_clash` instead."""
    root_path = Path(root)
    for dirpath, dirnames, filenames in os.walk(base, followlinks=follow_symlinks):
        current = Path(dirpath)
        rel_dir = current.relative_to(root_path)
        dirnames[:] = [
            d
            for d in dirnames
            if not path_filter.prunes(root, PurePosixPath(*rel_dir.parts, d))
            and not (
                path_filter.data_dir is not None
                and (current / d).absolute() == path_filter.data_dir
            )
        ]
        for name in filenames:
            rel = PurePosixPath(*rel_dir.parts, name).as_posix()
            key = name_key(rel)
            absolute = current / name
            if not path_filter.accepts(PurePosixPath(key), absolute, root):
                continue
            if clashes(root, key, rel):
                if on_clash is not None:
                    on_clash(key)
                continue
            try:
                st = os.stat(absolute, follow_symlinks=False)
            except OSError:
                continue  # vanished during the walk; its delete event will follow
            yield key, st
