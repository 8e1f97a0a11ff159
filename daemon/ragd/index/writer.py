"""The index writer: the only code that mutates the manifest, ChromaDB and tantivy.

Everything that changes what is indexed goes through `IndexWriter`: applying planned
files (`index_files`), carrying out the planner's other outcomes (`settle`), removing
files and roots, recording why a file is not indexed (each record once), the embedding
cache and every count of reused embeddings, start-up repair (`repair`), the fingerprint
migration (`ensure_fingerprint`), and the daemon's own bookkeeping in the manifest
(roots, the clean-stop flag). It decides nothing about files: `ingest/planner.py` plans
them, `ingest/reconcile.py` decides what a path needs, and `ingest/indexer.py` schedules
the work on the writer thread.

Crash-safe order, for every change: the indexes first (delete stale vectors and lexical
documents, add the new ones, commit tantivy), the manifest last. A crash at any point
leaves the manifest behind the indexes, never ahead; start-up repair (orphans deleted,
missing entries re-added from the manifest) and the reconcile walk finish the job.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ragd.core.names import shown
from ragd.core.no_text import is_no_fault
from ragd.index import vector_seal
from ragd.index.consistency import IndexReport
from ragd.index.embedder import Embedder
from ragd.index.lexical import LexicalDoc
from ragd.index.manifest import ChunkRow, Manifest
from ragd.index.manifest_busy import BusyManifest
from ragd.index.plan import FilePlan, Gone, Outcome, PlannedChunk, Unchanged
from ragd.index.shared_vectors import VectorPlacer
from ragd.index.space import Interrupted
from ragd.index.store import Stores

log = logging.getLogger("ragd.indexer")
_FIGURE = re.compile(r"\d+(?:\.\d+)?")  # linear: one pass, no nested repetition

EMBED_SLICE = 128  # windows per encoder call; each slice is cached as soon as it is done
# Windows dropped (edits, deletes) before the embedding cache is pruned, once idle.
PRUNE_AFTER_WINDOWS = 5000

# Files removed per tantivy commit when a folder goes (a commit has a fixed cost, so one
# per file makes a large folder's rename take minutes: docs/performance.md); slices keep
# each batch's chunk rows and id lists small.
REMOVE_BATCH = 256

# Rebuilds the text of window `index` of a chunk (the planner's `window_text`).
WindowText = Callable[[ChunkRow, int], "str | None"]


def same_problem(before: str, now: str) -> bool:
    """The same problem in other figures: a log past the size cap that keeps growing, or
    a file seen mid-write and again once whole, is "too large (N MB, cap 20 MB)" each
    time — one warning, not one per append (`rag status` shows the latest figures)."""
    return _FIGURE.sub("N", before) == _FIGURE.sub("N", now)


@dataclass
class Counters:
    embeddings_computed: int = 0
    embeddings_reused: int = 0
    files_indexed: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    files_read: int = 0  # files whose bytes were read (start-up skips unchanged ones unread)


def lexical_doc(row: ChunkRow) -> LexicalDoc:
    """What tantivy keeps of a chunk (the manifest keeps the whole row)."""
    return LexicalDoc(row.chunk_id, row.relpath, row.heading, row.text, row.root)


def _same_bytes(manifest: Manifest, plan: FilePlan) -> bool:
    indexed = manifest.file(plan.row.root, plan.row.relpath)
    return indexed is not None and indexed.sha256 == plan.row.sha256


class IndexWriter:
    def __init__(self, stores: Stores, embedder: Embedder) -> None:
        self.stores = stores
        self.embedder = embedder
        self.counters = Counters()
        self.stopping = threading.Event()  # set at shutdown: a long embedding stops
        self.dropped_windows = PRUNE_AFTER_WINDOWS  # so the first idle moment prunes
        self._unclean = False  # the clean-stop flag was cleared (`mark_unclean`)
        self._unsaved_roots: str | None = None  # roots a start on a full disk left unwritten
        # Told of the files an apply committed whose bytes are new (the files beside them
        # that wanted an id they hold are read again: `ingest/dependents.py`). A file read
        # again for what it read beside it holds the ids it held: told, two files each
        # beyond the other's reach would read each other again for ever.
        self.on_applied: Callable[[list[FilePlan]], None] = lambda plans: None
        self.busy = BusyManifest()  # a write another process's lock stopped is retried
        self.vectors = VectorPlacer(stores)

    # -- embedding cache ---------------------------------------------------------
    # Every count of reused embeddings is made here: a window found in the cache counts
    # once, when the file it belongs to looks it up (`index_files`, or `to_embed` and
    # `embed_slice` for a file embedded slice by slice, whose apply counts nothing more).
    def cached(self, hashes: list[str]) -> dict[str, np.ndarray]:
        """The cached vectors of these window hashes (counts nothing)."""
        return self.stores.manifest.cached_vectors(self.embedder.model_id, hashes)

    def cache_vectors(self, vectors: dict[str, np.ndarray]) -> None:
        """Cache vectors computed elsewhere (window hash → vector; the scale bench)."""
        self.stores.manifest.store_vectors(self.embedder.model_id, vectors)

    def embed(self, windows: dict[str, str], hashes: list[str]) -> dict[str, np.ndarray]:
        """Embed these windows (hash → text) in one encoder call and cache the vectors."""
        computed = self.embedder.embed([windows[h] for h in hashes], lane="index")
        self.counters.embeddings_computed += len(hashes)  # the encoder's work, kept or not
        fresh = dict(zip(hashes, computed, strict=True))
        self.cache_vectors(fresh)
        return fresh

    def to_embed(self, windows: dict[str, str]) -> list[str]:
        """A file to be embedded a slice at a time: the window hashes the cache lacks
        (the hits count as reused now)."""
        cached = self.cached(list(windows))
        self.counters.embeddings_reused += len(cached)
        return by_length((h for h in windows if h not in cached), windows)

    def embed_slice(self, windows: dict[str, str], part: list[str]) -> None:
        """Embed one slice of such a file. The slice was read from the cache when the
        file was planned; since then a batch or another slow file may have embedded some
        of the same windows (shared paragraphs): those count as reused, not embedded again."""
        cached = self.cached(part)
        self.counters.embeddings_reused += len(cached)
        fresh = [h for h in part if h not in cached]
        if fresh:
            self.embed(windows, fresh)

    def _vectors(self, windows: dict[str, str], count_reuse: bool) -> dict[str, np.ndarray]:
        """Window hash → vector, computing only what the cache does not hold."""
        vectors = self.cached(list(windows))
        missing = by_length((h for h in windows if h not in vectors), windows)
        if count_reuse:
            self.counters.embeddings_reused += len(windows) - len(missing)
        # Slice by slice, so a 20 MB file neither loses minutes of encoding to a kill nor
        # holds up a shutdown until its last window is done.
        for start in range(0, len(missing), EMBED_SLICE):
            if start and self.stopping.is_set():
                raise Interrupted
            vectors.update(self.embed(windows, missing[start : start + EMBED_SLICE]))
        return vectors

    def prune_cache(self, keep: Iterable[str] = ()) -> int:
        """Drop cached vectors no chunk uses (edited or deleted text) and not in `keep`
        (files still being worked on). Runs on the writer thread when it is idle;
        searches read their own connections meanwhile."""
        log.debug("pruning the embedding cache (%d windows dropped since)", self.dropped_windows)
        self.dropped_windows = 0
        dropped = self.stores.manifest.prune_embedding_cache(self.embedder.model_id, keep)
        if dropped:
            log.info("embedding cache: dropped %d vectors no chunk uses any more", dropped)
        return dropped

    # -- files -------------------------------------------------------------------
    def index_files(self, plans: list[FilePlan]) -> None:
        """Embed what the cache lacks for these files (distinct files; a window they
        share is embedded once) and apply them together."""
        windows = {h: w for plan in plans for h, w in plan.windows().items()}
        self.apply(plans, self._vectors(windows, count_reuse=True))

    def index_embedded(self, plans: list[FilePlan]) -> None:
        """Apply files embedded a slice at a time (`to_embed`, `embed_slice`) together:
        their reuse was counted then."""
        windows = {h: text for plan in plans for h, text in plan.windows().items()}
        self.apply(plans, self._vectors(windows, count_reuse=False))

    def apply(self, plans: list[FilePlan], vectors: dict[str, np.ndarray]) -> None:
        """Apply several files' plans (distinct files; `vectors` holds every window)."""
        self.mark_unclean()
        manifest, lexical = self.stores.manifest, self.stores.lexical
        stale: list[ChunkRow] = []
        fresh: list[PlannedChunk] = []
        renewed = [plan for plan in plans if not _same_bytes(manifest, plan)]
        for plan in plans:
            old = {c.chunk_id: c for c in manifest.chunks_of(plan.row.root, plan.row.relpath)}
            new_ids = {p.row.chunk_id for p in plan.chunks}
            stale.extend(c for cid, c in old.items() if cid not in new_ids)
            fresh.extend(p for p in plan.chunks if p.row.chunk_id not in old)
        self.dropped_windows += sum(len(c.windows) for c in stale)
        # 1. New chunks into the indexes first ...
        if fresh:
            rows = [p.row for p in fresh]
            self.vectors.add(rows, vectors)
            lexical.add(lexical_doc(r) for r in rows)
            lexical.commit()
        # 2. ... then the manifest, every file in one transaction: after a crash it lags
        # the indexes, never leads them. A search serves only chunks the manifest names,
        # so the old chunks are served up to this commit and the new ones from it on:
        # deleting the old ones first left a moment where two files that traded contents
        # (a swap by renames, applied together) were found under neither name.
        # With what each file's text depends on beside it, in the same transaction.
        manifest.commit_files(
            [(plan.row, [p.row for p in plan.chunks]) for plan in plans],
            [(p.row.root, p.row.relpath, p.beside) for p in plans],
        )
        self.busy.written()  # (a lock another process held on the manifest is gone)
        # 3. ... and last the old chunks leave the indexes (a crash before this leaves
        # orphans, which the manifest does not name and the next start removes).
        if stale:
            self.vectors.release(stale)
            lexical.delete(c.chunk_id for c in stale)
            lexical.commit()
        self.counters.files_indexed += len(plans)
        self.on_applied(renewed)

    def remove(self, root: str, relpath: str, keep_problem: bool = False) -> int:
        """Drop a file's chunks from both indexes, then its manifest rows (and the reason
        it was not indexed, unless `keep_problem`); returns the chunks removed."""
        return self.remove_files(root, [relpath], keep_problem)[relpath]

    def remove_files(
        self, root: str, relpaths: Sequence[str], keep_problem: bool = False
    ) -> dict[str, int]:
        """`remove` for several files of a root, one tantivy commit per REMOVE_BATCH
        files: a folder moved or deleted whole costs a few commits, not one per file;
        returns the chunks removed per file."""
        removed: dict[str, int] = {}
        for start in range(0, len(relpaths), REMOVE_BATCH):
            removed |= self._remove_batch(
                root, relpaths[start : start + REMOVE_BATCH], keep_problem
            )
        return removed

    def _remove_batch(
        self, root: str, relpaths: Sequence[str], keep_problem: bool
    ) -> dict[str, int]:
        self.mark_unclean()
        manifest = self.stores.manifest
        chunks = {relpath: manifest.chunks_of(root, relpath) for relpath in relpaths}
        every = [c for rows in chunks.values() for c in rows]
        self.dropped_windows += sum(len(c.windows) for c in every)
        if every:  # indexes first, manifest last, as in `apply`
            self.vectors.drop_unheld(every, leaving=True)
            self.stores.lexical.delete(c.chunk_id for c in every)
            self.stores.lexical.commit()
            if (guard := manifest.guard) is not None:
                guard.room_made()
        for relpath, rows in chunks.items():
            has_problem = not keep_problem and manifest.problem(root, relpath) is not None
            if rows or manifest.file(root, relpath) or has_problem:
                manifest.remove_file(root, relpath)
                self.busy.written()
                if rows:
                    self.counters.files_removed += 1
        if every:  # the texts still held elsewhere: their scope narrows now, not before
            self.vectors.narrow(every)
        return {relpath: len(rows) for relpath, rows in chunks.items()}

    def forget_root(self, root: str, removed: Callable[[str, int], None]) -> None:
        """Remove every file of a root (`removed(relpath, chunks)` for each), then the
        rest of what the manifest holds for it."""
        self.mark_unclean()
        relpaths = [row.relpath for row in self.stores.manifest.files(root)]
        for relpath, count in self.remove_files(root, relpaths).items():
            removed(relpath, count)
        self.stores.manifest.forget_root(root)

    def settle(self, root: str, relpath: str, outcome: Outcome, label: str) -> None:
        """Carry out what the planner said instead of a plan (`label`: the file, for the log)."""
        if isinstance(outcome, Unchanged):
            if outcome.stat is not None:  # same bytes, new stat: the next start skips it unread
                self.stores.manifest.touch_file(root, relpath, *outcome.stat)
                self.busy.written()
            self.counters.files_unchanged += 1
        elif isinstance(outcome, Gone):
            log.info("%s vanished before it could be read", label)
            self.removed(label, self.remove(root, relpath))
        else:
            if outcome.drop:
                self.removed(label, self.remove(root, relpath, keep_problem=True))
            self.record_problem(root, relpath, outcome.reason, label, outcome.version)
        self.busy.done(root, relpath)  # carried out, whether it wrote or not

    @staticmethod
    def removed(label: str, chunks: int) -> None:
        if chunks:
            log.info("removed %s (%d chunks)", label, chunks)

    def record_problem(
        self,
        root: str,
        relpath: str,
        reason: str,
        label: str,
        held: tuple[int, int] | None = None,
    ) -> None:
        """Record why a file is not indexed (shown by `rag status`), logged under `label`
        when the reason is new for the path. With `held`, its (size, mtime_ns), that
        version of the file is not tried again until it changes (or `rag ingest FILE`);
        without, it is retried at the next scan. The same record twice is written once."""
        size, mtime_ns = held or (None, None)
        previous = self.stores.manifest.problem(root, relpath)
        if previous is not None and previous == (reason, size, mtime_ns):
            return  # reported once already
        self.stores.manifest.record_problem(root, relpath, reason, size, mtime_ns)
        self.busy.written()
        if previous is None or not same_problem(previous[0], reason):
            # A file with no text (an empty `__init__.py`) or a link not followed is no
            # failure: info, not warning.
            level = logging.INFO if is_no_fault(reason) else logging.WARNING
            log.log(level, "skipped %s: %s", label, shown(reason))
        elif previous[0] != reason:
            log.debug("skipped %s: %s", label, shown(reason))

    def file_failed(
        self,
        root: str,
        relpath: str,
        label: str,
        exc: BaseException,
        doing: str = "indexing",
        trace: bool = True,
        needed: int | None = None,
        plan: FilePlan | None = None,
    ) -> None:
        """Indexing the file failed: logged (with the traceback when `trace`: an error
        nobody foresaw), shown in `rag status`, retried at the next scan (no stat is held,
        as the cause may be passing, e.g. a full disk). Called from the writer's handlers.

        A write the file size limit stopped is the limit's failure, not the file's: the
        guard says it once, and nothing is recorded against the file (a start under a
        larger limit indexes it). A record that cannot be written either is logged, not
        raised: raised from a handler, it kept a slow file set aside, to be embedded and
        to fail again once a second for as long as the daemon ran. `needed`: the new
        vectors of the write the limit stopped, so a file needing as many is not embedded
        for nothing (`cannot_fit`). `plan`: the file's, kept for its retry when another
        process's lock on the manifest stopped the write (`index/manifest_busy.py`)."""
        guard = self.stores.manifest.guard
        if guard is not None and guard.reached_limit(exc):
            guard.left_out.add((root, relpath))
            if needed is not None:
                guard.stopped(needed)
            log.info("not indexed: %s (the file size limit)", label)
            return
        if self.busy.retry_later(root, relpath, label, exc, plan):
            return  # the manifest is locked by another process: queued again, said once
        if guard is not None and self.busy.requeue is not None and guard.full_now(exc):
            # The disk's failure, not the file's: another program filled it between the
            # guard's look and this write. Recorded as the file's, it was tried again only
            # at the next scan, and a watched root is scanned only at start (attack75).
            # Queued again, its writes wait for room like every other.
            log.info("%s is written once space returns", label)
            self.busy.requeue(root, relpath)
            return
        if trace:
            log.error("%s %s failed", doing, label, exc_info=exc)
        else:
            log.error("%s %s failed: %s", doing, label, brief(exc))
        try:
            self.record_problem(root, relpath, f"indexing failed ({brief(exc)})", label)
        except Exception as again:  # the manifest cannot be written either
            log.warning("could not record why %s failed: %s", label, brief(again))

    def cannot_fit(self, root: str, relpath: str, label: str, windows: Iterable[str]) -> bool:
        """Leave a file out, unembedded, when a write of no more new vectors than its
        `windows` (hashes) need was stopped by the file size limit and no file was removed
        since; listed with the files the limit stopped (`rag status`). False: embed it."""
        guard = self.stores.manifest.guard
        if guard is None or not guard.stopped_any:
            return False  # nothing stopped (the usual case): no cache look-up
        hashes = list(windows)
        needed = len(hashes) - len(self.cached(hashes))
        if not guard.cannot_fit(needed):
            return False
        guard.left_out.add((root, relpath))
        log.info("not indexed: %s (the file size limit: no room for %d new vectors)", label, needed)
        return True

    def limit_reached(self, exc: BaseException) -> bool:
        """A write outside any one file's (the cache's prune, a batch) stopped by the file
        size limit: said once by the guard, so no traceback is needed."""
        guard = self.stores.manifest.guard
        return guard is not None and guard.reached_limit(exc)

    # -- the daemon's bookkeeping --------------------------------------------------
    def remember_roots(self, roots_json: str, wait: bool = True) -> None:
        """Store the roots (no write if unchanged). `wait=False`, for a start on a full
        disk: kept in memory and written with the clean-stop flag, before the first index
        write (which waits for room) or at the stop. The loader waited for room here, so
        a restart naming a new root held the daemon at "starting", every search refused,
        for as long as the disk was full."""
        if roots_json == self.stores.manifest.get_meta("roots"):
            self._unsaved_roots = None
        elif wait:
            self.stores.manifest.set_meta("roots", roots_json)
            self._unsaved_roots = None
        else:
            self._unsaved_roots = roots_json

    def remember(self, key: str, value: str) -> None:
        """A value the daemon keeps across restarts (the learned gate floor)."""
        self.stores.manifest.set_meta(key, value)

    def mark_clean(self, clean: bool) -> None:
        """The clean-stop flag: cleared before the first write (`mark_unclean`), set by
        an orderly shutdown, after the last write, with the vector index's seal (so the
        next start need not probe it: ragd.index.vector_seal)."""
        if (unsaved := self._unsaved_roots) is not None:
            self.remember_roots(unsaved)
        if clean and (folder := self.stores.dense.sealable_folder()) is not None:
            vector_seal.seal(self.stores.manifest, folder)
        self.stores.manifest.set_meta(vector_seal.CLEAN_KEY, "1" if clean else "0")

    def mark_unclean(self) -> None:
        """Clear the clean-stop flag, once, before the first write that changes the
        indexes: from then on a crash must not pass for a clean stop. The flag is a
        manifest write, so on a full disk it waits for room like every write (and is
        cleared when space returns, just before the write that waited). Two threads
        racing here both write "0": harmless, and no thread waits on another."""
        if not self._unclean:
            self.mark_clean(False)
            self._unclean = True

    def ensure_fingerprint(self, wanted: str) -> bool:
        """Drop all indexed state if the fingerprint changed (`store.fingerprint`); True
        when it did. The embedding cache stays: a rebuild reuses what still applies."""
        stored = self.stores.manifest.get_meta("fingerprint")
        if stored == wanted:
            return False
        if stored is not None:
            log.warning("index fingerprint changed; rebuilding the indexes from the documents")
        self.stores.dense.reset()
        self.stores.lexical.reset()
        self.stores.manifest.clear_index_tables()
        self.stores.manifest.set_meta("fingerprint", wanted)
        return stored is not None

    # -- start-up repair -----------------------------------------------------------
    def repair(self, report: IndexReport, window_text: WindowText) -> int:
        """Make both indexes match the manifest (`consistency.compare` found how they
        differ); returns embeddings computed. `window_text` rebuilds a window whose
        cached vector was lost."""
        self.mark_unclean()
        stores = self.stores
        if report.manifest_orphans or report.manifest_dangling:
            # The manifest commits a file's row and its chunk rows in one transaction, so
            # this means outside damage; the start-up reconcile re-indexes from the documents.
            log.error(
                "manifest damaged: %d chunk rows without a file, %d file chunk ids without a row",
                len(report.manifest_orphans),
                len(report.manifest_dangling),
            )
        if report.lexical_duplicates:
            # Which ids are doubled is not visible through the searcher: rebuild from the manifest.
            stores.lexical.reset()
            report.lexical_orphans = set()
            report.lexical_missing = set(stores.manifest.all_chunk_windows())
        if report.dense_orphans:
            stores.dense.delete(sorted(report.dense_orphans))
        if report.lexical_orphans:
            stores.lexical.delete(sorted(report.lexical_orphans))
        if report.lexical_missing:
            rows = stores.manifest.chunk_rows(report.lexical_missing)
            stores.lexical.add(lexical_doc(r) for r in rows.values())
        stores.lexical.commit()
        return self._restore_vectors(report.dense_missing, window_text)

    def rebuild_lexical(self) -> None:
        """The lexical index rebuilt from the manifest's chunk rows (a read found it
        damaged: `TantivyIndex.damaged`); nothing is parsed or embedded again."""
        stores = self.stores
        why = stores.lexical.damaged
        rows = stores.manifest.chunk_rows(stores.manifest.all_chunk_windows())
        stores.lexical.rebuild(lexical_doc(r) for r in rows.values())
        log.warning("rebuilt the lexical index from the manifest (%d chunks): %s", len(rows), why)

    def rescope(self, stop: Callable[[], bool] | None = None) -> int:
        """Every text's scope made its holders' where the vector store holds another (a
        server put back to an older copy: `VectorPlacer.rescope`), until `stop()` (by
        default, until shutdown); returns how many."""
        hashes = sorted(self.stores.manifest.window_hashes())
        relabelled = self.vectors.rescope(hashes, stop or self.stopping.is_set)
        if relabelled:
            log.warning("vector index: %d texts had an older scope; relabelled", relabelled)
        return relabelled

    def _restore_vectors(self, missing: set[str], window_text: WindowText) -> int:
        """Put the missing window texts' vectors back from the embedding cache; returns
        embeddings computed for texts the cache lost (should not happen)."""
        if not missing:
            return 0
        hashes = sorted(missing)
        cached = self.cached(hashes)
        lost = [h for h in hashes if h not in cached]
        holders = self.stores.manifest.window_holders(lost)
        rows = self.stores.manifest.chunk_rows({h[0] for held in holders.values() for h in held})
        texts: dict[str, str] = {}
        unrebuilt: set[tuple[str, str]] = set()
        for text_hash, held in holders.items():
            # Any holder's chunk rebuilds the text (the same heading path and block).
            text = next(
                (
                    rebuilt
                    for cid, position, _, _ in held
                    if cid in rows and (rebuilt := window_text(rows[cid], position)) is not None
                ),
                None,
            )
            if text is None:
                unrebuilt.update((root, relpath) for _, _, root, relpath in held)
            else:
                texts[text_hash] = text
        for root in sorted({root for root, _ in unrebuilt}):
            # Cannot be rebuilt: re-indexed from the documents (the reconcile finds them).
            relpaths = sorted(rel for r, rel in unrebuilt if r == root)
            for relpath in relpaths:
                log.warning("re-indexing %s: a cached vector was lost", relpath)
            self.remove_files(root, relpaths)
        if texts:
            cached.update(self.embed(texts, list(texts)))
        self.vectors.restore(hashes, cached)
        return len(texts)


def by_length(hashes: Iterable[str], windows: dict[str, str]) -> list[str]:
    """Window hashes shortest text first. The encoder pads each batch to its longest
    window, and each slice of EMBED_SLICE is one encoder call that sorts only within
    itself: slices of one length band leave almost no padding, slices in file order
    mix a file's one-line list items with its long paragraphs (docs/performance.md)."""
    return sorted(hashes, key=lambda h: len(windows[h]))


def brief(exc: BaseException) -> str:
    """An exception as a one-line reason: its type and the start of its message."""
    text = " ".join(str(exc).split())[:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
