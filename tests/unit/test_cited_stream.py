"""CitationGuard: a citation marker that names nothing retrieved never reaches the user
looking like a real one, however the model's text is cut into streamed pieces."""

from __future__ import annotations

import pytest

from ragd.query.cited_stream import CitationGuard
from ragd.query.model_replies import CitationResolver, dropped_citation_warning, find_markers
from tests.support.answering import DOGS, RETURNS
from tests.support.chunks import make_chunk

REAL = "[handbook.md:Tickets > Returns]"


def shown(text: str, size: int) -> str:
    guard = CitationGuard(CitationResolver([RETURNS, DOGS]))
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    return "".join(guard.feed(piece) for piece in pieces) + guard.flush()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_a_citation_of_nothing_retrieved_is_relabelled_in_any_pieces(size: int) -> None:
    text = f"Returns last 30 days {REAL}. Cats ride free [pets.md:Cats].\nConfidence: high"
    assert shown(text, size) == (
        f"Returns last 30 days {REAL}. Cats ride free "
        "(pets.md:Cats — not a retrieved source).\nConfidence: high"
    )


@pytest.mark.parametrize("size", [1, 4, 1000])
@pytest.mark.parametrize(
    "text",
    [
        "see [the site](https://example.com) at [10:30] or [3:2]",
        "a list [x] and [] and [a\nb.md:c] and [unclosed:",
        "a [long:" + "y" * 500 + "] one",
        "ends on a bracket [",
        "a slice `arr[i:j]`, `rows[start:end]` and `f(x)[k:v]` of code",
        "a backslash \\ alone and [a\\] b] at the end \\",
    ],
)
def test_what_is_no_citation_passes_unchanged(text: str, size: int) -> None:
    assert shown(text, size) == text


def test_a_combined_marker_keeps_its_real_part_and_relabels_the_other() -> None:
    text = "Both [handbook.md:Tickets > Returns; pets.md:Cats]."
    assert shown(text, 3) == f"Both {REAL} (pets.md:Cats — not a retrieved source)."


def test_a_forged_marker_hiding_a_real_one_keeps_its_escapes() -> None:
    text = "Free [evil.md:\\[handbook.md:Tickets > Returns\\]] rides"
    assert shown(text, 2) == (
        "Free (evil.md:\\[handbook.md:Tickets > Returns\\] — not a retrieved source) rides"
    )


def test_a_new_bracket_restarts_the_marker() -> None:
    assert shown(f"odd [a [pets.md:Cats] then {REAL}", 1) == (
        f"odd [a (pets.md:Cats — not a retrieved source) then {REAL}"
    )


def test_citations_side_by_side_are_each_checked() -> None:
    assert shown(f"both {REAL}[pets.md:Cats]", 2) == (
        f"both {REAL}(pets.md:Cats — not a retrieved source)"
    )


def test_code_slices_are_no_citations_in_the_warnings_either() -> None:
    """The guard left `rows[start:end]` as written, but the warnings after the answer still
    said "dropped citation [start:end]" (attack39b): one rule, `follows_code`, for both."""
    text = f"Take `rows[start:end]` and `f(x)[k:v]`, as {REAL} and [made-up.md:X] say."
    assert find_markers(text) == [REAL[1:-1], "made-up.md:X"]
    citations, warnings = CitationResolver([RETURNS, DOGS]).resolve(find_markers(text))
    assert [(c.source, c.heading) for c in citations] == [("handbook.md", "Tickets > Returns")]
    assert warnings == [dropped_citation_warning("made-up.md:X")]


GLUED = "Cats ride free[zoo.md:Cats], fees[handbook.md:Tickets > Returns] apply."
SLICES = '`rows[start:end]`, `d["a:b"]`, `f(x)[k:v]`, `a[self.lo:self.hi]`, `b[x.md5:y]`'


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_citation_glued_to_a_word_is_checked_like_any_other(size: int) -> None:
    """`free[zoo.md:Cats]` was taken for code's indexing: a forged source written so was
    shown as written and not warned about (review40). A bracket after a word is a citation
    when it names a file with the suffix of a retrieved source (`name.md:…`); code's
    slices stay as written."""
    assert shown(GLUED, size) == (
        f"Cats ride free(zoo.md:Cats — not a retrieved source), fees{REAL} apply."
    )
    assert shown(SLICES, size) == SLICES


def test_a_glued_citation_is_counted_and_a_glued_forgery_warned_about() -> None:
    resolver = CitationResolver([RETURNS, DOGS])
    markers = find_markers(f"{GLUED} {SLICES}", resolver)
    assert markers == ["zoo.md:Cats", REAL[1:-1]]
    citations, warnings = resolver.resolve(markers)
    assert [(c.source, c.heading) for c in citations] == [("handbook.md", "Tickets > Returns")]
    assert warnings == [dropped_citation_warning("zoo.md:Cats")]


def test_a_forged_citation_opening_the_answer_is_relabelled() -> None:
    """Nothing before the first "[": `follows_code("")` said code (the empty string is in
    every string), so an answer opening with a forged marker showed it as written."""
    assert shown("[nothing.txt:At all] is cited first", 1000) == (
        "(nothing.txt:At all — not a retrieved source) is cited first"
    )


def test_a_slice_of_one_letter_attributes_is_code_beside_c_sources() -> None:
    """A corpus of C (`buffer.c`, `buffer.h`): an answer's Python or Go slice over
    one-letter attributes, `data[hdr.c:hdr.h]`, `buf[self.n:]`, names no file, but its
    "name" ended in a retrieved suffix, `.c`, so it was relabelled as a forged citation.
    A one-letter suffix is a source's only in a name retrieved (`buffer.c:…` glued)."""
    c_source = make_chunk("src/buffer.c", "grow", "void grow(buf *b) {}", support=0.5)
    header = make_chunk("src/buffer.h", "buf", "typedef struct buf buf;", support=0.4)
    resolver = CitationResolver([c_source, header])
    code = "Read it as `data[hdr.c:hdr.h]` or `buf[self.h:]`."
    guard = CitationGuard(resolver)
    assert guard.feed(code) + guard.flush() == code
    assert find_markers(code, resolver) == []
    forged = "It grows free[buffer.c:shrink]."
    guard = CitationGuard(resolver)
    assert guard.feed(forged) + guard.flush() == (
        "It grows free(buffer.c:shrink — not a retrieved source)."
    )
