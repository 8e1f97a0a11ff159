"""gate.references: which named identifiers are references the documents would have,
and which plain names a user may have made up as an example. (The share a chunk holds is
the retriever's: tests/component/test_gate_references_held.py.)"""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragd.query.gate import references
from ragd.query.question import QuestionAnalysis, analyse
from ragd.query.support import identifier_share
from tests.support.chunks import make_chunk
from tests.support.growth import growth_ratio

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


def test_an_option_may_be_the_users_own_so_it_is_no_reference() -> None:
    # commander's folder (bench/heldout/nu36): users of a library for command lines name
    # their own program's flags, which no document holds. Six of its 30 answerable
    # questions were refused for a missing option before.
    for question, option in (
        (
            "values come back as strings; I need --count as a number. how do I convert it?",
            "--count",
        ),
        ("how do I support --no-color so users can switch colours off?", "--no-color"),
        ("What does the --force option do?", "--force"),
        ("Which version of xz introduced the --lzma3 filter?", "--lzma3"),  # a digit too
    ):
        asked = analyse(question)
        assert option in asked.identifiers, question
        assert references(asked) == frozenset(), question


def test_releases_constants_and_calls_are_references() -> None:
    for question in (
        "What changed in release 2.8.1?",
        "Can I set MARKDOWN_EXTENSIONS in the environment?",
        "How do I use regexp_replace() on a column?",
        "What does strict_types=True do?",
        # Called or set after two blanks or more (only the two characters after a name
        # were looked at, so these were plain names):
        "How do I use regexp_replace  () on a column?",
        "What does strict_types   = True do?",
        "Does strict_types\t=\tTrue change it?",
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


def test_a_name_inside_a_url_is_neither_called_nor_set() -> None:
    # The query string of a pasted link sets nothing the user named.
    asked = analyse("Why does https://example.com/list?page_size=2 return nothing?")
    assert asked.identifiers == ("page_size",)
    assert references(asked) == frozenset()
    # Set outside the URL it still is, even with the same name inside one.
    asked = analyse("Should page_size = 20 match https://x.org/a?page_size=3&max_rows=2?")
    assert set(asked.identifiers) == {"page_size", "max_rows"}
    assert references(asked) == {"page_size"}
    # A "://" with no scheme before it opens no URL.
    assert references(analyse("Is ://host a thing when max_rows=2?")) == {"max_rows"}


@pytest.mark.parametrize("pump", [" ", "a://b ", "x_y" + " " * 20, "https://x_y?x_y=1&x_y=2 "])
def test_references_are_linear_in_the_question(pump: str) -> None:
    base = analyse("Does x_y change it?")

    def asked(n: int) -> QuestionAnalysis:
        return replace(base, text=pump * n + " x_y")

    ratio = growth_ratio(references, asked(5_000), asked(20_000))
    assert ratio < 12  # 4× the question: linear 4, quadratic 16
