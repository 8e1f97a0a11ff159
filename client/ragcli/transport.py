"""One request, its reply frames, and clear failures — never a hang.

The client speaks ZeroMQ's wire protocol itself (`zmtp.py`, standard library only) instead
of importing pyzmq: that import alone costs more than a search. Connecting doubles as the
liveness probe: no socket file, or a refused connection (a stale file from a crashed
daemon), means the daemon is not running, and the user is told at once how to start it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Protocol

from ragcli.zmtp import DealerPeer, ZmtpError, open_stream
from ragproto import protocol
from ragproto.errors import DaemonNotRunning, DaemonTimeout, ProtocolError, WireError
from ragproto.paths import ipc_path, is_tcp, socket_address

START_HINT = "start it with `systemctl --user start ragd` or `ragd serve FOLDER`"
CONNECT_TIMEOUT_S = 2.0


class Peer(Protocol):
    def send(self, payload: bytes) -> None: ...
    def recv(self, timeout_s: float) -> bytes: ...
    def close(self) -> None: ...


def connect(address: str) -> Peer:
    if is_tcp(address):
        from ragcli.curve import CurvePeer

        return CurvePeer(address, CONNECT_TIMEOUT_S)
    path = ipc_path(address)
    if path is not None and not path.exists():
        raise DaemonNotRunning(f"ragd is not running (no socket at {path}); {START_HINT}")
    try:
        stream = open_stream(address, CONNECT_TIMEOUT_S)
    except (OSError, ZmtpError):
        where = f"stale socket at {path}" if path is not None else f"nothing at {address}"
        raise DaemonNotRunning(f"ragd is not running ({where}); {START_HINT}") from None
    try:
        return DealerPeer(stream, CONNECT_TIMEOUT_S)
    except TimeoutError:
        stream.close()
        raise DaemonTimeout(f"ragd did not complete the handshake on {address}") from None
    except (OSError, ZmtpError) as exc:
        stream.close()
        raise ProtocolError(f"cannot talk to ragd at {address}: {exc}") from None


class Connection:
    def __init__(self, address: str | None = None) -> None:
        self.address = socket_address(address)
        self._peer = connect(self.address)

    def close(self) -> None:
        self._peer.close()

    def stream(self, op: str, args: dict[str, Any], timeout_s: float) -> Iterator[dict[str, Any]]:
        """Yield every reply frame for one request; the last one has kind == "final".

        `timeout_s` bounds the silence between frames, so a long streamed answer is fine
        while a wedged daemon is not.
        """
        request_id = os.urandom(16).hex()  # as unique as a uuid4, without importing uuid
        request = protocol.encode(dict(protocol.make_request(op, args, request_id)))
        try:
            self._peer.send(request)
        except OSError as exc:
            raise lost_connection(exc, len(request)) from None
        answered = False
        while True:
            try:
                frame = self._peer.recv(timeout_s)
            except TimeoutError:
                raise DaemonTimeout(f"ragd did not answer within {timeout_s:g} s") from None
            except (OSError, ZmtpError) as exc:
                raise lost_connection(exc, 0 if answered else len(request)) from None
            answered = True
            try:
                reply = protocol.decode(frame)
            except ValueError as exc:
                raise ProtocolError(f"unreadable reply from ragd: {exc}") from None
            if reply.get("id") != request_id:
                continue  # a late reply to an earlier, abandoned request
            if not reply.get("ok", False):
                error = reply.get("error") or {}
                raise WireError.from_reply(
                    str(error.get("type", "internal")), str(error.get("message", "unknown error"))
                )
            yield reply
            if reply.get("kind") == "final":
                return

    def call(self, op: str, args: dict[str, Any], timeout_s: float = 30.0) -> dict[str, Any]:
        """Send one request and return the final frame's data."""
        final: dict[str, Any] = {}
        for reply in self.stream(op, args, timeout_s):
            final = reply
        return dict(final.get("data") or {}) | {"_pending": final.get("pending", 0)}


LARGE_REQUEST = 64 * 1024  # far above any question; a drop after one is probably its size


def lost_connection(exc: Exception, unanswered_bytes: int) -> ProtocolError:
    """The error for a dropped connection; names the likely cause when the request was big.

    ragd's socket drops a peer whose frame is over `max_message_bytes` before reading it
    (so it cannot even reply), which the client would otherwise only see as a broken pipe.
    """
    if unanswered_bytes > LARGE_REQUEST:
        size = f"{unanswered_bytes / (1 << 20):.1f} MB"
        limit = protocol.DEFAULT_MAX_MESSAGE_BYTES >> 20
        return ProtocolError(
            f"ragd closed the connection without answering a {size} request: it refuses "
            f"requests over its max_message_bytes ({limit} MiB unless configured); "
            "send something shorter"
        )
    return ProtocolError(f"lost the connection to ragd: {exc}")
