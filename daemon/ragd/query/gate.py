"""The gate: does what the retriever found support an answer? Decided before any model call.

It judges every fused candidate the retriever returns (not the page of `top_k` the caller
asked for), so the decision and the support it shows are the same for `--top-k 1` and
`--top-k 50`. Its inputs are one question analysis (question.py) and the candidates with
their support (support.py); its checks, in order:

* **the floor** — the best support must reach the floor learned for this index
  (calibration.py);
* **vocabulary** — a question that puts most of its IDF weight on words no indexed chunk
  holds is about something else, whatever its support;
* **answer type** — a question that asks for a value (answer_type.py) needs a candidate
  above the floor holding one near its key terms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ragd.query.answer_type import VALUE_NAMES, holds_value
from ragd.query.calibration import UNSEEN_LIMIT, Floor
from ragd.query.question import QuestionAnalysis
from ragd.query.types import GateDecision, RetrievedChunk

Analyze = Callable[[str], list[str]]


def value_nearby(
    analysis: QuestionAnalysis, chunks: Sequence[RetrievedChunk], floor: float, analyze: Analyze
) -> bool:
    """Does a candidate at or above `floor` hold the kind of value the question asks for
    near its key terms? (True when it asks for none.)"""
    if analysis.asked is None:
        return True
    terms = analysis.key_terms(analyze)
    return any(
        holds_value(analysis.asked, terms, c.heading, c.text, analyze)
        for c in chunks
        if c.support >= floor
    )


def judge(
    analysis: QuestionAnalysis,
    candidates: Sequence[RetrievedChunk],
    floor: Floor,
    analyze: Analyze,
) -> GateDecision:
    """The floor first; then the vocabulary check; then the answer-type check over the
    candidates that clear the floor."""
    best = max((c.support for c in candidates), default=0.0)
    decision = GateDecision(
        passed=best >= floor.value,
        support=best,
        floor=floor.value,
        floor_origin=floor.origin,
        floor_detail=floor.detail,
        unseen=round(analysis.unseen, 4),
        asked=analysis.asked,
    )
    if not decision.passed:
        return replace(decision, reason="below the floor")
    if analysis.unseen >= UNSEEN_LIMIT:
        share = f"{analysis.unseen:.0%}"
        return replace(
            decision,
            passed=False,
            reason=f"puts {share} of its weight on words no indexed chunk holds",
        )
    if value_nearby(analysis, candidates, floor.value, analyze):
        return decision
    asked = analysis.asked or ""
    return replace(
        decision,
        passed=False,
        reason=f"asks for {VALUE_NAMES[asked]}; no retrieved passage holds one near its key terms",
    )
