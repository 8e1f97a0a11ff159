"""Which candidates' blocks the rescue's second look embeds (block_cosine.py): a bounded
set, the leaders of both rankings taken in turn, each block once."""

from __future__ import annotations

from ragd.query.block_cosine import blocks_of, leaders
from ragd.query.types import RetrievedChunk


def chunk(name: str, support: float, cosine: float, text: str = "") -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=name,
        source=f"{name}.md",
        heading="Manual > Part",
        text=text or f"{name} first.\n\n{name} second.",
        support=support,
        fused=0.0,
        vector_rank=None,
        bm25_rank=None,
        cosine=cosine,
    )


def test_leaders_are_the_best_by_support_and_by_window_cosine_in_turn() -> None:
    candidates = [chunk(f"c{i}", support=i / 10, cosine=1 - i / 10) for i in range(10)]
    picked = [c.chunk_id for c in leaders(candidates, count=3)]
    # c9 leads support, c0 the window cosine; the middle of both rankings is not read.
    assert picked == ["c9", "c0", "c8", "c1", "c7", "c2"]


def test_a_chunk_leading_both_rankings_is_read_once() -> None:
    candidates = [chunk("a", 0.9, 0.9), chunk("b", 0.5, 0.1), chunk("c", 0.1, 0.5)]
    assert [c.chunk_id for c in leaders(candidates, count=2)] == ["a", "b", "c"]


def test_blocks_are_distinct_and_capped() -> None:
    same = "Shared paragraph."
    chunks = [
        chunk("a", 0.9, 0.9, f"{same}\n\nOnly in a."),
        chunk("b", 0.8, 0.8, f"{same}\n\nOnly in b.\n\nAnd another."),
    ]
    assert blocks_of(chunks) == [same, "Only in a.", "Only in b.", "And another."]
    assert blocks_of(chunks, limit=3) == [same, "Only in a.", "Only in b."]
