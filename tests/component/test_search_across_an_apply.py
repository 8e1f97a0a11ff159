"""A search reads the indexes, then the manifest, and serves the chunks both hold; the
writer applies two files that trade contents (a swap by renames) in one step: new chunks
into the indexes, the manifest's commit, the old chunks out (`IndexWriter.apply`).

An apply that landed whole between a search's two reads left that search with the old
chunks from the indexes and the new names from the manifest: no copy of either content
(the likely cause of one poll of `tests/daemon/test_swap_stays_searchable.py` in about
five full-suite runs on a loaded machine). The search now reads both again when the
manifest was committed between them (`query/retrieval.py`, READS). Here the apply is
made to land exactly there, on its own thread (its own manifest connection, as the
daemon's writer)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ragd.core.config import LiveSettings, Settings
from ragd.core.roots import Roots
from ragd.index.plan import FilePlan
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest.planner import Planner
from ragd.query.retrieval import Retriever

ALPHA = b"# Alpha\n\nThe narwhalite glows in the alpha file.\n"
BETA = b"# Beta\n\nThe quokkanite hums in the beta file.\n"


def plan(planner: Planner, root: str, relpath: str, data: bytes) -> FilePlan:
    planned = planner.plan_bytes(root, relpath, data)
    assert isinstance(planned, FilePlan)
    return planned


@pytest.mark.parametrize("mode", ["bm25", "hybrid"])
def test_a_search_an_apply_lands_inside_finds_each_swapped_content(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "notes"
    root.mkdir()
    r = str(root)
    stores = Stores.open(tmp_path / "data")
    writer, planner = IndexWriter(stores, embedder), Planner(embedder)
    writer.index_files([plan(planner, r, "a.md", ALPHA), plan(planner, r, "b.md", BETA)])
    swap = [plan(planner, r, "a.md", BETA), plan(planner, r, "b.md", ALPHA)]
    retriever = Retriever(stores, embedder, Roots([r]), LiveSettings(Settings()))
    read_rows = stores.manifest.chunk_rows
    applies = 0

    def apply_first(chunk_ids):  # type: ignore[no-untyped-def]
        """The search has read the indexes: the whole swap is applied now, once."""
        nonlocal applies
        if swap:
            applies += 1
            writer_thread = threading.Thread(target=writer.index_files, args=(swap.copy(),))
            swap.clear()
            writer_thread.start()
            writer_thread.join()
        return read_rows(chunk_ids)

    monkeypatch.setattr(stores.manifest, "chunk_rows", apply_first)
    assert holding("narwhalite", retriever, mode) == ["b.md"]
    assert applies == 1
    # Nothing is left over from the old names once the apply is done.
    assert holding("quokkanite", retriever, mode) == ["a.md"]


def holding(word: str, retriever: Retriever, mode: str) -> list[str]:
    """The sources of the candidates that hold `word` (the dense retriever brings the
    small index's every chunk)."""
    return [c.source for c in retriever.search(word, mode=mode).candidates if word in c.text]
