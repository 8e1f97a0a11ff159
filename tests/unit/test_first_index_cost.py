"""bench/first_index_cost.py splits a first index's CPU into stages by wrapping the calls
that make them up; a stage called from inside another (the embedder's count_tokens from
its own embed, a store write inside another) must be counted once, by the outer stage,
or the stages would add up to more than the whole."""

from __future__ import annotations

import time

from bench.first_index_cost import Meter


class Work:
    def __init__(self) -> None:
        self.spent: list[float] = []

    def inner(self, rounds: int) -> int:
        started = time.process_time()
        total = sum(i * i for i in range(rounds))
        self.spent.append(time.process_time() - started)
        return total

    def outer(self, rounds: int) -> int:
        return self.inner(rounds) + self.inner(rounds)


def test_a_nested_call_counts_once_by_the_outer_stage() -> None:
    meter = Meter()
    meter.wrap(Work, "inner", "inner")
    meter.wrap(Work, "outer", "outer")
    work = Work()
    assert work.outer(200_000) == 2 * sum(i * i for i in range(200_000))
    assert meter.calls == {"outer": 1}
    # The outer stage holds at least the CPU its two inner calls measured themselves.
    assert meter.cpu["outer"] >= sum(work.spent) > 0
    work.inner(1000)  # called on its own, it is its own stage
    assert meter.calls == {"outer": 1, "inner": 1}


def test_a_stage_adds_up_over_its_calls() -> None:
    meter = Meter()
    spent = 0.0
    for _ in range(3):
        with meter.stage("loop"):
            started = time.process_time()
            sum(range(100_000))
            spent += time.process_time() - started
    assert meter.calls["loop"] == 3
    assert meter.cpu["loop"] >= spent
