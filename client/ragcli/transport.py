"""One request, its reply frames, and clear failures — never a hang.

Before connecting, the socket file is probed with a plain AF_UNIX connect (≈ 0.1 ms):
no file, or a refused connection (a stale file from a crashed daemon), means the
daemon is not running, and the user is told at once how to start it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from typing import Any

import zmq

from ragproto import protocol
from ragproto.errors import DaemonNotRunning, DaemonTimeout, ProtocolError, RemoteError
from ragproto.paths import ipc_path, socket_address

START_HINT = "start it with `systemctl --user start ragd` or `ragd serve FOLDER`"


def probe(address: str) -> None:
    path = ipc_path(address)
    if path is None:
        return
    if not path.exists():
        raise DaemonNotRunning(f"ragd is not running (no socket at {path}); {START_HINT}")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(0.5)
    try:
        sock.connect(str(path))
    except OSError:
        raise DaemonNotRunning(
            f"ragd is not running (stale socket at {path}); {START_HINT}"
        ) from None
    finally:
        sock.close()


class Connection:
    def __init__(self, address: str | None = None) -> None:
        self.address = socket_address(address)
        probe(self.address)
        self._context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self._socket = self._context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.connect(self.address)

    def close(self) -> None:
        self._socket.close(linger=0)

    def stream(self, op: str, args: dict[str, Any], timeout_s: float) -> Iterator[dict[str, Any]]:
        """Yield every reply frame for one request; the last one has kind == "final".

        `timeout_s` bounds the silence between frames, so a long streamed answer is fine
        while a wedged daemon is not.
        """
        request_id = os.urandom(16).hex()  # as unique as a uuid4, without importing uuid
        self._socket.send(protocol.encode(dict(protocol.make_request(op, args, request_id))))
        while True:
            if not self._socket.poll(int(timeout_s * 1000), zmq.POLLIN):
                raise DaemonTimeout(f"ragd did not answer within {timeout_s:g} s")
            frame = self._socket.recv()
            try:
                reply = protocol.decode(frame)
            except ValueError as exc:
                raise ProtocolError(f"unreadable reply from ragd: {exc}") from None
            if reply.get("id") != request_id:
                continue  # a late reply to an earlier, abandoned request
            if not reply.get("ok", False):
                error = reply.get("error") or {}
                raise RemoteError(
                    str(error.get("type", "error")), str(error.get("message", "unknown error"))
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
