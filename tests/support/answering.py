"""Helpers shared by the tests of the model answerers (Claude, OpenAI-compatible)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragproto.errors import ModelError
from tests.support.chunks import make_chunk

RETURNS = make_chunk(support=0.61)
DOGS = make_chunk("pets.md", "Animals: dogs", "Dogs travel free on a lead.", support=0.42)


class RecordingSleep:
    """Stands in for time.sleep between retries: records the waits, waits for nothing."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def raise_model_error(call: Any) -> ModelError:
    with pytest.raises(ModelError) as caught:
        call()
    return caught.value


def json_reply(**overrides: Any) -> str:
    """A --json reply that satisfies the contract, with some fields replaced."""
    value: dict[str, Any] = {
        "answer": "Thirty days [handbook.md:Tickets > Returns].",
        "citations": [{"source": "handbook.md", "heading": "Tickets > Returns", "score": 0.99}],
        "confidence": "high",
        "refused": False,
    }
    value.update(overrides)
    return json.dumps(value)
