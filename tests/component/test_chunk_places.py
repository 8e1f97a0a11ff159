"""Retrieved chunks carry their place in their file (the manifest's ordinal), so the
keyless answer can read the chunk right after the best one (query/neighbours.py)."""

from __future__ import annotations

import shutil
from contextlib import closing
from pathlib import Path

from ragd.harness.localindex import LocalIndex
from ragd.query.neighbours import around_the_best
from tests.support.daemon import REPO


def test_each_candidate_knows_its_place_and_the_best_ones_next_is_read(
    tmp_path: Path,
    embedder,  # type: ignore[no-untyped-def]
) -> None:
    folder = shutil.copytree(REPO / "sample_corpus", tmp_path / "docs")
    with closing(LocalIndex(folder, tmp_path / "data", embedder)) as index:
        result = index.retriever.search("Can I bring my dog on the ferry?", top_k=2)
        rows = index.stores.manifest.chunk_rows(c.chunk_id for c in result.candidates)
        place = {cid: row.ordinal for cid, row in rows.items()}
        assert len(result.candidates) > 2
        assert all(c.ordinal == place[c.chunk_id] for c in result.candidates)
        best = result.chunks[0]
        assert best.ordinal is not None
        after = [
            c
            for c in result.candidates
            if c.source == best.source and c.ordinal == best.ordinal + 1
        ]
        shown = around_the_best(result.chunks, result.candidates)
        on_page = {c.chunk_id for c in result.chunks}
        expected = [best, *(c for c in after if c.chunk_id not in on_page), *result.chunks[1:]]
        assert [c.chunk_id for c in shown] == [c.chunk_id for c in expected]
