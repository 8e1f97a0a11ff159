"""query/neighbours.py: the keyless answer reads the chunk right after the best one too."""

from __future__ import annotations

from dataclasses import replace

from ragd.query.neighbours import around_the_best, listed
from ragd.query.types import RetrievedChunk
from tests.support.chunks import make_chunk


def chunk(source: str, ordinal: int | None) -> RetrievedChunk:
    made = make_chunk(source, text=f"{source} {ordinal}")
    return replace(made, chunk_id=f"{source}#{ordinal}", ordinal=ordinal)


def ids(chunks: list[RetrievedChunk]) -> list[str]:
    return [c.chunk_id for c in chunks]


def test_the_chunk_after_the_best_is_read_right_after_it() -> None:
    """nu35 (the regex crate): the note that `\\b` is slow on non-ASCII text ended the
    best chunk, and "(?-u:\\b)", the way round it, opened the next one, which the
    retrievers ranked below the page: the answer quoted neither fact."""
    page = [chunk("PERFORMANCE.md", 7), chunk("src/lib.rs", 3)]
    candidates = [*page, chunk("PERFORMANCE.md", 8)]
    assert ids(around_the_best(page, candidates)) == [
        "PERFORMANCE.md#7",
        "PERFORMANCE.md#8",
        "src/lib.rs#3",
    ]


def test_only_the_best_chunks_next_one_comes() -> None:
    """Not the chunk before it (on the tuned folders it changed eight answers and
    completed none), not another file's chunk of the same place, not one two chunks on,
    not the next chunk of a later page chunk: each let units crowd out the page's."""
    page = [chunk("a.md", 5), chunk("b.md", 2)]
    candidates = [*page, chunk("a.md", 4), chunk("c.md", 6), chunk("a.md", 7), chunk("b.md", 3)]
    assert ids(around_the_best(page, candidates)) == ["a.md#5", "b.md#2"]


def test_a_neighbour_on_the_page_already_is_not_read_twice() -> None:
    page = [chunk("a.md", 5), chunk("a.md", 6)]
    assert ids(around_the_best(page, [*page, chunk("a.md", 6)])) == ["a.md#5", "a.md#6"]


def test_a_chunk_whose_place_is_unknown_has_no_neighbours() -> None:
    page = [chunk("a.md", None)]
    assert ids(around_the_best(page, [*page, chunk("a.md", 1)])) == ["a.md#None"]
    assert around_the_best([], [chunk("a.md", 1)]) == []


def test_a_neighbour_the_answer_cites_is_listed_among_the_sources() -> None:
    """The chunk after the best one may open the next section: a quote from it cited
    `[ferry.md:Pets]`, a section the reply's sources (the page) did not list."""
    best = replace(chunk("ferry.md", 3), heading="Fares")
    after = replace(chunk("ferry.md", 4), heading="Pets")
    page = [best, chunk("bus.md", 1)]
    read = around_the_best(page, [*page, after])
    cited = [("ferry.md", "Pets"), ("ferry.md", "Fares")]
    assert ids(listed(page, read, cited)) == ["ferry.md#3", "bus.md#1", "ferry.md#4"]
    # Not cited, or under a heading the page lists: the sources are the page.
    assert ids(listed(page, read, [("ferry.md", "Fares")])) == ids(page)
    same = replace(after, heading="Fares")
    assert ids(listed(page, [best, same, *page[1:]], cited)) == ids(page)
