"""The keyless answer's soft coverage folds the units' word pieces batch by batch
(embedder.fold_pieces + soft_coverage.CoverageFold): the same float as the computation
over every unit's pieces at once, without ever holding them all.

Before, the answerer took every unit's PieceVectors from `embed_pieces` in one list and
kept it until soft_coverage ran: up to ≈ 200 units × 256 pieces × 384 float32 (79 MB) per
ask, and per concurrent ask."""

from __future__ import annotations

import tracemalloc
import weakref
from pathlib import Path

import numpy as np

from ragd.index.embedder import PieceFold, PieceVectors
from ragd.query.candidates import candidates_of
from ragd.query.extractive import ExtractiveAnswerer
from ragd.query.question import analyse
from ragd.query.soft_coverage import content_rows
from ragd.query.types import RetrievedChunk
from tests.support.chunks import make_chunk
from tests.support.daemon import REPO
from tests.support.model_fixture import shared_embedder

MANY = 100  # units of up to ≈ 170 word pieces: 3 batches' output in all (the memory test)
# Enough for five batches with units shorter than the question in them (both asserted):
# what the float and the one-batch checks need, at 40 % of the embedding.
SEVERAL_BATCHES = 40
QUESTION = (
    "How long before departure must passengers with vehicles and large dogs check in at "
    "the ramp, and which documents do they show at the booth?"
)


def long_paragraphs(count: int) -> list[str]:
    """Real prose: the sample corpus's words, a window of them starting further along
    for each paragraph, of 10 to 120 words (some shorter than the question, most
    longer), cut to a unit's length."""
    words = " ".join(
        " ".join(block.split())
        for path in sorted((REPO / "sample_corpus").glob("*.md"))
        for block in Path(path).read_text(encoding="utf-8").split("\n\n")
        if not block.lstrip().startswith(("#", "|", "```", "-", "*"))
    ).split(" ")
    return [" ".join(words[7 * n : 7 * n + 10 + n * 37 % 111])[:780] for n in range(count)]


def chunks(count: int) -> list[RetrievedChunk]:
    return [
        make_chunk(f"doc{n}.md", f"Part {n}", text, support=0.5)
        for n, text in enumerate(long_paragraphs(count))
    ]


def all_at_once(question: PieceVectors, units: list[PieceVectors]) -> float:
    """The computation as it was: every unit's pieces in one list, then the worst content
    piece's best cosine."""
    asked = question.vectors[content_rows(question.pieces)]
    best = np.full(len(asked), -1.0, dtype=np.float32)
    for unit in units:
        np.maximum(best, (asked @ unit.vectors.T).max(axis=1), out=best)
    return float(best.min())


def test_folded_soft_coverage_is_the_same_float_as_all_at_once() -> None:
    embedder = shared_embedder()
    retrieved = chunks(SEVERAL_BATCHES)
    texts = [c.unit.search_text for c in candidates_of(retrieved)]
    assert len(texts) > 3 * embedder.batch_size  # several batches
    shorter = sum(embedder.count_tokens(t) < embedder.count_tokens(QUESTION) for t in texts)
    assert shorter > embedder.batch_size
    answerer = ExtractiveAnswerer(
        lambda batch: embedder.embed(batch, lane="query"),
        lambda batch, fold: embedder.fold_pieces(batch, fold, lane="query"),
    )
    asked = analyse(QUESTION)
    # The question embedded by the answer, in the units' batch (no retriever's pieces):
    # longer than some units, so its batch is not the first by length.
    _, every = embedder.embed_pieces([QUESTION, *texts], lane="query")
    scored = answerer.scored(QUESTION, retrieved, asked)
    assert scored is not None and scored.soft_coverage == all_at_once(every[0], every[1:])
    # The retriever's pieces of the question given: the units' own batches.
    vectors, question = embedder.embed_pieces([QUESTION], lane="query")
    _, units = embedder.embed_pieces(texts, lane="query")
    scored = answerer.scored(QUESTION, retrieved, asked, vectors[0], question[0])
    assert scored is not None and scored.soft_coverage == all_at_once(question[0], units)


def test_an_answer_holds_one_batch_of_pieces_at_a_time() -> None:
    embedder = shared_embedder()
    retrieved = chunks(SEVERAL_BATCHES)
    alive: list[weakref.ref[np.ndarray]] = []
    most = 0

    def watched(batch: list[str], fold: PieceFold) -> np.ndarray:
        def take(index: int, pieces: PieceVectors) -> None:
            nonlocal most
            fold(index, pieces)
            alive.append(weakref.ref(pieces.vectors))
            most = max(most, sum(ref() is not None for ref in alive))

        return embedder.fold_pieces(batch, take, lane="query")

    answerer = ExtractiveAnswerer(lambda batch: embedder.embed(batch, lane="query"), watched)
    answer = answerer.answer(QUESTION, retrieved)
    assert answer.soft_coverage is not None
    assert len(alive) > 3 * embedder.batch_size
    assert most <= embedder.batch_size  # the batch being handed out, no more


def test_the_memory_an_answer_takes_is_one_batch_of_pieces_not_every_units() -> None:
    embedder = shared_embedder()
    retrieved = chunks(MANY)
    texts = [c.unit.search_text for c in candidates_of(retrieved)]
    every = sum(embedder.count_tokens(t) for t in texts) * 384 * 4  # all units' pieces
    batch = embedder.batch_size * embedder.max_tokens * 384 * 4  # one batch's output at most
    assert every > 2 * batch  # the test tells one from the other
    answerer = ExtractiveAnswerer(
        lambda texts: embedder.embed(texts, lane="query"),
        lambda texts, fold: embedder.fold_pieces(texts, fold, lane="query"),
    )
    answerer.answer(QUESTION, retrieved)  # warm: nothing first-call-only in the peak
    tracemalloc.start()
    try:
        answerer.answer(QUESTION, retrieved)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1.5 * batch, (peak, batch, every)
