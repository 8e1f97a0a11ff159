from ragd.query.page import diverse_page
from ragd.query.types import RetrievedChunk


def chunk(cid: str, source: str) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=cid,
        source=source,
        heading="h",
        text=cid,
        support=0.5,
        fused=0.0,
        vector_rank=None,
        bm25_rank=None,
    )


def ids(page: list[RetrievedChunk]) -> list[str]:
    return [c.chunk_id for c in page]


def test_a_file_beyond_two_chunks_makes_way_for_the_next_file() -> None:
    ordered = [chunk(f"log{i}", "CHANGELOG.rst") for i in range(4)]
    ordered += [chunk("guide", "quickstart.rst"), chunk("api", "api.rst")]
    page = diverse_page(ordered, top_k=4)
    assert ids(page) == ["log0", "log1", "guide", "api"]  # still in fused order


def test_one_file_fills_the_page_when_too_few_files_qualify() -> None:
    ordered = [chunk(f"m{i}", "manual.md") for i in range(6)] + [chunk("x", "other.md")]
    assert ids(diverse_page(ordered, top_k=5)) == ["m0", "m1", "m2", "m3", "x"]
    assert ids(diverse_page(ordered[:6], top_k=5)) == ["m0", "m1", "m2", "m3", "m4"]


def test_no_promotion_from_beyond_the_pool() -> None:
    # With top_k=2 the pool is the first four candidates: "far" (5th) is not promoted;
    # with top_k=3 the pool is six and it is.
    ordered = [chunk(f"m{i}", "manual.md") for i in range(4)] + [chunk("far", "other.md")]
    assert ids(diverse_page(ordered, top_k=2)) == ["m0", "m1"]
    assert ids(diverse_page(ordered, top_k=3)) == ["m0", "m1", "far"]


def test_anchors_keep_their_place() -> None:
    ordered = [chunk(f"m{i}", "manual.md") for i in range(3)] + [chunk("a", "deep.md")]
    ordered += [chunk(f"n{i}", "notes.md") for i in range(6)]
    assert ids(diverse_page(ordered, top_k=2, anchors={"n5"})) == ["m0", "n5"]
    assert ids(diverse_page(ordered, top_k=3, anchors={"m2"})) == ["m0", "m1", "m2"]
    assert diverse_page(ordered, top_k=0) == []
