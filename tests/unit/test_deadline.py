"""`core/deadline.within`: a call waited for at most so long, its thread left to finish."""

from __future__ import annotations

import threading

import pytest

from ragd.core.deadline import Late, within


def test_a_prompt_call_gives_its_value_or_its_error() -> None:
    assert within(5.0, lambda: 42, name="test-within") == 42
    with pytest.raises(ValueError, match="bad"):
        within(5.0, lambda: int("bad"), name="test-within")


def test_work_given_up_on_is_counted_until_it_ends_and_its_late_value_is_closed() -> None:
    go = threading.Event()
    events: list[str] = []
    ended = threading.Event()

    def work() -> str:
        go.wait(30)
        return "late value"

    def on_end() -> None:
        events.append("ended")
        ended.set()

    with pytest.raises(Late, match=r"no reply within 0\.05 s"):
        within(
            0.05,
            work,
            close=lambda value: events.append(f"closed {value}"),
            name="test-within",
            abandoned=lambda: events.append("abandoned"),
            ended=on_end,
        )
    assert events == ["abandoned"]
    go.set()
    assert ended.wait(30)
    assert events == ["abandoned", "closed late value", "ended"]


def test_late_work_that_fails_still_ends() -> None:
    go = threading.Event()
    ended = threading.Event()

    def work() -> None:
        go.wait(30)
        raise OSError("gone")

    with pytest.raises(Late):
        within(0.05, work, name="test-within", ended=ended.set)
    go.set()
    assert ended.wait(30)


def test_late_work_whose_close_fails_still_ends() -> None:
    """review42: a `close` that raised skipped `ended()`, so a caller counting stuck work
    (ChromaStore's searches skip the store while any is) counted it stuck for good."""
    go = threading.Event()
    ended = threading.Event()

    def close(value: str) -> None:
        raise OSError(f"cannot close {value}")

    with pytest.raises(Late):
        within(0.05, lambda: go.wait(30) and "handle", close, name="test-within", ended=ended.set)
    go.set()
    assert ended.wait(30)
