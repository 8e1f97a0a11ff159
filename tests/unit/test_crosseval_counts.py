"""The held-out report's counts (ragd.harness.crosseval.row), from kept measurements."""

from __future__ import annotations

from typing import Any

from ragd.harness import crosseval
from ragd.harness.gatefit import SHIPPED

STRONG = {
    "support": 0.95,
    "cosine": 0.9,
    "coverage": 1.0,
    "identifiers": 1.0,
    "agreement": 1.0,
    "standout": 3.0,
    "unseen": 0.0,
    "type_missing": 0.0,
    "topical": 0.3,
}


def hard_negative(question: str, signals: dict[str, float], quote: float, unit: float) -> Any:
    return {
        "question": question,
        "answerable": False,
        "kind": "hard_negative",
        "signals": signals,
        "facts": 0,
        "fact_share": None,
        "quote_coverage": quote,
        "unit_cosine": unit,
        "hit": False,
    }


def kept_toy(*asked: Any) -> crosseval.CorpusRun:
    """A corpus's kept measurements (measured.json's form) holding these questions."""
    return crosseval.from_json(
        "toy",
        {
            "chunks": 10,
            "bank": [0.3] * 288,
            "bank_signals": [],
            "bank_topical": [0.2] * 288,
            "asked": list(asked),
        },
    )


def test_a_hard_negative_counts_as_held_when_refused_or_answered_with_a_low_label() -> None:
    weak = STRONG | {"support": 0.05, "cosine": 0.1, "coverage": 0.0, "topical": 0.0}
    middling = STRONG | {"support": 0.45, "cosine": 0.45, "coverage": 0.3}  # over the floor
    run = kept_toy(
        hard_negative("refused", weak, 0.0, 0.0),
        hard_negative("quoted, holds the question", STRONG, 1.0, 0.9),
        hard_negative("quoted, holds nothing of it", middling, 0.0, 0.05),
    )
    result = crosseval.row(run, SHIPPED)
    labels = {
        a.question.question: SHIPPED.label(
            run.x(a.signals), a.quote_coverage, a.unit_cosine, a.soft_coverage
        )
        for a in run.asked
    }
    assert SHIPPED.refuses(run.x(run.asked[0].signals))
    assert labels["quoted, holds the question"] != "low"
    assert labels["quoted, holds nothing of it"] == "low"
    # held: the refused one and the one whose answer says "may not answer" (its label is low)
    assert result.counts["hard negatives refused or warned"] == (2, 3)
    assert result.counts["passed hard negatives low"] == (1, 2)
    assert "hard negatives refused or warned 2/3" in crosseval.pooled([result])


def test_a_hard_negative_labelled_high_counts_as_a_wrong_high_answer() -> None:
    # `high` promises right ≥ 90 %: a confident answer to a question the documents do
    # not answer is the miss that matters most, not one left out of the count
    from dataclasses import replace

    run = kept_toy(hard_negative("quoted, holds the question", STRONG, 1.0, 0.9))
    always_high = replace(SHIPPED, medium_from=0.0, high_margin=0.0)
    assert always_high.label(run.x(STRONG), 1.0, 0.9, None) == "high"
    result = crosseval.row(run, always_high)
    assert result.counts["high right"] == (0, 1)
    assert result.high_right == 0.0


def test_the_closest_units_coverage_is_kept_and_read_back() -> None:
    # measured for the confidence (docs/calibration.md); a file kept before it was
    # measured reads as 0
    run = kept_toy(
        hard_negative("measured", STRONG, 0.5, 0.6) | {"unit_coverage": 0.75},
        hard_negative("kept before", STRONG, 0.5, 0.6),
    )
    assert [a.unit_coverage for a in run.asked] == [0.75, 0.0]
    again = crosseval.from_json("toy", crosseval.to_json(run))
    assert [a.unit_coverage for a in again.asked] == [0.75, 0.0]


def test_the_report_pools_keyless_facts_and_hits_and_counts_corpora_missing_each_target() -> None:
    answerable = {
        "question": "answered, one fact of two, found",
        "answerable": True,
        "kind": "answerable",
        "signals": STRONG,
        "facts": 2,
        "fact_share": 0.5,
        "quote_coverage": 1.0,
        "unit_cosine": 0.9,
        "hit": True,
    }
    missed = answerable | {"question": "answered, no fact, not found", "fact_share": 0.0}
    missed |= {"hit": False}
    result = crosseval.row(kept_toy(answerable, missed), SHIPPED)
    assert result.counts["keyless answers with half their facts"] == (1, 2)
    assert result.counts["hit@5"] == (1, 2)
    line = crosseval.pooled([result, result])
    assert "keyless answers with half their facts 2/4 (50.0%)" in line
    assert "hit@5 2/4 (50.0%)" in line
    # 50 % misses both targets (80 % and 90 %) on this corpus, and only those
    summary = crosseval.missed_by_target([result])
    assert summary == (
        "corpora missing a target, of 1: keyless answers with half their facts 1, hit@5 1"
    ), summary
