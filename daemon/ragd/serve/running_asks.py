"""The asks under way, by client and request id, so that a client giving up reaches its own.

An ask waiting on a model server holds an ask worker (4 of them) and, with a real API,
costs tokens until its deadline (220 s with the defaults), whether or not anyone still
listens: 4 `rag ask`s stopped with Ctrl-C on a hung server left the next user's question
waiting 31 s (attack61). Two things now end such an ask:

* the client says so: `rag` sends `cancel` with the request's id on Ctrl-C, `rag mcp` on
  the host's `notifications/cancelled` (`cancel_request`, the `cancel` op's handler);
* the client is gone: a reply frame for it found no connection (the door or the server's
  ROUTER said so: serve/server.py), at the latest its ask's next `wait` frame
  (WAIT_INTERVAL_S), for a client killed without a word (`gone`).

Ids are the client's own, so an entry is keyed by the connection (its routing identity)
and the id: another client's cancel naming the same id reaches nothing. A cancel is
idempotent. The server registers an ask on its loop before handing it to a worker, and
reads a connection's frames in order, so a cancel sent after its ask always finds it
(queued, running, or already done: then nothing happens). A cancel that names an id this
client has not sent (yet) is kept, a few hundred at most, and an ask arriving with that
id is cancelled at once: a client that pipelines over two paths cannot outrun its cancel.
One naming an ask of this client that has ended is not kept: a Ctrl-C that raced the final
frame was kept, and the next question of a client that sends the same id each time ("1")
was swallowed without a frame (attack62). The ended ones are remembered as few.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

from ragd.query.cancellation import Cancel
from ragd.serve.arguments import arg_str

EARLY_CANCELS = 256  # cancels kept for an ask not (yet) seen, oldest forgotten first

Key = tuple[bytes, str]  # (the client's routing identity, its request id)


class ClientRequest(Protocol):
    """What the `cancel` op reads of its request (serve/server.py's Request, which imports
    this module)."""

    client: bytes
    args: dict[str, Any]


class RunningAsks:
    """The cancellation of every ask under way, by (client, request id)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._asks: dict[Key, list[Cancel]] = {}
        self._early: OrderedDict[Key, None] = OrderedDict()
        self._ended: OrderedDict[Key, None] = OrderedDict()  # asks done, newest last

    def start(self, client: bytes, request_id: str) -> Cancel:
        """An ask begins (on the loop, before a worker takes it): its cancellation."""
        cancel = Cancel()
        key = (client, request_id)
        with self._lock:
            self._ended.pop(key, None)
            if key in self._early:
                del self._early[key]
                cancel.cancel()  # (nothing waits on it yet: no waker to run)
            self._asks.setdefault(key, []).append(cancel)
        return cancel

    def done(self, client: bytes, request_id: str, cancel: Cancel) -> None:
        """The ask ended (answered, failed or cancelled): forgotten."""
        key = (client, request_id)
        with self._lock:
            running = self._asks.get(key, [])
            if cancel in running:
                running.remove(cancel)
            if not running:
                self._asks.pop(key, None)
                self._ended[key] = None
                self._ended.move_to_end(key)
                while len(self._ended) > EARLY_CANCELS:
                    self._ended.popitem(last=False)

    def cancel(self, client: bytes, request_id: str) -> bool:
        """Cancel that client's ask with that id; False when none is under way (it is kept
        for an ask still to come)."""
        key = (client, request_id)
        with self._lock:
            running = list(self._asks.get(key, []))
            if not running and key not in self._ended:  # (one that ended: nothing to do)
                self._early[key] = None
                self._early.move_to_end(key)
                while len(self._early) > EARLY_CANCELS:
                    self._early.popitem(last=False)
        # (outside the lock: waking shuts a socket down, and `done` may be waiting)
        return any([cancel.cancel() for cancel in running])

    def gone(self, client: bytes) -> int:
        """The client's connection is gone: every ask of it cancelled; how many."""
        with self._lock:
            running = [c for (who, _), asks in self._asks.items() if who == client for c in asks]
        return sum(cancel.cancel() for cancel in running)

    def cancel_request(self, request: ClientRequest) -> dict[str, Any]:
        """The `cancel` op: `{"id": …}`, one of this client's own requests."""
        request_id = arg_str(request.args, "id", max_len=128)
        return {"cancelled": self.cancel(request.client, request_id)}
