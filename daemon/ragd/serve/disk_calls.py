"""File system calls a request makes, each given a deadline, on threads of their own.

A request's file system work runs on the search pool (one worker per core), never on the
server loop. A path on a stalled mount (a network file system whose server went away)
makes a `stat` wait for as long as the mount hangs: two `rag search --in /mnt/nfs/x`
held both workers, and every other search of every client went unanswered ("ragd did
not answer within 20 s") until the mount came back. So such a call runs on a thread of
its own and the request waits `disk_deadline_s` for it (a setting, 5 s by default): past
that, the request fails in one line and the worker goes back to searching. At most
`MAX_STUCK` calls are under way at once, so a hung mount costs that many parked threads,
never more; a call that finds them all busy waits for one within the same deadline.

The deadline is the request's (`Deadline`), not each wait's: waiting for a parked slot
and then for the call each had the whole of it, as did each of a request's `--in` paths,
so one request could take twice `disk_deadline_s` (a slot freed just before the deadline,
then a call on the stalled mount), or once per path on a slow mount.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

from ragproto.errors import BadRequest

MAX_STUCK = 4

_under_way = threading.BoundedSemaphore(MAX_STUCK)
T = TypeVar("T")


class Deadline:
    """The time one request's file system calls have in all: `seconds` from now."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ends = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.ends - time.monotonic())


def within_deadline(call: Callable[[], T], what: str, deadline: Deadline) -> T:
    """`call()`'s result, or BadRequest naming `what` when the request's `deadline` passes
    first, waiting for a free slot included (its exception, if it raises in time)."""
    if not _under_way.acquire(timeout=deadline.left()):
        raise _late(what, deadline.seconds)
    outcome: list[T] = []
    failure: list[BaseException] = []
    done = threading.Event()

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed to the request's thread
            failure.append(exc)
        finally:
            _under_way.release()
            done.set()

    threading.Thread(target=run, name="ragd-disk-call", daemon=True).start()
    if not done.wait(deadline.left()):
        raise _late(what, deadline.seconds)
    if failure:
        raise failure[0]
    return outcome[0]


def _late(what: str, deadline: float) -> BadRequest:
    return BadRequest(
        f"the file system did not answer within {deadline:g} s while looking up {what} "
        "(a stalled network mount?)"
    )
