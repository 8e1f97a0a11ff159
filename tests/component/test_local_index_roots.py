"""The in-process index of `make eval` serves one folder per data dir: opened on the same
folder at another path (a symlinked bench/out, a second checkout), it drops what it held
under the old path instead of searching both — every passage once, not twice."""

from __future__ import annotations

import shutil
from pathlib import Path

from ragd.harness.localindex import LocalIndex
from tests.support.daemon import REPO


def test_a_data_dir_reopened_on_another_path_holds_one_copy(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    first, second = tmp_path / "a" / "notes", tmp_path / "b" / "notes"
    for folder in (first, second):
        folder.mkdir(parents=True)
        shutil.copy(REPO / "sample_corpus" / "harbour-notices.txt", folder)
    data = tmp_path / "data"
    index = LocalIndex(first, data, embedder)
    once = index.chunk_count()
    index.close()

    index = LocalIndex(second, data, embedder)
    try:
        assert once > 0
        assert index.chunk_count() == once
        roots = index.stores.manifest.counts_by_root()
        assert list(roots) == [str(second.absolute())]
        hits = index.retriever.search("harbour notices for passengers", top_k=10).chunks
        ids = [(hit.source, hit.heading, hit.text) for hit in hits]
        assert hits and len(ids) == len(set(ids))  # no passage twice
    finally:
        index.close()


def test_a_run_cut_short_leaves_no_passage_twice(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    # A measurement killed mid-file leaves that file's chunks in both indexes and not in
    # the manifest (it commits last). The next run repairs first, as the daemon's start
    # does: re-adding them over the leftovers doubled them in tantivy, and re-upserting
    # existing ids into Chroma's HNSW index runs about ten times slower than adding.
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("harbour-notices.txt", "release-notes.md"):
        shutil.copy(REPO / "sample_corpus" / name, folder)
    data = tmp_path / "data"
    index = LocalIndex(folder, data, embedder)
    chunks = index.chunk_count()
    root = str(folder.absolute())
    index.stores.manifest.remove_file(root, "release-notes.md")  # as if killed before its commit
    index.close()

    index = LocalIndex(folder, data, embedder)
    try:
        windows = index.stores.manifest.all_chunk_windows()
        assert index.chunk_count() == chunks
        assert index.stores.lexical.num_docs() == len(windows) == chunks
        assert index.stores.dense.count() == sum(windows.values())
    finally:
        index.close()
