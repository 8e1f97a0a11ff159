"""gate.references_held: which named identifiers are references the documents would have,
and which plain names a user may have made up as an example."""

from __future__ import annotations

from ragd.query.gate import references_held
from ragd.query.question import analyse
from tests.support.chunks import make_chunk

EMPHASIS = make_chunk(
    "syntax.md",
    "Emphasis",
    "Underscores inside a word no longer start emphasis; use the legacy_em extension.",
    support=0.3,
)


def test_a_plain_name_made_up_as_an_example_is_no_reference() -> None:
    asked = analyse("How do I get underscores in the middle of words_like_this to emphasise?")
    assert asked.identifiers == ("words_like_this",)
    assert references_held(asked, EMPHASIS) == 1.0  # nothing referred to is missing


def test_releases_options_constants_and_calls_are_references() -> None:
    for question in (
        "What changed in release 2.8.1?",
        "What does the --force option do?",
        "Can I set MARKDOWN_EXTENSIONS in the environment?",
        "How do I use regexp_replace() on a column?",
        "What does strict_types=True do?",
    ):
        asked = analyse(question)
        assert asked.identifiers, question
        assert references_held(asked, EMPHASIS) == 0.0, question


def test_a_reference_the_passage_holds_is_held() -> None:
    asked = analyse("What does the legacy_em() extension change?")
    assert references_held(asked, EMPHASIS) == 1.0
