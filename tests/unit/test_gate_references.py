"""gate.references: which named identifiers are references the documents would have,
and which plain names a user may have made up as an example. (The share a chunk holds is
the retriever's: tests/component/test_gate_references_held.py.)"""

from __future__ import annotations

from ragd.query.gate import references
from ragd.query.question import analyse
from ragd.query.support import identifier_share
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
    assert references(asked) == frozenset()  # nothing referred to can be missing


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
        assert references(asked) == frozenset(asked.identifiers), question
        texts = (EMPHASIS.heading, EMPHASIS.text, EMPHASIS.source)
        assert identifier_share(sorted(references(asked)), texts) == 0.0, question


def test_a_reference_the_passage_holds_is_held() -> None:
    asked = analyse("What does the legacy_em() extension change?")
    assert references(asked) == {"legacy_em"}
    assert identifier_share(["legacy_em"], (EMPHASIS.heading, EMPHASIS.text)) == 1.0


def test_a_plain_name_inside_a_longer_name_that_is_called_is_no_reference() -> None:
    # "get_x" is written inside "my_get_x()": that call is my_get_x's, not get_x's.
    asked = analyse("Does my_get_x() wrap get_x?")
    assert asked.identifiers == ("my_get_x", "get_x")
    assert references(asked) == {"my_get_x"}
    # Written on its own and called, it is one.
    assert references(analyse("Does my_get_x wrap get_x()?")) == {"get_x"}
