"""A chat question that leans on an earlier one is searched with the chat's subject."""

from __future__ import annotations

import pytest

from ragd.query.follow_up import found_with_subject, leans_on_earlier, searched_text

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


@pytest.mark.parametrize(
    ("question", "best_passage", "found"),
    [
        # Referring back by its opening alone, it names the new thing in its own words:
        # a best passage without one of them answers the earlier question instead.
        ("What about bicycles?", "KSF-E417: card reader did not respond", False),
        ("what about Mongolia?", "Dogs travel free if they are kept on a lead.", False),
        ("What about bicycles?", "Each bicycle is charged £2.00 per crossing.", True),
        ("what about in winter?", "The winter timetable covers the rest of the year.", True),
        # A pronoun beside a topic it names after "about": the topic is the new thing.
        ("and what does it say about bicycles?", "KSF-E417: card reader did not respond", False),
        ("and what does it say about bicycles?", "Each bicycle is charged £2.00.", True),
        ("and what should I do about it?", "Unplug the reader for 10 seconds.", True),
        # A word that refers back: its own words ask something of the subject.
        ("How do I clear it?", "Unplug the reader for 10 seconds.", True),
        ("and then?", "anything", True),
    ],
)
def test_a_follow_up_naming_a_new_thing_needs_it_in_the_best_passage(
    question: str, best_passage: str, found: bool
) -> None:
    assert leans_on_earlier(question)
    assert found_with_subject(question, best_passage) is found
