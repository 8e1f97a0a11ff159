"""Markdown's HTML comments are not indexed and never name a section; code keeps them."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import split_lines
from ragd.ingest.loaders import parse
from ragd.ingest.markdown_comments import inline_uncommented, without_comments
from tests.support.growth import growth_ratio


def chunks_of(name: str, text: str) -> list[tuple[str, str, tuple[int, int] | None]]:
    return [(c.heading_path, c.text, c.lines) for c in chunk_document(parse(name, text.encode()))]


def test_a_leading_comment_is_neither_text_nor_the_title() -> None:
    chunks = chunks_of("x.md", "<!-- generated: do not edit -->\n\nIntro.\n\n## Part\n\nbody\n")
    assert not any("generated" in path or "generated" in text for path, text, _ in chunks)
    assert [(text, lines) for _, text, lines in chunks] == [("Intro.", (3, 3)), ("body", (7, 7))]


def test_a_comment_block_over_several_lines_keeps_the_line_numbers() -> None:
    text = "<!--\nblack documentation master file\n\ncreated by sphinx\n-->\n# Title\n\nWelcome.\n"
    assert chunks_of("index.md", text) == [("Title", "Welcome.", (8, 8))]


def test_inline_comments_go_and_the_words_around_them_stay() -> None:
    text = "# T\n\nKeep <!-- a note --> this and <!-- one over\ntwo lines --> that.\nLast line.\n"
    [(path, body, lines)] = chunks_of("x.md", text)
    assert (path, lines) == ("T", (3, 4))  # its text moved up into the freed line
    assert body.split() == "Keep this and that. Last line.".split()
    assert "\n\n" not in body  # still one paragraph


def test_a_comment_in_a_heading_is_not_in_its_path() -> None:
    [(path, body, _)] = chunks_of("x.md", "# Install <!-- TODO: pip --> guide\n\nRun it.\n")
    assert path == "Install guide" and body == "Run it."


def test_code_keeps_what_it_says() -> None:
    text = (
        "# T\n\nWrite `<!-- x -->` to hide x, or ``a `<!--` b``.\n\n"
        "```html\n<!-- fenced -->\n```\n\n    <!-- indented -->\n"
    )
    [(_, body, _)] = chunks_of("x.md", text)
    for kept in ("`<!-- x -->`", "``a `<!--` b``", "<!-- fenced -->", "    <!-- indented -->"):
        assert kept in body


def test_a_comment_opening_a_line_interrupts_a_paragraph() -> None:
    text, _ = without_comments("one\n<!-- hidden -->\ntwo\n")
    assert split_lines(text) == ["one", "", "two", ""]


def test_text_after_the_close_on_a_block_line_is_shown() -> None:
    text, _ = without_comments("<!-- a\nb --> shown\n")
    assert split_lines(text) == ["", "shown", ""]


def test_an_unclosed_block_runs_to_the_end_as_commonmark_says_and_a_note_says_so() -> None:
    document = parse("x.md", b"# T\n\ntext\n\n<!-- never closed\n\n## Gone\n\nlost\n")
    assert [(c.heading_path, c.text) for c in chunk_document(document)] == [("T", "text")]
    assert any("never closed" in note and "line 5" in note for note in document.notes)


def test_an_unclosed_inline_opening_is_text() -> None:
    assert inline_uncommented("a <!-- b\nc") == "a <!-- b\nc"
    text, notes = without_comments("a <!-- b\n\nc --> d\n")
    assert split_lines(text) == ["a <!-- b", "", "c --> d", ""] and notes == []


def test_an_escaped_opening_is_text() -> None:
    assert inline_uncommented(r"a \<!-- b --> c") == r"a \<!-- b --> c"
    assert inline_uncommented(r"a \\<!-- b --> c") == r"a \\ c"


def test_commonmark_short_comments_close_themselves() -> None:
    assert without_comments("<!-->\nshown\n")[0] == "\nshown\n"
    assert inline_uncommented("a <!---> b") == "a  b"


def test_myst_markdown_takes_the_same_path() -> None:
    # mypy 1.13's docs/source/changelog.md
    text = (
        "<!-- This file includes mypy/CHANGELOG.md into mypy documentation -->\n"
        "```{include} ../../CHANGELOG.md\n```\n\nSee {func}`run` <!-- internal -->.\n"
    )
    chunks = chunks_of("changelog.md", text)
    assert chunks and not any("This file" in path or "<!--" in body for path, body, _ in chunks)
    assert any("run" in body for _, body, _ in chunks)


@pytest.mark.parametrize(
    "pump",
    [
        "<!-- ",  # openings no `-->` closes
        "` `` ``` ",  # runs of backticks no run of their length closes
        "\\\\\\<!-- ",  # backslashes before each opening
        "x <!-- a --> ",  # many comments
    ],
)
def test_linear_in_the_paragraph(pump: str) -> None:
    def text(n: int) -> str:
        return "# T\n\n" + pump * n + "\nend <!-- x"

    ratio = growth_ratio(without_comments, text(10_000), text(40_000))
    assert ratio < 12  # 4× the text: linear 4, quadratic 16


LIST_ITEM_COMMENTS = {
    "a bullet's second paragraph": (
        "- Install it.\n\n    <!-- ask Ana: old key? -->\n\n    Then run.\n"
    ),
    "a numbered item's": "1.  Install it.\n\n    <!-- ask Ana: old key? -->\n",
    "a nested item's": "- Setup\n    - Install it.\n\n        <!-- ask Ana: old key? -->\n",
    "after a sibling item": "- Install it.\n- Run it.\n\n    <!-- ask Ana: old key? -->\n",
}


@pytest.mark.parametrize("label", LIST_ITEM_COMMENTS)
def test_a_comment_inside_a_list_item_is_hidden_too(label: str) -> None:
    """Four columns in under `- item` (or `1.  item`) a line is the item's block, not
    indented code: CommonMark renders the comment as an HTML block, unseen. Taken for
    code, its words were indexed and could be quoted."""
    text = LIST_ITEM_COMMENTS[label]
    kept, _ = without_comments(text)
    assert "ask Ana" not in kept, label
    assert split_lines(kept)[0] == split_lines(text)[0] and len(split_lines(kept)) == len(
        split_lines(text)
    )


@pytest.mark.parametrize(
    "text",
    [
        "- item\n\ntext\n\n    <!-- shown -->\n",  # the list ended: indented code again
        "- item\n\n      <!-- shown -->\n",  # four columns past the item's content: code
        "* * *\n\n    <!-- shown -->\n",  # a thematic break opens no item
    ],
)
def test_indented_code_outside_an_item_still_shows_a_comment(text: str) -> None:
    assert without_comments(text)[0] == text
