"""Which kind of value a question asks for (the gate's answer-type check)."""

from __future__ import annotations

import pytest

from ragd.query.answer_type import asked_type


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # nu21 a04: the answer is a setting, `Acquire::http::Dl-Limit "800"`, not an amount.
        ("Is there a way to limit how much bandwidth apt uses when it downloads updates?", None),
        ("How do I change how often sse-starlette sends ping messages?", None),
        ("How can I cap how many connections the proxy opens?", None),
        ("How much bandwidth does apt use by default?", "amount"),
        ("I want to see how much disk space the cache takes.", "amount"),
        ("How often does the timer fire, and can I limit it?", "duration"),
        ("How many packages can I limit the download to?", "count"),
    ],
)
def test_a_verb_of_control_before_how_much_asks_how_not_how_much(
    question: str, kind: str | None
) -> None:
    assert asked_type(question) == kind
