"""A request's file system calls get one deadline, waiting for a parked slot included
(fix23, item 5). Before: a request that found all `MAX_STUCK` slots held by look-ups
stuck on a mount waited up to `disk_deadline_s` for one, then the whole deadline again
for its own call, so a slot freed late made the request last twice the deadline.

The calls here take a fixed share of the deadline (`time.sleep`, on their own threads):
the assertions are on the verdict, not on how long anything took."""

from __future__ import annotations

import threading
import time

import pytest

from ragd.serve.disk_calls import MAX_STUCK, Deadline, within_deadline
from ragproto.errors import BadRequest

DEADLINE_S = 1.0


def taking(share: float, entered: threading.Semaphore | None = None) -> str:
    """A look-up that takes `share` of the deadline (and says when it started)."""
    if entered is not None:
        entered.release()
    time.sleep(share * DEADLINE_S)
    return "looked up"


def test_a_call_within_the_deadline_is_answered() -> None:
    assert within_deadline(lambda: taking(0.3), "x.md", Deadline(DEADLINE_S)) == "looked up"


def test_the_wait_for_a_parked_slot_counts_against_the_request_s_deadline() -> None:
    entered = threading.Semaphore(0)
    holders = [
        threading.Thread(
            target=within_deadline, args=(lambda: taking(0.6, entered), "held", Deadline(60))
        )
        for _ in range(MAX_STUCK)
    ]
    for holder in holders:
        holder.start()
    for _ in holders:  # every slot taken, each for 0.6 deadlines
        assert entered.acquire(timeout=60)
    try:
        # A slot frees after 0.6 deadlines; a call of 0.6 more ends past the one deadline.
        with pytest.raises(BadRequest, match=r"did not answer within 1 s while looking up x\.md"):
            within_deadline(lambda: taking(0.6), "x.md", Deadline(DEADLINE_S))
    finally:
        for holder in holders:
            holder.join(60)
