"""A retrieved chunk with believable defaults, for tests of what happens after retrieval."""

from __future__ import annotations

from ragd.query.types import RetrievedChunk


def make_chunk(
    source: str = "handbook.md",
    heading: str = "Tickets > Returns",
    text: str = "Return tickets are valid for 30 days.",
    support: float = 0.6123,
    bm25_rank: int | None = 1,
) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=f"{source}#{heading}#{len(text)}",
        source=source,
        heading=heading,
        text=text,
        support=support,
        fused=0.03,
        vector_rank=1,
        bm25_rank=bm25_rank,
    )
