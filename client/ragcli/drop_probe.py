"""Was a closed connection dropped by a running daemon, or did the daemon stop? And is
a daemon that has gone silent stopped by a signal (`stopped_now`)?

Near its open-file limit ragd drops every connection at once and listens again
(ragd's serve/connection_guard.py and serve/door.py: the process holding them ends, and
another starts): the kernel closes them without a word, so a client waiting
for its reply sees only the close, as it would if the daemon had stopped. No reply can
precede the close (most of the connections never sent a request to be answered), so the
client asks afterwards: one `ping` on a fresh connection, once the socket takes one again,
whose reply carries `connections_dropped` (when the last drop was). A drop at or after
this connection was opened closed it: the user is told that, and to try again (exit 4,
as for `busy`), not that ragd stopped. Only on ipc:// (the guard watches nothing else),
only after a close, and bounded: the connection as any client's (zmtp.open_stream_again:
RESTARTING_RETRY_S at most, while the daemon's private socket accepts), its handshake and
reply PROBE_TIMEOUT_S each; any failure leaves the usual "stopped" line.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ragcli.zmtp import (
    REFUSED_RETRY_S,
    REFUSED_STEP_S,
    DealerPeer,
    ZmtpClosed,
    ZmtpError,
    open_stream_again,
)
from ragproto import protocol
from ragproto.connection_drops import dropped_yours
from ragproto.errors import Busy, Stopped
from ragproto.paths import daemon_beside, ipc_path

PROBE_TIMEOUT_S = 2.0
STOPPED_AGAIN_S = 1.0  # after a look finds ragd stopped, the next one (`StoppedLooks`)


def dropped_since(address: str, opened_at: float) -> Busy | None:
    """Busy, in one line, when the daemon at `address` says it dropped every connection
    at or after `opened_at` (wall clock, as the daemon's); None when it did not, or does
    not answer."""
    reply = _ping(address)
    if reply is None:
        return None
    dropped = (reply.get("data") or {}).get("connections_dropped") if reply.get("ok") else None
    if not isinstance(dropped, dict) or not isinstance(dropped.get("last"), int | float):
        return None  # an older ragd, or no drop within the hour
    return Busy(dropped_yours(dropped)) if dropped["last"] >= opened_at else None


def stopped_now(address: str) -> Stopped | None:
    """Stopped, in the door's words, when the daemon at `address` is stopped by a signal
    now (SIGSTOP, a debugger: the door answers every new request so); None otherwise, or
    when nothing answers. Asked by a client whose request meets a long silence: a
    request in flight when the daemon was stopped is answered by nobody (attack73: a
    `rag ask` waited its whole 180 s, then said `ragd did not answer within 180 s`)."""
    reply = _ping(address)
    error = (reply or {}).get("error") or {}
    if reply is None or reply.get("ok") or error.get("type") != Stopped.type_name:
        return None
    return Stopped(str(error.get("message") or "ragd is stopped and cannot answer"))


class StoppedLooks:
    """Whether a request's silence ends because ragd is stopped by a signal, from the looks
    (`stopped_now`) taken during it: only when two in a row find it stopped, the second
    `again_s` after the first. One look may land on a moment's stop (Ctrl-Z then `fg`, a
    debugger attaching): it had ended a healthy `rag ask` with exit 3 (fixes74)."""

    def __init__(self, every_s: float, again_s: float = STOPPED_AGAIN_S) -> None:
        self.every_s, self.again_s = every_s, again_s
        self._first: Stopped | None = None  # the last look, when it found ragd stopped

    def after(self, seen: Stopped | None) -> tuple[Stopped | None, float]:
        """After a look that saw `seen`: the error that ends the request (None: go on
        waiting) and the seconds of silence until the next look."""
        if seen is None:
            self._first = None
            return None, self.every_s
        if self._first is None:
            self._first = seen
            return None, self.again_s
        return seen, 0.0


def _ping(address: str) -> dict[str, Any] | None:
    """The reply to one `ping` on a fresh connection to an ipc:// daemon, or None."""
    if ipc_path(address) is None:
        return None
    peer = _fresh_peer(address)
    if peer is None:
        return None
    try:
        request = protocol.make_request("ping", {}, os.urandom(16).hex())
        peer.send(protocol.encode(dict(request)))
        return protocol.decode(peer.recv(PROBE_TIMEOUT_S))
    except (OSError, ZmtpError, ValueError):
        return None
    finally:
        peer.close()


def _fresh_peer(address: str) -> DealerPeer | None:
    """A connection that completed its handshake, or None. One made as the old listener
    ends is queued on it and then reset: it is made again, for as long as a refused one
    is (REFUSED_RETRY_S)."""
    deadline = time.monotonic() + REFUSED_RETRY_S
    while True:
        try:
            stream = open_stream_again(
                address, PROBE_TIMEOUT_S, beside=daemon_beside(ipc_path(address))
            )
            return DealerPeer(stream, PROBE_TIMEOUT_S)
        except (ConnectionResetError, BrokenPipeError, ZmtpClosed):
            if time.monotonic() >= deadline:
                return None
            time.sleep(REFUSED_STEP_S)
        except (OSError, ZmtpError):
            return None
