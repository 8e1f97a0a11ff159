"""The floor's batched searches (`Retriever.search_many`) give each bank question exactly
what `Retriever.search` gives it alone without the rescue's second look at blocks (and
the same support with it), on a real index of the sample corpus."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragd.harness.localindex import LocalIndex
from ragd.index.server_store import VectorStoreUnavailable
from ragd.query.calibration import bank_supports
from ragd.query.offtopic_bank import OFFTOPIC_BANK


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory, embedder) -> Iterator[LocalIndex]:  # type: ignore[no-untyped-def]
    tmp = tmp_path_factory.mktemp("floor-batch")
    folder = tmp / "docs"
    shutil.copytree(Path("sample_corpus"), folder)
    index = LocalIndex(folder, tmp / "data", embedder)
    yield index
    index.close()


@pytest.fixture(scope="module")
def bank_vectors(embedder) -> np.ndarray:  # type: ignore[no-untyped-def]
    return embedder.embed(list(OFFTOPIC_BANK), lane="index")  # type: ignore[no-any-return]


def test_batched_searches_match_one_by_one(sample_index: LocalIndex, bank_vectors) -> None:  # type: ignore[no-untyped-def]
    retriever = sample_index.retriever
    questions = list(OFFTOPIC_BANK[:64])
    batched = retriever.search_many(questions, bank_vectors[:64], top_k=5)
    assert len(batched) == len(questions)
    for question, vector, together in zip(questions, bank_vectors[:64], batched, strict=True):
        # The bank's questions read support only: no second look at blocks for them.
        alone = retriever.search(question, top_k=5, vector=vector, second_look=False)
        assert together.gate == alone.gate, question
        assert together.candidates == alone.candidates, question
        assert together.chunks == alone.chunks and together.note == alone.note
        # With the second look a refused question may be rescued, but what the floor
        # reads of it, its support, is the same.
        looked = retriever.search(question, top_k=5, vector=vector)
        assert looked.gate.support == together.gate.support, question
        assert looked.gate.signals["topical"] == together.gate.signals["topical"], question


def test_floor_supports_are_the_searches_supports(sample_index: LocalIndex, bank_vectors) -> None:  # type: ignore[no-untyped-def]
    retriever = sample_index.retriever
    supports = bank_supports(retriever, bank_vectors, lambda: False)
    assert supports is not None and len(supports) == len(OFFTOPIC_BANK)
    alone = [
        retriever.search(question, top_k=5, vector=vector).gate.support
        for question, vector in zip(OFFTOPIC_BANK, bank_vectors, strict=True)
    ]
    assert supports == alone
    assert len(set(supports)) > 10  # real, varied scores, not one value repeated


def test_a_pause_stops_between_slices(sample_index: LocalIndex, bank_vectors) -> None:  # type: ignore[no-untyped-def]
    asked = []

    def pause() -> bool:
        asked.append(1)
        return len(asked) > 2  # stop before the third slice

    assert bank_supports(sample_index.retriever, bank_vectors, pause) is None
    assert len(asked) == 3


def test_no_floor_from_searches_the_vector_store_could_not_answer(
    sample_index: LocalIndex,
    bank_vectors,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While the vector store is down the searches answer from BM25 alone, whose support
    is lower: a floor learned from them would let off-subject questions through."""

    def down(*_: object) -> None:
        raise VectorStoreUnavailable("vector store unreachable: http://127.0.0.1:1: refused")

    monkeypatch.setattr(sample_index.retriever.stores.dense, "query_many", down)
    assert bank_supports(sample_index.retriever, bank_vectors, lambda: False) is None
