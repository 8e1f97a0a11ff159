from ragd.query.page import choose_page, names_a_version
from ragd.query.types import RetrievedChunk


def chunk(cid: str, heading: str, fused: float) -> RetrievedChunk:
    return RetrievedChunk(
        chunk_id=cid,
        source=f"{cid}.rst",
        heading=heading,
        text=cid,
        support=0.5,
        fused=fused,
        vector_rank=None,
        bm25_rank=None,
    )


def ids(page: list[RetrievedChunk]) -> list[str]:
    return [c.chunk_id for c in page]


ORDERED = [
    chunk("log", "Changelog > 3.0.0 (2019-08-18)", 0.032),
    chunk("upgrade", "Upgrading to newer releases > Upgrading to 3.0 > Strict schemas", 0.031),
    chunk("guide", "Quickstart > Declaring schemas", 0.030),
    chunk("api", "API > Schema", 0.020),
]


def test_headings_naming_a_version() -> None:
    assert names_a_version("Changelog > 3.0.0 (2019-08-18)")
    assert names_a_version("Upgrading to v2.8 > Fields")
    assert not names_a_version("Python 3 support > Fields")  # a number, not a version
    assert not names_a_version("RFC 822 dates > ISO 8601")
    assert not names_a_version("Timeouts > 1.5x backoff")
    assert not names_a_version("Multiple ABIs (libffi) > 2.4 Multiple ABIs")  # a section number


def test_release_notes_give_way_when_the_question_is_not_about_releases() -> None:
    page = choose_page("How do I declare a schema?", ORDERED, top_k=2)
    assert ids(page) == ["guide", "log"]  # 0.030 > 0.032 × 0.8; the log still outranks api


def test_fused_order_when_the_question_asks_about_releases() -> None:
    for question in ("What changed in 3.0?", "Which release made schemas strict?"):
        assert ids(choose_page(question, ORDERED, top_k=2)) == ["log", "upgrade"]


def test_anchors_keep_their_place() -> None:
    page = choose_page("How do I declare a schema?", ORDERED, top_k=2, anchors={"upgrade"})
    assert ids(page) == ["guide", "upgrade"]
    assert choose_page("anything", ORDERED, top_k=0) == []
