"""One answer's cancellation: set once, from another thread, and felt where the answer waits.

A client that gives up on its question (Ctrl-C, an MCP host's cancel, a client gone from
its connection) should stop costing the daemon: its ask worker, and with a real API its
tokens. The thread answering may be blocked in a read from a silent model server, which
no flag can reach: so whatever blocks registers how to wake it (`waking`: the call's
socket is shut down, call_deadline.py), and `cancel()` runs those wakers from the
cancelling thread. A socket's `close()` from another thread does not end a blocked
`recv`; `shutdown()` does (it returns end-of-file at once).

Cancelling twice, or after the answer ended, does nothing more; a waker registered after
the cancel runs at once, so a cancel that comes between two reads is not missed; and one
whose block has ended never runs (wakers run under the lock their removal takes), so a
connection handed on to another call is not shut down under it.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import threading
from collections.abc import Callable, Iterator

from ragproto.errors import Cancelled

log = logging.getLogger("ragd.query.cancellation")

CANCELLED = "the client cancelled its question"

Waker = Callable[[], None]


class Cancel:
    """Set once; wakes whatever the answer is blocked in when it is."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._wakers: dict[int, Waker] = {}
        self._keys = itertools.count()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> bool:
        """Cancel (True the first time only) and wake what waits."""
        with self._lock:
            if self._event.is_set():
                return False
            self._event.set()
            # Under the lock: a block that has left `waking` (its read done, its
            # connection back in the pool for another call) is never woken late.
            for wake in self._wakers.values():
                _wake(wake)
            self._wakers.clear()
        return True

    @contextlib.contextmanager
    def waking(self, wake: Waker) -> Iterator[None]:
        """While the block runs, a cancel calls `wake` (from the cancelling thread); one
        that came already calls it now, so the blocking call ends at once."""
        with self._lock:
            key = next(self._keys)
            now = self._event.is_set()
            if not now:
                self._wakers[key] = wake
        if now:
            _wake(wake)
        try:
            yield
        finally:
            with self._lock:
                self._wakers.pop(key, None)

    def on_cancel(self, wake: Waker) -> None:
        """`wake` runs once when cancelled (from the cancelling thread), now if it already
        is; never removed (a queued ask's: serve/server.py drops it from its queue)."""
        with self._lock:
            if not self._event.is_set():
                self._wakers[next(self._keys)] = wake
                return
        _wake(wake)

    def check(self) -> None:
        """Raise Cancelled when cancelled: the answer ends where it is."""
        if self._event.is_set():
            raise Cancelled(CANCELLED)

    def sleep(self, seconds: float) -> None:
        """Wait `seconds` (a retry's backoff), ended early by a cancel, which it raises."""
        self._event.wait(seconds)
        self.check()


def _wake(wake: Waker) -> None:
    try:
        wake()
    except OSError as exc:  # a socket already closed: nothing blocks on it any more
        log.debug("waking a cancelled call: %s", exc)
