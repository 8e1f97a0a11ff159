"""A chat question that leans on an earlier one is searched with the chat's subject."""

from __future__ import annotations

import pytest

from ragd.query.follow_up import leans_on_earlier, searched_text

SUBJECT = "What does KSF-E417 mean?"


@pytest.mark.parametrize(
    "question",
    [
        "and what should I do about it?",
        "How do I clear it?",
        "what about in winter?",
        "Is that free?",
        "Where do they go after that?",
        "and the fee?",
        "Does it cost anything?",
    ],
)
def test_a_question_that_refers_back_and_names_little_leans(question: str) -> None:
    assert leans_on_earlier(question)
    assert searched_text(question, SUBJECT) == f"{SUBJECT} {question}"


@pytest.mark.parametrize(
    "question",
    [
        "What is the capital of Mongolia?",  # its own subject, no reference back
        "and what about KSF-E418?",  # a new identifier: a new subject
        "How do I install it on a Debian server behind a proxy?",  # names enough itself
        "Can I bring my dog on the ferry?",
        "",
    ],
)
def test_a_question_naming_its_own_subject_is_searched_alone(question: str) -> None:
    assert not leans_on_earlier(question)
    assert searched_text(question, SUBJECT) == question


def test_without_a_subject_yet_the_question_is_searched_as_asked() -> None:
    assert searched_text("and how do I clear it?", "") == "and how do I clear it?"
