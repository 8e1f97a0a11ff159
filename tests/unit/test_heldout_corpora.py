"""The held-out folders can be built again: every row of bench/heldout/README.md has a
corpus in bench/heldout_corpora.HELDOUT, and every corpus there has a row and a questions
file. Nothing is built or fetched here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from bench.heldout_corpora import (
    DIGESTS,
    HELDOUT,
    question_digest,
    readme_rows,
    recorded_digests,
    ruby_gem,
)
from bench.heldout_eval import eval_rows


def test_every_readme_row_has_a_corpus_and_every_corpus_a_row_and_questions() -> None:
    rows = readme_rows()
    names = [corpus.name for corpus in HELDOUT]
    assert rows, "no rows read from bench/heldout/README.md"
    assert sorted(rows) == sorted(names)
    assert len(set(names)) == len(names)
    missing = [c.name for c in HELDOUT if not c.questions.is_file()]
    assert missing == []
    assert all(c.questions.parent.name == c.name for c in HELDOUT)


def test_each_folder_digest_and_question_file_is_the_one_its_row_records() -> None:
    """The digest a folder is built against is the one its README row records, and its
    questions.jsonl has the sha256 recorded when they were frozen: a question reworded or a
    folder repinned without its row saying so fails here, not in the next `make eval`."""
    assert recorded_digests() == DIGESTS
    assert all(corpus.digest == DIGESTS[corpus.name] for corpus in HELDOUT)
    changed = [
        corpus.name
        for corpus in HELDOUT
        if question_digest(corpus.name) != hashlib.sha256(corpus.questions.read_bytes()).hexdigest()
    ]
    assert changed == []


def _write(folder: Path, name: str, rows: list[dict[str, object]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(row) + "\n" for row in rows))


def test_an_answerable_question_without_a_label_stops_the_conversion(tmp_path: Path) -> None:
    """A question its writer meant as answerable whose label is missing is a mistake in the
    folder, not a hard negative: counted as one it would move the fit without a word."""
    folder = tmp_path / "nu99"
    asked = [
        {"id": "a1", "kind": "answerable", "question": "How do I moor the ferry?"},
        {"id": "a2", "kind": "answerable", "question": "Who steers at night?"},
        {"id": "o1", "kind": "off_topic", "question": "How do I bake bread?"},
    ]
    _write(folder, "questions.jsonl", asked)
    _write(folder, "labels.jsonl", [{"id": "a1", "answerable": False}])
    with pytest.raises(ValueError, match="a2"):
        eval_rows(folder)
    _write(
        folder,
        "labels.jsonl",
        [
            {"id": "a1", "answerable": False},
            {"id": "a2", "answerable": True, "sources": ["crew.md"], "facts": ["the mate"]},
        ],
    )
    rows = eval_rows(folder)
    assert [row["kind"] for row in rows] == ["hard_negative", "plain", "off_topic"]
    assert rows[1]["expected"] == [{"source": "crew.md", "heading": ""}]


def test_a_hard_negative_the_folder_answers_is_scored_as_its_label_says(tmp_path: Path) -> None:
    """A hard negative the folder turned out to answer is never scored as absent: labelled
    with its facts and files it is an answerable question (as bench/heldout.py counts it);
    labelled answerable without them, the conversion names it."""
    folder = tmp_path / "nu98"
    asked = [{"id": "h1", "kind": "hard_negative", "question": "Can the ferry fly?"}]
    _write(folder, "questions.jsonl", asked)
    _write(folder, "labels.jsonl", [{"id": "h1", "answerable": True, "facts": ["wings"]}])
    with pytest.raises(ValueError, match="h1"):
        eval_rows(folder)
    label = {"id": "h1", "answerable": True, "sources": ["ferry.md"], "facts": ["no wings"]}
    _write(folder, "labels.jsonl", [label])
    (row,) = eval_rows(folder)
    assert row["answerable"] and row["kind"] == "plain"
    assert row["facts"] == ["no wings"]
    assert row["expected"] == [{"source": "ferry.md", "heading": ""}]


@pytest.mark.parametrize(
    ("gem", "name"),
    [
        ("rack-2.2.22", "rack"),
        ("rack-protection-3.0.5", "rack-protection"),
        (
            "nokogiri-1.15.4-x86_64-linux",
            "nokogiri",
        ),  # a platform gem: the name ends at the version
    ],
)
def test_a_gem_is_kept_under_its_whole_name(gem: str, name: str) -> None:
    """`rack-protection-3.0.5` was kept under `rack/`, on top of Rack's own files (fixes43)."""
    code, spec, doc = ruby_gem(("ruby-x", "1", "0" * 64), gem, ("lib/*",))
    assert (code.to, spec.to, doc.to) == (name, name, f"{name}/doc")
    assert spec.keep == (f"usr/share/rubygems-integration/all/specifications/{gem}.gemspec",)
