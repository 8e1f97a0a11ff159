"""Which users' searches are running, so background work on the same index can wait for
them to finish instead of sharing the CPU with them.

Why: the floor's idle-time measurement (calibration.FloorKeeper) asks the index 288
questions, a slice at a time, from a thread of its own. It holds no lock a search needs,
but on two cores it shares them (and the GIL) with the user's search: on a 458-chunk
index a search took twice as long during a measurement, three times at the 90th
percentile. The measurement now starts no bank question while a search runs, which brings
that to 1.1x and 1.4x (bench/floor_contention.py, docs/performance.md).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class InFlight:
    def __init__(self) -> None:
        self._running = 0
        self._changed = threading.Condition()

    @contextmanager
    def running(self) -> Iterator[None]:
        """Around one search."""
        with self._changed:
            self._running += 1
        try:
            yield
        finally:
            with self._changed:
                self._running -= 1
                if not self._running:
                    self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """True once no search runs; False if one still did after `timeout` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._running, timeout)
