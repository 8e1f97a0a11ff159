"""Markdown's underlined headings (`Title` over `===` or `---`) head their sections."""

from __future__ import annotations

from ragd.ingest.chunking import HEADING_MAX_CHARS, chunk_document
from ragd.ingest.document import split_lines
from ragd.ingest.loaders import parse
from ragd.ingest.setext import underlined_to_atx
from tests.support.growth import growth_ratio

HISTORY = """\
Release History
===============

2.32.3 (2024-05-29)
-------------------

**Bugfixes**

- Fixed a bug where custom SSL contexts were ignored.

2.32.0 (2024-05-20)
-------------------

**Security**

- Fixed verify=False being kept across a pooled connection.
"""


def headings_of(name: str, text: str) -> list[str]:
    return [c.heading_path for c in chunk_document(parse(name, text.encode()))]


def test_each_release_of_an_underlined_change_log_is_its_own_section() -> None:
    paths = headings_of("HISTORY.md", HISTORY)
    assert paths == [
        "Release History > 2.32.3 (2024-05-29)",
        "Release History > 2.32.0 (2024-05-20)",
    ]


def test_the_chunk_text_and_line_numbers_stay_those_of_the_file() -> None:
    chunks = chunk_document(parse("HISTORY.md", HISTORY.encode()))
    lines = split_lines(HISTORY)
    security = chunks[-1]
    assert "verify=False" in security.text and "2.32.3" not in security.text
    assert security.lines is not None
    first, last = security.lines
    assert "**Security**" in lines[first - 1] and "verify=False" in lines[last - 1]


def test_myst_markdown_reads_underlined_headings_too() -> None:
    text = "Guide\n=====\n\n```{note}\nA note.\n```\n\nSetup\n-----\n\nRun it.\n"
    assert headings_of("guide.md", text)[-1] == "Guide > Setup"


def test_what_the_underline_could_mean_otherwise_stays_text() -> None:
    cases = [
        "- a list item\n---\n",  # a rule under a list
        "> quoted\n---\n",
        "| a | b |\n|---|---|\n",
        "    indented code\n    ---\n",
        "```\ncode\n---\n```\n",  # inside a fence
        "---\ntitle: front matter\n---\n",
        "one paragraph\nof two lines\n---\n",  # CommonMark's heading; left as text
        "1. first\n---\n",
        "# Title\n---\n",  # a heading and then a rule
        "x\n--\n",  # too short to tell from a typed dash pair
    ]
    for text in cases:
        assert underlined_to_atx(text) == text, text


def test_a_line_longer_than_a_heading_path_over_a_rule_stays_text() -> None:
    """A heading path keeps HEADING_MAX_CHARS of a title; a paragraph of one long line
    over `---` (a rule after it, in the writer's mind) became a heading, and its words
    past the cut ("sextant") were in no chunk."""
    line = " ".join(["provisioning"] * 30) + " sextant"
    text = f"Intro\n\n{line}\n---\n\nbody\n"
    assert len(line) > HEADING_MAX_CHARS
    assert underlined_to_atx(text) == text
    chunks = chunk_document(parse("notes.md", text.encode()))
    assert any("sextant" in c.text for c in chunks)


def test_front_matter_with_a_blank_line_stays_front_matter() -> None:
    """Hugo and Jekyll front matter may hold blank lines: its last key, after one, stood
    alone over the closing `---` and became a heading over the text that follows."""
    text = "---\ntitle: Tide tables\n\ndraft: false\n---\n\nIntro text.\n\nSetup\n-----\n\nRun.\n"
    rewritten = underlined_to_atx(text)
    assert "## draft: false" not in rewritten
    assert "## Setup" in rewritten  # the headings after it still are
    # A file that opens with a rule, not YAML, still has its underlined headings.
    ruled = "---\n\nIntro text.\n\nSetup\n-----\n\nRun.\n"
    assert "## Setup" in underlined_to_atx(ruled)


def test_plain_text_keeps_its_own_heading_rules() -> None:
    # Plain text's underlines are read by text_headings, not rewritten into the text.
    text = "Overview\n--------\n\nWords here.\n"
    document = parse("notes.txt", text.encode())
    assert document.text == text


def test_linear_in_the_number_of_lines() -> None:
    def text(n: int) -> str:
        return "title\n---\n" * n + "a\n" * n

    ratio = growth_ratio(underlined_to_atx, text(20_000), text(80_000))
    assert ratio < 12  # 4× the lines: linear 4, quadratic 16
