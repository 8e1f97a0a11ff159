"""Reciprocal rank fusion with anchoring (pure).

RRF scores a document Σ 1/(k + rank) over the lists it appears in (k = 60, ranks
1-based). It needs no score calibration between BM25 and cosine, which live on
unrelated scales. Anchoring: each retriever's own top hit is kept in the final list,
so an exact-token match that only BM25 finds cannot be crowded out by dense neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

RRF_K = 60


def describe() -> str:
    """The fusion in one phrase (for `stats`)."""
    return f"rrf k={RRF_K} + anchors"


def rrf(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + 1.0 / (k + rank)
    return scores


def fuse(
    rankings: Sequence[Sequence[str]], top_k: int, k: int = RRF_K, keep_ties: bool = False
) -> list[tuple[str, float]]:
    """The fused top_k as (id, fused score), each list's first item guaranteed a place.

    `keep_ties`: also return every item whose score equals the last one's, for a caller
    that breaks ties itself (the retriever, by support) before cutting to top_k; without
    it a tie at the cut is decided by id, e.g. a 0-support vector #1 over the BM25 #1.
    """
    scores = rrf(rankings, k)
    ordered = sorted(scores, key=lambda d: (-scores[d], d))
    chosen = ordered[:top_k]
    anchors = [r[0] for r in rankings if r]
    for anchor in anchors:
        if anchor in chosen or top_k <= 0:
            continue
        # Replace the weakest non-anchor entry.
        for i in range(len(chosen) - 1, -1, -1):
            if chosen[i] not in anchors:
                chosen[i] = anchor
                break
    chosen.sort(key=lambda d: (-scores[d], d))
    if keep_ties and chosen:
        last = scores[chosen[-1]]
        chosen += [d for d in ordered if scores[d] == last and d not in chosen]
    return [(d, scores[d]) for d in chosen]
