"""Do the manifest, ChromaDB and tantivy agree? `ragd check` reports; start-up repairs
(`IndexWriter.repair` in index/writer.py: this module only reads).

The manifest is the truth. Chunk ids the indexes hold but the manifest does not are
orphans (a crash after the index writes, before the manifest commit) and are deleted;
chunks the manifest holds but an index lacks are re-added from the manifest's text and
the embedding cache. The disk side — is every document indexed once at its current
hash? — is checked by `check_disk`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from ragd.index.manifest import Manifest
from ragd.index.store import Stores


@dataclass
class IndexReport:
    manifest_chunks: int = 0
    dense_vectors: int = 0
    lexical_docs: int = 0
    dense_orphans: set[str] = field(default_factory=set)  # vector ids (window text hashes)
    dense_missing: set[str] = field(default_factory=set)  # vector ids (window text hashes)
    # held with a scope other than their holders give them (`shared_vectors.misscoped`):
    # too narrow, a `--in` search misses a file holding the text
    dense_misscoped: set[str] = field(default_factory=set)
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
            or self.dense_misscoped
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
    manifest: Manifest,
    dense_ids: set[str],
    lexical_ids: set[str],
    lexical_docs: int,
    dense_misscoped: AbstractSet[str] = frozenset(),
) -> IndexReport:
    """Compare the manifest with the ids each index holds (read however the caller could);
    `dense_misscoped`: the texts whose stored scope the caller found wrong."""
    windows = manifest.all_chunk_windows()
    expected_windows = manifest.window_hashes()  # one vector per distinct window text
    report = IndexReport(
        manifest_chunks=len(windows),
        dense_vectors=len(dense_ids),
        lexical_docs=lexical_docs,
        dense_misscoped=set(dense_misscoped),
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


def file_digest(path: Path) -> str | None:
    """The SHA-256 of the regular file at `path`, read in pieces; None for anything else.
    The walk saw a file, but one replaced by a FIFO before this read (a live `check` runs
    in the daemon's search pool) made the open wait for a writer for ever."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return hashlib.file_digest(stream, "sha256").hexdigest()


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
                digest = file_digest(Path(root) / rel)
            except OSError:
                continue
            if digest != row.sha256:
                report.stale.append(rel)
            chunks = manifest.chunks_of(root, rel)
            if sorted(c.chunk_id for c in chunks) != sorted(row.chunk_ids):
                report.file_chunk_mismatch.append(rel)
        report.vanished.extend(sorted(set(indexed) - on_disk))
    return report
