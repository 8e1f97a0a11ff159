from __future__ import annotations

import pytest

from ragd.query.enumeration import enumerates, introduces, listed_noun, names_inline


@pytest.mark.parametrize(
    ("question", "stem"),
    [
        ("Is isoparse stricter, and which ISO 8601 formats does it accept?", "forma"),
        ("How do I build without fakeroot, and what values can Rules-Requires-Root take?", "value"),
        ("Which preprocessors does man-db run on pages by default?", "prepr"),
        ("What configure options does man-db accept beyond the standard ones?", "optio"),
        ("Which key types can ssh-keygen -t create?", "types"),
        # the verb before the noun: "what are the …s"
        ("What are the steps to move an existing crate to the 2021 edition?", "steps"),
        ("Which are the supported archive formats?", "forma"),
    ],
)
def test_a_question_naming_what_it_wants_listed(question: str, stem: str) -> None:
    assert listed_noun(question) == stem


@pytest.mark.parametrize(
    "question",
    [
        "What does StrictHostKeyChecking yes do?",  # "does" is the verb, not a plural noun
        "How do I read timezone definitions from an .ics file?",
        "Which address is the bug tracker at?",  # singular, ends in "ss"
        "What is the default compression level?",
        "What exit status does grep return when no lines were selected?",  # singular
        "What is the step after cargo fix?",  # "is": one thing
    ],
)
def test_a_question_that_asks_for_no_list(question: str) -> None:
    assert listed_noun(question) is None


DOCSTRING_RUN = """    Supported date formats are:
    Common:
    - ``YYYY``
    - ``YYYY-MM``
    - ``YYYY-MM-DD`` or ``YYYYMMDD``"""


def test_a_docstring_run_enumerates_the_formats_its_lead_in_names() -> None:
    assert enumerates(DOCSTRING_RUN, "forma")
    assert not enumerates(DOCSTRING_RUN, "value")  # it lists formats, not values


def test_a_lead_in_without_items_after_it_enumerates_nothing() -> None:
    # A lead-in that ends the unit: its items are another unit (quoted with it anyway).
    assert not enumerates("The case sensitive values are defined as:", "value")
    assert not enumerates("Supported date formats are:\n- ``YYYY``", "forma")  # one item


def test_a_lead_in_names_the_listed_thing_and_ends_in_a_colon() -> None:
    assert introduces("The case sensitive values are defined as:", "value")
    assert not introduces("The values are defined below.", "value")
    assert not introduces("- values:", "value")  # an item, not what introduces the items


def test_a_sentence_naming_the_listed_things_by_name_enumerates_them() -> None:
    """nu26 (signal(7)): "Which signals can a process not catch or ignore?" is answered by
    "The signals SIGKILL and SIGSTOP cannot be caught, blocked, or ignored.", a list
    written inside a sentence: the noun, then two or more names joined by "and", "or" or
    commas."""
    assert names_inline("The signals SIGKILL and SIGSTOP cannot be caught.", "signa")
    assert names_inline("Both formats, `YAML`, `JSON` or TOML, are read.", "forma")
    assert names_inline("The values 0, 1 and 2 are accepted.", "value")
    assert not names_inline("The signals SIGKILL and SIGSTOP cannot be caught.", "value")
    assert not names_inline("Most signals can be caught and ignored.", "signa")  # no names
    assert not names_inline("The signal SIGKILL ends it.", "signa")  # one name is no list
    assert not names_inline("Signals and timers are both events.", "signa")
