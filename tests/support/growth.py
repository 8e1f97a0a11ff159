"""How a function's CPU time grows from an input to one 4× its size, for the tests that
hold content-dependent work to linear time (tests/unit/test_regex_linear.py,
tests/unit/test_man_pages.py, the code lexers', setext's, HTML comments' and the gate's
references' checks): a ratio of two times measured in the same run, never an absolute
time, with the collector off and a ratio at the limit measured again (the Rust lexer's
own timing, best of two with the collector on, once read 8.1× for a 4× input)."""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Sequence
from typing import Any

GROWTH_LIMIT = 8.0  # 4× the input: linear ≈ 4× the time, quadratic ≈ 16×
RETRY_REPEATS = 3  # a ratio at the limit is measured again, the best of this many of each


def cpu_cost(run: Callable[[Any], object], text: Any, repeats: int = 3, loops: int = 1) -> float:
    """The least CPU time (`process_time`) of `repeats` measurements, each of `loops` runs."""
    best = float("inf")
    collecting = gc.isenabled()
    gc.disable()  # a collection pause inside one timing is not the function's cost
    try:
        for _ in range(repeats):
            start = time.process_time()
            for _ in range(loops):
                run(text)
            best = min(best, time.process_time() - start)
    finally:
        if collecting:
            gc.enable()
    return best


def cpu_costs(run: Callable[[Any], object], texts: Sequence[Any]) -> list[float]:
    """The CPU time (`process_time`) of one run on each of `texts`, back to back: one clock
    reading between two runs and the collector off for the whole pass, where `cpu_cost`
    per text takes two readings and turns the collector off and on (at ≈ 2 µs a reading
    here, that overhead was half the cost of screening thousands of inputs of 256
    characters). Each figure is the time from one reading to the next, so it carries one
    reading and one turn of the loop: the same for every text, so an order by cost is
    the order by the run's own cost."""
    stamps = [0.0] * (len(texts) + 1)
    collecting = gc.isenabled()
    gc.disable()  # a collection pause inside one timing is not the function's cost
    try:
        stamps[0] = time.process_time()
        for at, text in enumerate(texts, start=1):
            run(text)
            stamps[at] = time.process_time()
    finally:
        if collecting:
            gc.enable()
    return [after - before for before, after in itertools.pairwise(stamps)]


def growth_ratio(
    run: Callable[[Any], object],
    small: Any,
    large: Any,
    repeats: int = 3,
    loops: int = 1,
    small_seen: float | None = None,
) -> float:
    """CPU time on `large` (4× the input) over CPU time on `small`.

    The first look times `large` once and `small` the best of `repeats`. Noise (another
    process on the core, a cold cache) only ever adds CPU time, so one sample of `large`
    can only overstate the ratio, never hide a super-linear cost: a linear function that a
    busy machine pushes to the limit is measured again, the best of `RETRY_REPEATS` of
    each, and a quadratic one is over it both times. `large` costs 4× `small`, so a check
    that passes takes about half the time of timing `large` `repeats` times.

    `small_seen`: the CPU time of `loops` runs on `small` that the caller measured already
    (the last step of its search for a size that takes long enough), counted as one of
    the `repeats`: the best is still of `repeats` measurements."""
    if small_seen is None:
        small_cost = cpu_cost(run, small, repeats, loops)
    else:
        small_cost = min(small_seen, cpu_cost(run, small, repeats - 1, loops))
    ratio = cpu_cost(run, large, 1, loops) / max(small_cost, 1e-9)
    if ratio >= GROWTH_LIMIT:
        again = cpu_cost(run, large, RETRY_REPEATS, loops)
        ratio = min(ratio, again / max(cpu_cost(run, small, RETRY_REPEATS, loops), 1e-9))
    return ratio
