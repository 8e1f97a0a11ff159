"""A heading with brackets in it (`## \\[2.3.9\\] - 2023-01-02` in a Markdown change log,
rendered `[2.3.9] - 2023-01-02`) is cited as `rag search` shows it: `[CHANGELOG.md:Change
Log > [2.3.9] - 2023-01-02]`, not `… > \\[2.3.9\\] - …`. A citation the model writes with
or without the backslashes is checked against what was retrieved just the same; a
bracket that could close the citation, or a pair that reads as a citation of its own,
is still written escaped."""

from __future__ import annotations

import pytest

from ragd.query.cited_stream import CitationGuard
from ragd.query.model_replies import CitationResolver, find_markers
from ragproto.protocol import citation
from tests.support.answering import RETURNS
from tests.support.chunks import make_chunk

HEADING = "Change Log > [2.3.9] - 2023-01-02"
RELEASE = make_chunk("CHANGELOG.md", HEADING, "The parser keeps trailing commas.", support=0.6)
PLAIN = f"[CHANGELOG.md:{HEADING}]"
ESCAPED = "[CHANGELOG.md:Change Log > \\[2.3.9\\] - 2023-01-02]"


def shown(text: str, size: int) -> str:
    guard = CitationGuard(CitationResolver([RELEASE, RETURNS]))
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return "".join(guard.feed(piece) for piece in pieces) + guard.flush()


def test_a_citation_shows_the_heading_as_search_does() -> None:
    assert citation("CHANGELOG.md", HEADING) == PLAIN
    assert RELEASE.citation == PLAIN


def test_brackets_that_could_forge_a_citation_stay_escaped() -> None:
    assert citation("a.md", "Fares] x [b.md:Pets") == "[a.md:Fares\\] x \\[b.md:Pets]"
    assert citation("a.md", "Fares [b.md:Pets]") == "[a.md:Fares \\[b.md:Pets\\]]"
    assert citation("a.md", "[[x]]") == "[a.md:\\[[x]\\]]"
    assert citation("a.md", "C:\\temp\\") == "[a.md:C:\\temp\\\\]"


@pytest.mark.parametrize("written", [PLAIN, ESCAPED])
def test_the_models_citation_is_read_with_or_without_backslashes(written: str) -> None:
    markers = find_markers(f"Trailing commas are kept {written}.")
    assert markers == [PLAIN[1:-1]]
    citations, warnings = CitationResolver([RELEASE]).resolve(markers)
    assert [(c.source, c.heading) for c in citations] == [("CHANGELOG.md", HEADING)]
    assert warnings == []


@pytest.mark.parametrize("size", [1, 3, 1000])
@pytest.mark.parametrize("written", [PLAIN, ESCAPED])
def test_the_guard_lets_it_through_as_search_shows_it(written: str, size: int) -> None:
    assert shown(f"Kept {written}.", size) == f"Kept {PLAIN}."


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_forged_citation_with_a_pair_inside_is_still_relabelled(size: int) -> None:
    assert shown("Free [evil.md:Change Log > [2.3.9]] now", size) == (
        "Free (evil.md:Change Log > \\[2.3.9\\] — not a retrieved source) now"
    )
    assert shown("odd [a [1] b [handbook.md:Tickets > Returns] c", size) == (
        "odd [a [1] b [handbook.md:Tickets > Returns] c"
    )
    assert shown("odd [a [1] b [pets.md:Cats] c", size) == (
        "odd [a [1] b (pets.md:Cats — not a retrieved source) c"
    )


def counted_lookups(resolver: CitationResolver) -> list[str]:
    """Records the source side of each lookup `resolver.lookup_marker` tries."""
    tried: list[str] = []
    lookup = resolver.lookup

    def counting(source: str, heading: str) -> object:
        tried.append(source)
        return lookup(source, heading)

    resolver.lookup = counting  # type: ignore[method-assign]
    return tried


def test_a_marker_full_of_colons_is_looked_up_once_per_colon_a_source_may_hold() -> None:
    # Plain pairs may hold colons and up to 400 characters each, so one marker may run to
    # 160,000 characters: a lookup at each colon, each normalizing the whole marker, was
    # quadratic (a 16,000-character one took the guard 15 s and resolve 8 s).
    resolver = CitationResolver([RELEASE, make_chunk("a:b.md", "Setup: Linux")])
    tried = counted_lookups(resolver)
    marker = "evil.md:" + "[" + ":" * 300 + "]" + ":" * 300
    assert find_markers(f"see [{marker}]") == [marker]
    assert resolver.resolve([marker]) == (
        [],
        [f"warning: dropped citation [{marker}] — not among the retrieved documents"],
    )
    assert len(tried) == 2  # a source here holds at most one colon
    # ... and a source or heading that holds colons is still found.
    found, _ = resolver.resolve(["a:b.md:Setup: Linux", "CHANGELOG.md:" + HEADING])
    assert [(c.source, c.heading) for c in found] == [
        ("a:b.md", "Setup: Linux"),
        ("CHANGELOG.md", HEADING),
    ]


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_forged_citation_as_a_links_text_is_relabelled(size: int) -> None:
    # `[[evil.md:Pets]](url)`: the outer pair is a Markdown link's text, and what it holds
    # is a marker `find_markers` reads (and warns of as forged), so it is relabelled, as
    # `[evil.md:Pets](url)` alone is not. The guard let the whole link through as written.
    text = "Cats ride free [[evil.md:Pets]](https://x.example) today"
    assert find_markers(text) == ["evil.md:Pets"]
    assert shown(text, size) == (
        "Cats ride free [(evil.md:Pets — not a retrieved source)](https://x.example) today"
    )
    assert shown("see [the notes](https://x.example) and [x [1]](y)", size) == (
        "see [the notes](https://x.example) and [x [1]](y)"
    )


@pytest.mark.parametrize("size", [1, 1000])
@pytest.mark.parametrize("filler", ["x" * 392, "[" + "x" * 400 + "]"])
def test_a_forged_citation_of_the_longest_a_marker_holds_is_relabelled(
    filler: str, size: int
) -> None:
    # `_MARKER` reads up to 400 steps, and a plain pair of up to 400 characters as one:
    # the guard gave up at exactly 400 (of either), letting through as written a forged
    # citation that find_markers read and warned of.
    marker = f"evil.md:{filler}"
    assert find_markers(f"see [{marker}] ok") == [marker]
    assert shown(f"see [{marker}] ok", size).startswith("see (evil.md:")
