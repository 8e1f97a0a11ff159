"""A call that may hang, waited for at most so long: it runs on a thread of its own.

Python cannot interrupt a thread blocked in native code (a ChromaDB client waiting on a
server that accepted TCP and never replies, an SQLite read waiting on another process's
lock), so the caller stops waiting instead and the thread is left to finish on its own.
Two callers: opening a vector server's clients (`index/server_store.py`) and a search's
read of the embedded vector store (`index/dense.py`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class Late(Exception):
    """`within` gave up waiting."""


def _nothing() -> None:
    """No hook."""


def within(
    seconds: float,
    work: Callable[[], T],
    close: Callable[[T], None] | None = None,
    *,
    name: str,
    abandoned: Callable[[], None] = _nothing,
    ended: Callable[[], None] = _nothing,
) -> T:
    """`work()`'s value, or Late after `seconds` (its exception is re-raised), run on a
    thread called `name`. Work given up on runs on: `abandoned()` is called as the caller
    gives up, `ended()` once that work ends, always in that order (the caller can count
    what is still stuck); a value it gives after the deadline is handed to `close`
    instead of being used."""
    lock = threading.Lock()
    box: dict[str, Any] = {}
    finished = threading.Event()

    def run() -> None:
        try:
            value = work()
        except BaseException as exc:
            with lock:
                box["error"] = exc
                late = box.get("abandoned", False)
        else:
            with lock:
                box["value"] = value
                late = box.get("abandoned", False)
            if late and close is not None:
                try:
                    close(value)
                except Exception as exc:  # nobody to hand it to; the work has still ended
                    log.warning("%s: closing what came after the deadline failed: %s", name, exc)
        if late:
            ended()
        finished.set()

    threading.Thread(target=run, name=name, daemon=True).start()
    if not finished.wait(seconds):
        with lock:
            if "value" not in box and "error" not in box:
                box["abandoned"] = True
                abandoned()
                raise Late(f"not answering (no reply within {seconds:g} s)")
        finished.wait()  # it ended just now: its outcome is used
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
