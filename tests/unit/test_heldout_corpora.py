"""The held-out folders can be built again: every row of bench/heldout/README.md has a
corpus in bench/heldout_corpora.HELDOUT, and every corpus there has a row and a questions
file. Nothing is built or fetched here."""

from __future__ import annotations

from bench.heldout_corpora import HELDOUT, readme_rows


def test_every_readme_row_has_a_corpus_and_every_corpus_a_row_and_questions() -> None:
    rows = readme_rows()
    names = [corpus.name for corpus in HELDOUT]
    assert rows, "no rows read from bench/heldout/README.md"
    assert sorted(rows) == sorted(names)
    assert len(set(names)) == len(names)
    missing = [c.name for c in HELDOUT if not c.questions.is_file()]
    assert missing == []
    assert all(c.questions.parent.name == c.name for c in HELDOUT)
