"""`make eval`'s in-process answers get the question's word pieces as the daemon's do:
from the retriever's own pass over the question (RetrievalResult.query_pieces), never
from a second pass in the answer.

The daemon hands the answerer the retriever's vector and pieces (serve/ask.py);
crosseval.measure handed it the vector only, so the harness's answerer embedded every
question again beside its units: a cost the daemon no longer pays, and question pieces
from another pass than the ones the daemon's soft coverage reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from ragd.harness import crosseval
from ragd.query.offtopic_bank import OFFTOPIC_BANK
from tests.support.daemon import REPO

QUESTIONS = (
    "Can I bring my dog on the ferry?",
    "How early must cars be at the ramp before sailing?",
)


class CountingEmbedder:
    """The real embedder, counting how many times each text goes through `embed_pieces`."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self.pieces_of: dict[str, int] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)

    def embed_pieces(self, texts: Any, lane: Any = "query") -> Any:
        for text in texts:
            self.pieces_of[text] = self.pieces_of.get(text, 0) + 1
        return self._embedder.embed_pieces(texts, lane)


def test_each_question_is_embedded_once_as_in_the_daemon(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(REPO / "sample_corpus" / "passenger-handbook.md", folder)
    questions = tmp_path / "questions.jsonl"
    lines = [json.dumps({"question": q, "answerable": True}) for q in QUESTIONS]
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counting = CountingEmbedder(embedder)
    bank = embedder.embed(list(OFFTOPIC_BANK), lane="index")

    run = crosseval.measure("docs", folder, questions, tmp_path / "data", counting, bank)

    assert [a.question.question for a in run.asked] == list(QUESTIONS)
    assert all(a.soft_coverage is not None for a in run.asked)  # the pieces were read
    assert {q: counting.pieces_of[q] for q in QUESTIONS} == dict.fromkeys(QUESTIONS, 1)


def test_the_harness_keeps_word_pieces_within_a_budget_and_answers_alike(embedder) -> None:  # type: ignore[no-untyped-def]
    """EmbedOnce kept every distinct unit's word pieces for a whole corpus (≈ 225 MB on a
    big one); it keeps the vectors and, within a budget, the pieces most recently shown,
    embedding a unit again when its pieces were let go."""
    from ragd.query.extractive import ExtractiveAnswerer
    from tests.component.test_soft_coverage_fold import chunks

    retrieved = chunks(40)
    budget = 2**20  # a few dozen units' pieces, of the 40 shown every time
    small = crosseval.EmbedOnce(counted := CountingEmbedder(embedder), piece_budget=budget)
    whole = crosseval.EmbedOnce(embedder, piece_budget=2**40)
    tight = ExtractiveAnswerer(small.vectors, small.with_pieces)
    roomy = ExtractiveAnswerer(whole.vectors, whole.with_pieces)
    for question in [*QUESTIONS, *QUESTIONS]:
        vectors, pieces = embedder.embed_pieces([question], lane="query")
        given = {"query_vector": vectors[0], "query_pieces": pieces[0]}
        kept = tight.answer(question, retrieved, **given)
        every = roomy.answer(question, retrieved, **given)
        assert kept.soft_coverage is not None
        assert (kept.text, kept.soft_coverage) == (every.text, every.soft_coverage)
        assert small.piece_bytes <= budget < whole.piece_bytes
    assert not counted.pieces_of  # the units go through fold_pieces, keeping nothing
