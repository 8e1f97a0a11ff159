"""A read of the vector index that ChromaDB fails (its `InternalError: Error finding id`
was seen once during a search beside a delete) costs that search its vector half, not
the search: it answers from BM25 and says why (`dense.ReadFailed`), and the next search
asks the store again."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromadb.errors import InternalError

from ragd.core.config import LiveSettings, Settings
from ragd.core.roots import Roots
from ragd.index.dense import ReadFailed
from ragd.index.store_process import StoreProcess, _Call
from ragd.query.retrieval import Retriever
from tests.component.test_index_stores import index_two_files


def test_a_failed_vector_read_answers_from_bm25_with_a_note(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    stores, _, root = index_two_files(tmp_path, embedder)
    retriever = Retriever(stores, embedder, Roots([str(root)]), LiveSettings(Settings()))
    collection = stores.dense._collection  # type: ignore[attr-defined]
    real_query = collection.query
    failures = iter([InternalError("Error finding id")])

    def query_once_failing(*args, **kwargs):  # type: ignore[no-untyped-def]
        for failure in failures:
            raise failure
        return real_query(*args, **kwargs)

    monkeypatch.setattr(collection, "query", query_once_failing)
    failed = retriever.search("When are invoices emailed?")
    assert "vector store read failed (InternalError: Error finding id)" in failed.note
    assert failed.chunks and failed.chunks[0].heading.endswith("Invoices")
    assert all(c.vector_rank is None for c in failed.candidates)
    again = retriever.search("When are invoices emailed?")
    assert again.note == ""
    assert any(c.vector_rank is not None for c in again.candidates)


def test_the_worker_process_reports_a_failed_read_as_one() -> None:
    """The daemon's store runs in a worker: its ReadFailed crosses as (kind, text) and is
    raised again as itself, which the search catches (not as StoreProcessError)."""
    store = StoreProcess.__new__(StoreProcess)
    call = _Call(1, "query_many", 1.0)
    call.reply = ("error", ("ReadFailed", "vector store read failed (InternalError: x)"))
    with pytest.raises(ReadFailed, match="InternalError: x"):
        store._outcome(None, call)  # type: ignore[arg-type]
