"""The tcp:// path: a CURVE-secured DEALER through pyzmq, imported only for tcp://.

ragd serves tcp:// only with CURVE (see `ragd.serve.curve`): every frame is encrypted, and the
daemon admits one client key. Curve25519 and XSalsa20-Poly1305 are not in the standard
library, so this path uses pyzmq — imported here, lazily, so the common ipc:// commands
keep their fast start. The keys come from the same user's ``$XDG_CONFIG_HOME/ragd/curve``
(ragd writes them there on its first tcp:// start; copy ``server.public``,
``client.public`` and ``client.secret`` to use the daemon from another account or machine).
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

from ragproto import protocol
from ragproto.errors import DaemonNotRunning, DaemonTimeout, NotAuthorized, ProtocolError
from ragproto.paths import curve_dir, read_small_file

KEY_FILE_BYTES = 4096  # a Z85 key is 40 characters and a newline

START_HINT = "start it with `ragd serve --socket tcp://HOST:PORT FOLDER`"


def client_keys(directory: Path) -> dict[str, bytes]:
    """server.public, client.public and client.secret (Z85), or NotAuthorized saying why."""
    keys = {}
    for name in ("server.public", "client.public", "client.secret"):
        path = directory / name
        try:
            st = os.stat(path)
            key = read_small_file(path, KEY_FILE_BYTES).strip()
        except OSError as exc:
            raise NotAuthorized(
                f"tcp:// needs ragd's CURVE keys, and {path} cannot be read "
                f"({exc.strerror}); ragd writes them on its first tcp:// start — copy "
                "server.public, client.public and client.secret from the daemon's user"
            ) from None
        if name.endswith(".secret") and stat.S_IMODE(st.st_mode) & 0o077:
            raise NotAuthorized(f"{path} can be read by other users; run `chmod 600 {path}`")
        if len(key) != 40:
            raise NotAuthorized(f"{path} is not a CURVE key (40 Z85 characters)")
        keys[name] = key
    return keys


class CurvePeer:
    """A DEALER with the same small interface as `zmtp.DealerPeer`: send, recv, close."""

    def __init__(self, address: str, timeout_s: float) -> None:
        keys = client_keys(curve_dir())
        # libzmq shows the daemon's handshake properties only on the frames it receives:
        # each reply's are read (`recv`), and `learn_properties` asks for one.
        self.properties: dict[str, bytes] = {}
        self._asked = False  # learn_properties has pinged this connection
        try:
            import zmq  # here, not at the top: ipc:// commands never pay for it
        except ImportError:
            raise NotAuthorized(
                "tcp:// needs pyzmq for its CURVE encryption: pip install pyzmq"
            ) from None

        self._zmq = zmq
        self._sock: Any = zmq.Context.instance().socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        self._sock.setsockopt(zmq.CURVE_SERVERKEY, keys["server.public"])
        self._sock.setsockopt(zmq.CURVE_PUBLICKEY, keys["client.public"])
        self._sock.setsockopt(zmq.CURVE_SECRETKEY, keys["client.secret"])
        try:
            self._handshake(address, timeout_s)
        except BaseException:
            self.close()
            raise

    def _handshake(self, address: str, timeout_s: float) -> None:
        """Connect and wait for the CURVE handshake's outcome, so a refusal is named."""
        zmq = self._zmq
        self._monitor = self._sock.get_monitor_socket()
        self._sock.connect(address)
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            if not self._monitor.poll(int(left * 1000) + 1):
                break
            event = self._event()
            if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                return
            if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
                raise NotAuthorized(
                    f"ragd at {address} refused this client's CURVE key (client.public in "
                    f"{curve_dir()} is not the one the daemon admits)"
                )
            if event in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
                raise NotAuthorized(
                    f"the CURVE handshake with {address} failed: is server.public in "
                    f"{curve_dir()} the daemon's current key?"
                )
            if event == zmq.EVENT_CONNECT_RETRIED:
                raise DaemonNotRunning(f"ragd is not running (nothing at {address}); {START_HINT}")
        raise DaemonTimeout(f"ragd did not complete the handshake on {address}")

    def _event(self) -> int:
        from zmq.utils.monitor import recv_monitor_message

        return int(recv_monitor_message(self._monitor)["event"])

    def close(self) -> None:
        monitor = getattr(self, "_monitor", None)
        if monitor is not None:
            self._sock.disable_monitor()
            monitor.close(linger=0)
        self._sock.close(linger=0)

    def send(self, payload: bytes) -> None:
        try:
            self._sock.send(payload, self._zmq.NOBLOCK)
        except self._zmq.ZMQError as exc:
            raise ProtocolError(f"cannot send to ragd: {exc}") from None

    def learn_properties(self, timeout_s: float) -> None:
        """Fill `properties` before the first request when nothing has been received yet:
        a ping's reply carries the daemon's handshake metadata (its frame limit). A daemon
        that does not answer within `timeout_s` leaves them unknown, as before."""
        if self.properties or self._asked:  # an older ragd tells nothing: asked once
            return
        self._asked = True
        ping = protocol.encode(dict(protocol.make_request("ping", {}, "learn-properties")))
        try:
            self.send(ping)
            self.recv(timeout_s)  # its id matches no request: `Connection` skips it anyway
        except (OSError, TimeoutError, ProtocolError):
            return

    def _read_properties(self, frame: Any) -> None:
        name = protocol.MAX_MESSAGE_PROPERTY
        try:
            told = frame.get(name)
        except self._zmq.ZMQError:  # not told: an older ragd
            return
        self.properties[name.lower()] = str(told).encode()

    def recv(self, timeout_s: float) -> bytes:
        """The next message's last frame; TimeoutError after `timeout_s` of silence, and
        ConnectionResetError when ragd drops the connection (as it does on an oversize
        request), like the ipc:// peer."""
        poller = self._zmq.Poller()
        poller.register(self._sock, self._zmq.POLLIN)
        poller.register(self._monitor, self._zmq.POLLIN)
        deadline = time.monotonic() + timeout_s
        while (left := deadline - time.monotonic()) > 0:
            ready = dict(poller.poll(int(left * 1000) + 1))
            if self._sock in ready:
                last = self._sock.recv_multipart(copy=False)[-1]
                self._read_properties(last)
                return bytes(last.bytes)
            if self._monitor in ready and self._event() == self._zmq.EVENT_DISCONNECTED:
                raise ConnectionResetError("ragd closed the connection")
        raise TimeoutError("no message within the timeout")
