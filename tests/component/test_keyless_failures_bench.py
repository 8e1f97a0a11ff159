"""bench/keyless_failures.py answers as `make eval` does: its answerer is crosseval's
(EmbedOnce's vectors and word pieces), given the retriever's question pieces.

37f1617 changed EmbedOnce to take the embedder and give two seams; the bench still built
`ExtractiveAnswerer(EmbedOnce(lambda texts: ...))`, which failed on its first question
('EmbedOnce' object is not callable)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from bench import keyless_failures

from tests.support.daemon import REPO


def test_the_bench_answers_every_question(
    tmp_path: Path, embedder, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(REPO / "sample_corpus" / "passenger-handbook.md", folder)
    questions = tmp_path / "questions.jsonl"
    asked = {"question": "Can I bring my dog on the ferry?", "answerable": True}
    questions.write_text(json.dumps(asked | {"facts": ["no such fact here"]}) + "\n")
    monkeypatch.setattr(keyless_failures, "OUT", tmp_path / "out")
    corpus = SimpleNamespace(name="docs", questions=questions, kept=lambda _out: folder)

    tally = keyless_failures.analyse_corpus(corpus, embedder, verbose=False)

    assert tally["answerable"] == 1
    assert tally["half"] == 0  # the made-up fact is in no answer: the miss is located
    assert asked["question"] in capsys.readouterr().out
