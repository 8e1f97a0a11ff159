"""Do the manifest, ChromaDB and tantivy agree? `ragd check` reports; start-up repairs.

The manifest is the truth. Chunk ids the indexes hold but the manifest does not are
orphans (a crash after the index writes, before the manifest commit) and are deleted;
chunks the manifest holds but an index lacks are re-added from the manifest's text and
the embedding cache. The disk side — is every document indexed once at its current
hash? — is checked by `check_disk`.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragd.index.dense import chunk_of, window_id
from ragd.index.embedder import Embedder
from ragd.index.lexical import LexicalDoc
from ragd.index.manifest import Manifest
from ragd.index.store import Stores

log = logging.getLogger(__name__)


@dataclass
class IndexReport:
    manifest_chunks: int = 0
    dense_vectors: int = 0
    lexical_docs: int = 0
    dense_orphans: set[str] = field(default_factory=set)  # window ids
    dense_missing: set[str] = field(default_factory=set)  # window ids
    lexical_orphans: set[str] = field(default_factory=set)  # chunk ids
    lexical_missing: set[str] = field(default_factory=set)  # chunk ids
    lexical_duplicates: int = 0  # documents beyond one per chunk id
    manifest_orphans: set[str] = field(default_factory=set)  # chunk rows no file row lists
    manifest_dangling: set[str] = field(default_factory=set)  # listed by a file, no chunk row

    @property
    def consistent(self) -> bool:
        return not (
            self.dense_orphans
            or self.dense_missing
            or self.lexical_orphans
            or self.lexical_missing
            or self.lexical_duplicates
            or self.manifest_orphans
            or self.manifest_dangling
        )


@dataclass
class DiskReport:
    files_on_disk: int = 0
    files_indexed: int = 0
    not_indexed: list[str] = field(default_factory=list)  # relpaths
    stale: list[str] = field(default_factory=list)  # indexed at another hash
    vanished: list[str] = field(default_factory=list)  # indexed but gone from disk
    file_chunk_mismatch: list[str] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not (self.not_indexed or self.stale or self.vanished or self.file_chunk_mismatch)


def compare(stores: Stores) -> IndexReport:
    return compare_ids(
        stores.manifest, stores.dense.all_ids(), stores.lexical.all_ids(), stores.lexical.num_docs()
    )


def compare_ids(
    manifest: Manifest, dense_ids: set[str], lexical_ids: set[str], lexical_docs: int
) -> IndexReport:
    """Compare the manifest with the ids each index holds (read however the caller could)."""
    windows = manifest.all_chunk_windows()
    expected_windows = {window_id(cid, i) for cid, n in windows.items() for i in range(n)}
    report = IndexReport(
        manifest_chunks=len(windows), dense_vectors=len(dense_ids), lexical_docs=lexical_docs
    )
    report.dense_orphans = dense_ids - expected_windows
    report.dense_missing = expected_windows - dense_ids
    report.lexical_orphans = lexical_ids - set(windows)
    report.lexical_missing = set(windows) - lexical_ids
    report.lexical_duplicates = report.lexical_docs - len(lexical_ids)
    listed = {cid for row in manifest.files() for cid in row.chunk_ids}
    report.manifest_orphans = set(windows) - listed
    report.manifest_dangling = listed - set(windows)
    return report


def repair(stores: Stores, embedder: Embedder, report: IndexReport) -> int:
    """Make both indexes match the manifest; returns embeddings computed."""
    if report.manifest_orphans or report.manifest_dangling:
        # The manifest commits a file's row and its chunk rows in one transaction, so this
        # means outside damage; the start-up reconcile re-indexes from the documents.
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
    computed = 0
    needed = {chunk_of(w) for w in report.dense_missing} | report.lexical_missing
    rows = stores.manifest.chunk_rows(needed)
    if report.dense_missing:
        by_window: dict[str, str] = {}
        for wid in report.dense_missing:
            cid, index = wid.rsplit("#", 1)
            by_window[wid] = rows[cid].windows[int(index)]
        cached = stores.manifest.cached_vectors(embedder.model_id, list(by_window.values()))
        lacking = [w for w, h in by_window.items() if h not in cached]
        if lacking:
            # The cache lost a vector (should not happen): rebuild the window text from the
            # chunk and embed it again; a file whose window cannot be rebuilt is re-indexed.
            fresh: dict[str, np.ndarray] = {}
            for wid in lacking:
                cid, index = wid.rsplit("#", 1)
                row = rows[cid]
                text = _window_text(row.heading, row.text, int(index), row.windows, embedder)
                if text is None:
                    _forget_file(stores, row.root, row.relpath)
                    del by_window[wid]
                    continue
                fresh[by_window[wid]] = embedder.embed([text])[0]
                computed += 1
            cached.update(fresh)
            stores.manifest.store_vectors(embedder.model_id, fresh)
            by_window = {w: h for w, h in by_window.items() if h in cached}
        ids = sorted(by_window)
        if ids:
            stores.dense.upsert(ids, np.stack([cached[by_window[w]] for w in ids]))
    if report.lexical_missing:
        stores.lexical.add(
            LexicalDoc(r.chunk_id, r.relpath, r.heading, r.text)
            for cid, r in rows.items()
            if cid in report.lexical_missing
        )
    stores.lexical.commit()
    return computed


def _window_text(
    heading: str, text: str, index: int, hashes: tuple[str, ...], embedder: Embedder
) -> str | None:
    """The exact text of window `index`, found by its stored hash.

    A chunk embeds only its own paragraphs, not the overlap carried from the previous
    chunk, so the embedded text is a suffix of the chunk text starting at a paragraph break.
    """
    from ragd.index.windows import make_windows

    starts = [0] + [i + 2 for i in range(len(text)) if text.startswith("\n\n", i)]
    for start in starts:
        windows = make_windows(heading, text[start:], embedder.count_tokens, embedder.max_tokens)
        if index < len(windows) and _sha(windows[index]) == hashes[index]:
            return windows[index]
    return None


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _forget_file(stores: Stores, root: str, relpath: str) -> None:
    """Drop a file from the manifest and both indexes so the reconcile walk re-indexes it."""
    chunks = stores.manifest.chunks_of(root, relpath)
    stores.dense.delete(window_id(c.chunk_id, i) for c in chunks for i in range(len(c.windows)))
    stores.lexical.delete(c.chunk_id for c in chunks)
    stores.manifest.remove_file(root, relpath)
    log.warning("re-indexing %s: a cached vector was lost", relpath)


def check_disk(manifest: Manifest, roots: list[str], accepted: dict[str, list[str]]) -> DiskReport:
    """Compare what is on disk (`accepted`: root → relpaths) with the manifest's files."""
    report = DiskReport()
    problems = {(root, rel) for root, rel, _ in manifest.problems()}
    for root in roots:
        indexed = {row.relpath: row for row in manifest.files(root)}
        report.files_indexed += len(indexed)
        on_disk = set(accepted.get(root, []))
        report.files_on_disk += len(on_disk)
        for rel in sorted(on_disk):
            row = indexed.get(rel)
            if row is None:
                if (root, rel) not in problems:
                    report.not_indexed.append(rel)
                continue
            try:
                digest = hashlib.sha256((Path(root) / rel).read_bytes()).hexdigest()
            except OSError:
                continue
            if digest != row.sha256:
                report.stale.append(rel)
            chunks = manifest.chunks_of(root, rel)
            if sorted(c.chunk_id for c in chunks) != sorted(row.chunk_ids):
                report.file_chunk_mismatch.append(rel)
        report.vanished.extend(sorted(set(indexed) - on_disk))
    return report
