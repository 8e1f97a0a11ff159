"""Fits the weights that rank a keyless answer's units (query/extractive.py), held out.

Usage: python bench/keyless_unit_fit.py RUNS.pkl

RUNS.pkl is what `bench/keyless_replay.py retrieve` keeps. For every question whose page
holds a unit with one of its facts, each quotable unit is described by the signals the
answerer adds to its cosine (key-term coverage, coverage of where it sits, relative support,
its chunk's cosine, exact tokens, answer type, named file, being a lead-in) and a
conditional logit (a softmax over the page's units) is fitted to put a fact-holding unit
first. It prints, one corpus held out at a time, how often the first unit holds a fact
with the shipped scores and with the weights fitted on the other corpora, then the
weights fitted on all of them relative to the cosine's (the constants in extractive.py).
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.keyless_replay import CachedEmbed, norm  # noqa: E402

SIGNALS = ("cosine", "coverage", "place", "support", "chunk_cosine", "exact", "type", "named")
SIGNALS += ("lead_in",)
Page = tuple[str, np.ndarray, np.ndarray, np.ndarray]  # corpus, signals, facts held, scores


def pages(runs: dict[str, list[dict[str, Any]]], embed: CachedEmbed) -> list[Page]:
    from ragd.query.extractive import ExtractiveAnswerer, KeyTerms

    answerer = ExtractiveAnswerer(embed)
    out = []
    for corpus, rows in runs.items():
        for row in rows:
            q, result = row["q"], row["result"]
            scored = answerer.scored(
                q.question, result.chunks, result.analysis, result.query_vector
            )
            if scored is None:
                continue
            units = scored.candidates
            held = np.array([any(norm(f) in norm(u.unit.text) for f in q.facts) for u in units])
            if not held.any():
                continue
            terms = KeyTerms(result.analysis, units)
            question = result.query_vector / np.linalg.norm(result.query_vector)
            columns = [
                scored.vectors @ question,
                scored.coverage,
                [terms.coverage(u.place) for u in units],
                answerer._relative_support(units),
                [u.chunk.cosine for u in units],
                answerer._exact_share(result.analysis, units),
                answerer._answer_type(result.analysis, units),
                answerer._named(result.analysis, units),
                [u.leads_in for u in units],
            ]
            signals = np.stack([np.asarray(c, np.float64) for c in columns], 1)
            out.append((corpus, signals, held, scored.scores))
    return out


def fit(train: list[Page], steps: int = 300, rate: float = 0.5, l2: float = 0.01) -> np.ndarray:
    """Weights on the raw signals (standardised while fitting, for a stable step size)."""
    stacked = np.concatenate([p[1] for p in train])
    mean, spread = stacked.mean(0), stacked.std(0) + 1e-9
    weights = np.zeros(stacked.shape[1])
    for _ in range(steps):
        gradient = np.zeros_like(weights)
        for _, signals, held, _ in train:
            z = (signals - mean) / spread
            logits = z @ weights
            p = np.exp(logits - logits.max())
            target = held / held.sum()
            gradient += z.T @ (p / p.sum() - target)
        weights -= rate * (gradient / len(train) + l2 * weights)
    return weights / spread


def first_holds(scores: np.ndarray, held: np.ndarray) -> float:
    return float(held[int(np.argmax(scores))])


def main(argv: list[str]) -> None:
    source = Path(argv[0])
    embed = CachedEmbed(source.with_suffix(".vectors.pkl"))
    data = pages(pickle.loads(source.read_bytes()), embed)
    shipped, held_out = [], []
    for corpus in sorted({p[0] for p in data}):
        weights = fit([p for p in data if p[0] != corpus])
        test = [p for p in data if p[0] == corpus]
        now = np.mean([first_holds(p[3], p[2]) for p in test])
        fitted = np.mean([first_holds(p[1] @ weights, p[2]) for p in test])
        shipped.append(now * len(test))
        held_out.append(fitted * len(test))
        print(f"{corpus:12} first unit holds a fact: shipped {now:.2f}, held-out fit {fitted:.2f}")
    print(
        f"{'pooled':12} shipped {sum(shipped) / len(data):.2f}, fit {sum(held_out) / len(data):.2f}"
    )
    weights = fit(data)
    print(
        "weights / cosine's:",
        {s: round(float(w / weights[0]), 2) for s, w in zip(SIGNALS, weights, strict=True)},
    )


if __name__ == "__main__":
    main(sys.argv[1:])
