"""Was a closed connection dropped by a running daemon, or did the daemon stop?

Near its open-file limit ragd drops every connection at once and listens again
(ragd's serve/connection_guard.py): libzmq closes them without a word, so a client waiting
for its reply sees only the close, as it would if the daemon had stopped. No reply can
precede the close (libzmq closes the connections itself, and most of them never sent a
request to be answered), so the client asks afterwards: one `ping` on a fresh connection,
whose reply carries `connections_dropped` (when the last drop was). A drop at or after
this connection was opened closed it: the user is told that, and to try again (exit 4,
as for `busy`), not that ragd stopped. Only on ipc:// (the guard watches nothing else),
only after a close, and bounded by PROBE_TIMEOUT_S twice; any failure leaves the usual
"stopped" line.
"""

from __future__ import annotations

import os

from ragcli.zmtp import DealerPeer, ZmtpError, open_stream
from ragproto import protocol
from ragproto.connection_drops import dropped_yours
from ragproto.errors import Busy
from ragproto.paths import ipc_path

PROBE_TIMEOUT_S = 2.0


def dropped_since(address: str, opened_at: float) -> Busy | None:
    """Busy, in one line, when the daemon at `address` says it dropped every connection
    at or after `opened_at` (wall clock, as the daemon's); None when it did not, or does
    not answer."""
    if ipc_path(address) is None:
        return None
    try:
        peer = DealerPeer(open_stream(address, PROBE_TIMEOUT_S), PROBE_TIMEOUT_S)
    except (OSError, ZmtpError):
        return None
    try:
        request = protocol.make_request("ping", {}, os.urandom(16).hex())
        peer.send(protocol.encode(dict(request)))
        reply = protocol.decode(peer.recv(PROBE_TIMEOUT_S))
    except (OSError, ZmtpError, ValueError):
        return None
    finally:
        peer.close()
    dropped = (reply.get("data") or {}).get("connections_dropped") if reply.get("ok") else None
    if not isinstance(dropped, dict) or not isinstance(dropped.get("last"), int | float):
        return None  # an older ragd, or no drop within the hour
    return Busy(dropped_yours(dropped)) if dropped["last"] >= opened_at else None
