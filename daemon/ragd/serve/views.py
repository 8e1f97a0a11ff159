"""JSON shapes of the read path's replies: a retrieved chunk, an answer, a refusal.

One home for what `search` and `ask` send, so the two ops cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from ragd.query.gate import UNJUDGED
from ragd.query.types import Answer, GateDecision, RetrievedChunk
from ragproto.protocol import REFUSAL_SENTENCE


def result_json(rank: int, chunk: RetrievedChunk) -> dict[str, Any]:
    return {
        "rank": rank,
        "source": chunk.source,
        "heading": chunk.heading,
        "score": chunk.support,
        "fused": chunk.fused,
        "vector_rank": chunk.vector_rank,
        "bm25_rank": chunk.bm25_rank,
        "text": chunk.text,
        "page": chunk.page,
        "lines": list(chunk.lines) if chunk.lines else None,
        "cells": list(chunk.cells) if chunk.cells else None,
        "slides": list(chunk.slides) if chunk.slides else None,
        "rows": list(chunk.rows) if chunk.rows else None,
        "cosine": chunk.cosine,
        "coverage": chunk.coverage,
        "identifiers": chunk.identifiers,
    }


def refusal_note(gate: GateDecision) -> str:
    if gate.reason in UNJUDGED:  # neither the floor nor p had a say
        why = f"the question {gate.reason}"
    elif gate.support < gate.floor:
        why = f"no chunk cleared the {gate.floor:.3f} support floor ({gate.floor_origin})"
    else:
        why = f"the question {gate.reason} (p {gate.probability:.2f})"
    return f"refused locally — {why}, so no model call was made."


def refused_reply(
    gate: GateDecision, sources: list[dict[str, Any]], warnings: list[str]
) -> dict[str, Any]:
    """The gate refused: the fixed sentence, and why (no model was called)."""
    return {
        "answer": REFUSAL_SENTENCE,
        "citations": [],
        "confidence": "low",
        "probability": 0.0,
        "refused": True,
        "mode": "refused",
        "gate": gate.as_json(),
        "sources": sources,
        "warnings": warnings,
        "note": refusal_note(gate),
    }


def answer_reply(
    answer: Answer, gate: dict[str, Any], sources: list[dict[str, Any]], warnings: list[str]
) -> dict[str, Any]:
    """An answer (the model's or quoted); its confidence line, if the text stated one, was
    cut by the answerer (query/confidence_line.py) and is flagged for the client."""
    return {
        "answer": answer.text,
        "citations": [
            {"source": c.source, "heading": c.heading, "score": c.score} for c in answer.citations
        ],
        "confidence": answer.confidence,
        "probability": answer.probability
        if answer.probability is not None
        else gate.get("probability"),
        "refused": answer.refused,
        "mode": answer.mode,
        "gate": gate,
        "sources": sources,
        "warnings": warnings + answer.warnings,
        "confidence_in_text": answer.confidence_in_text,
    }
