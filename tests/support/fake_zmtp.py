"""A tiny ZMTP 3.0 server on a Unix socket, saying in its handshake whatever a test wants.

libzmq only ever sends a well-formed READY, so what a hostile or broken peer on the socket
path could send the client (`ragcli.zmtp`) is written here by hand: the greeting, then
the READY command's bytes as given (or any bytes at all), then, for each request frame
read, a reply to it as ragd would give one.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path

from ragcli.zmtp import GREETING, _command, _property
from ragproto import protocol


def ready(**properties: bytes) -> bytes:
    """A READY command frame with these properties (`X_Max` → `X-Max`), Socket-Type first."""
    body = _property(b"Socket-Type", b"ROUTER")
    for name, value in properties.items():
        body += _property(name.replace("_", "-").encode(), value)
    return _command(b"READY", body)


class FakeZmtpServer:
    """Accepts connections on `path`; each is sent GREETING + `handshake` and, when
    `answer` is set, a `status` reply to every request frame it reads (or `reply`, bytes
    sent as the reply frame whatever was asked)."""

    def __init__(
        self,
        path: Path,
        handshake: bytes,
        answer: bool = True,
        trickle_s: float = 0.0,
        reply: bytes | None = None,
    ) -> None:
        """`trickle_s`: the handshake is sent a byte at a time, this far apart."""
        self.path, self.handshake, self.answer = path, handshake, answer
        self.reply = reply
        self.trickle_s = trickle_s
        self.requests: list[bytes] = []
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(str(path))
        self._listener.listen(4)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def address(self) -> str:
        return f"ipc://{self.path}"

    def close(self) -> None:
        with contextlib.suppress(OSError):  # wakes the accept (close alone does not)
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(5)

    def __enter__(self) -> FakeZmtpServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return  # closed
            with conn:
                conn.settimeout(5)
                with contextlib.suppress(OSError):  # the client went: the next one
                    self._talk(conn)

    def _talk(self, conn: socket.socket) -> None:
        if self.trickle_s:
            for byte in GREETING + self.handshake:
                conn.sendall(bytes([byte]))
                time.sleep(self.trickle_s)
        else:
            conn.sendall(GREETING + self.handshake)
        stream = conn.makefile("rb")
        stream.read(64)  # the client's greeting
        self._frame(stream)  # its READY
        while self.answer:
            payload = self._frame(stream)
            if payload is None:
                return
            self.requests.append(payload)
            request = json.loads(payload)
            reply = self.reply or protocol.encode(
                dict(protocol.ok_reply(request["id"], {"state": "idle"}, 0))
            )
            conn.sendall(bytes([0x02]) + len(reply).to_bytes(8, "big") + reply)

    @staticmethod
    def _frame(stream) -> bytes | None:  # type: ignore[no-untyped-def]
        head = stream.read(1)
        if not head:
            return None
        size = int.from_bytes(stream.read(8 if head[0] & 0x02 else 1), "big")
        return bytes(stream.read(size))
