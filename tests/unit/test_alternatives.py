"""Which things a question names side by side, each of which its answer must speak to."""

from __future__ import annotations

from ragd.query.alternatives import named_side_by_side


def test_names_joined_by_or_and_or_a_comma_list_are_found_in_order() -> None:
    assert named_side_by_side("How do I ship my tide logs to Graylog or Elasticsearch?") == [
        "Graylog",
        "Elasticsearch",
    ]
    assert named_side_by_side("Does the kiosk run on Linux, macOS or Windows?") == [
        "Linux",
        "macOS",
        "Windows",
    ]
    assert named_side_by_side("Should I use `JSONRenderer` or `ConsoleRenderer`?") == [
        "JSONRenderer",
        "ConsoleRenderer",
    ]


def test_plain_words_and_the_first_word_are_not_names() -> None:
    # Qualities joined by "and" are not things; every question capitalises its first word.
    assert named_side_by_side("Is the ferry booking fast and safe?") == []
    assert named_side_by_side("Tides or currents: which sets the timetable?") == []
    assert named_side_by_side("Can I pay by card or Cash?") == []
