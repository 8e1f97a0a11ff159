"""`embed_precision = "auto"` settled without making the first index wait.

The daemon starts indexing with float32 (or the decision already known for this machine:
ragd.index.precision.settled). When this machine has never been measured, a thread at the
lowest priority measures it (a few CPU seconds, on one core, so the writer keeps the rest)
and switches the shared embedder when the result is in: the writer reads the precision
per batch, and the two precisions' vectors agree (cosine ≥ 0.999, same top-10) whenever
bfloat16 is chosen, so windows embedded before and after the switch mix safely.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ragd.core.priority import lowest_priority
from ragd.index.precision import Cancelled, Decision, choose, settled

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder

log = logging.getLogger("ragd")

MEASURING = "float32 while float32 and bfloat16 are measured (once per machine)"


def initial(setting: str, embedder: MiniLMEmbedder) -> Decision:
    """The precision in force from READY on (applied to `embedder`): the configured one,
    this machine's known decision, or float32 while a PrecisionTask measures."""
    if setting != "auto":
        return Decision(embedder.precision, "set by embed_precision")
    known = settled(embedder.model_id)
    if known is None:
        return Decision("float32", MEASURING)
    embedder.precision = known.precision  # type: ignore[assignment]
    return known


class PrecisionTask:
    """The precision in force (`decision`, what `rag stats` shows); when that is MEASURING,
    `start` measures this machine in the background, then applies the result."""

    def __init__(
        self, embedder: MiniLMEmbedder, decision: Decision, stopping: Callable[[], bool]
    ) -> None:
        self._embedder = embedder
        self.decision = decision  # `initial`'s, replaced once a measurement decides
        self._stopping = stopping
        self._thread: threading.Thread | None = None

    def start(self) -> PrecisionTask:
        self._thread = threading.Thread(target=self._run, name="ragd-precision", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float) -> bool:
        """Wait for a running measurement to notice shutdown (it checks between blocks of
        a few windows); False if it is still inside torch after `timeout`."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        lowest_priority()
        try:
            decision = choose(self._embedder, cancelled=self._stopping)
        except Cancelled:
            log.info("precision measurement interrupted by shutdown (nothing cached)")
            return
        except Exception:  # float32 stays: it is always safe
            log.exception("measuring the embedding precision failed; staying with float32")
            return
        self._apply(decision)

    def _apply(self, decision: Decision) -> None:
        self._embedder.precision = decision.precision  # type: ignore[assignment]
        self.decision = decision
