"""The page of results: the fused order, with no one file filling it (pure).

A long file (a change log, an upgrade guide, a big manual) has many chunks that share
its vocabulary, so several of them can fuse just above the section a paraphrased
question wants, from another file. Within the first `POOL_PER_SLOT × top_k` fused
candidates, a file's chunks beyond its `PER_SOURCE`-th wait until every other file's
have been placed; they fill the page only when too few files qualify. The pool bounds
how far down the fused order a chunk may be promoted, so a weak candidate from a new
file never displaces a strong one by much. Each retriever's top hit keeps its place
(as in `fusion.fuse`). The gate judges every candidate, never the page, so this changes
only what is shown, not the refusal decision.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from ragd.query.types import RetrievedChunk

PER_SOURCE = 2  # chunks of one file placed before other files' chunks are considered
POOL_PER_SLOT = 2  # the pool the page is chosen from: this many candidates per slot


def diverse_page(
    ordered: Sequence[RetrievedChunk],
    top_k: int,
    anchors: Collection[str] = (),
    per_source: int = PER_SOURCE,
) -> list[RetrievedChunk]:
    """The `top_k` page from candidates in fused order; `anchors`: chunk ids that must
    appear (each retriever's top hit). The page keeps the fused order."""
    if top_k <= 0:
        return []
    placed: list[RetrievedChunk] = []
    waiting: list[RetrievedChunk] = []
    shown: Counter[str] = Counter()
    for chunk in ordered[: POOL_PER_SLOT * top_k]:
        if chunk.chunk_id in anchors or shown[chunk.source] < per_source:
            placed.append(chunk)
            shown[chunk.source] += 1
        else:
            waiting.append(chunk)
    page = (placed + waiting)[:top_k]
    position = {c.chunk_id: i for i, c in enumerate(ordered)}
    for anchor in [c for c in ordered if c.chunk_id in anchors and c not in page]:
        for i in range(len(page) - 1, -1, -1):  # the weakest chunk that is no anchor
            if page[i].chunk_id not in anchors:
                page[i] = anchor
                break
    return sorted(page, key=lambda c: position[c.chunk_id])
