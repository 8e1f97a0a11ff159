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
