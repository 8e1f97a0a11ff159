"""CURVE for tcp://: the keys, and the ZAP handler that admits only the owner's key.

A tcp:// socket has no file modes: anyone who can reach the port could otherwise search
the index and make the daemon read any folder its user can read. So ragd listens on tcp://
only with ZeroMQ's CURVE mechanism (Curve25519 key exchange, every frame encrypted and
authenticated) and a ZAP handler that admits exactly one client key, the one ragd wrote
next to its own. A peer without that key fails the handshake: ZeroMQ never hands the
daemon a single frame from it.

The keys live in ``$XDG_CONFIG_HOME/ragd/curve`` (0700; every file 0600), created on the
first tcp:// start:

    server.public  server.secret    the daemon's key pair
    client.public  client.secret    the one client key pair the daemon admits

The `rag` client of the same user reads ``server.public`` and the client pair; to use
the daemon from another machine, copy those three files into that user's curve folder.
Deleting the folder and restarting ragd replaces every key (old copies stop working).
"""

from __future__ import annotations

import logging
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

import zmq
from zmq.utils import z85

from ragproto.errors import ConfigError
from ragproto.paths import read_small_file

log = logging.getLogger("ragd.serve.curve")

ZAP_ENDPOINT = "inproc://zeromq.zap.01"  # fixed by the ZAP spec (rfc.zeromq.org/spec/27)
ZAP_DOMAIN = b"ragd"
OWNER = "owner"  # the User-Id ZAP attaches to every frame of an admitted peer
KEY_FILE_BYTES = 4096  # a Z85 key is 40 characters and a newline
DENIAL_LOG_INTERVAL_S = 60.0  # a peer retrying with a wrong key must not flood the log


@dataclass(frozen=True)
class ServerKeys:
    server_secret: bytes  # Z85 text, as libzmq takes it
    client_public: bytes  # the only client key admitted


def ensure_keys(directory: Path) -> ServerKeys:
    """Read the keys, creating any missing pair; refuse a folder or key others can read."""
    if not zmq.has("curve"):
        raise ConfigError(
            "this libzmq has no CURVE support, and tcp:// is served only with CURVE; "
            "use an ipc:// socket (a path) instead"
        )
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    _require_private(directory, 0o077)
    for pair in ("server", "client"):
        public, secret = directory / f"{pair}.public", directory / f"{pair}.secret"
        if not public.exists() or not secret.exists():
            made_public, made_secret = zmq.curve_keypair()
            _write_private(secret, made_secret)
            _write_private(public, made_public)
            log.info("created the CURVE %s key pair in %s", pair, directory)
    return ServerKeys(
        server_secret=read_key(directory / "server.secret"),
        client_public=read_key(directory / "client.public"),
    )


def read_key(path: Path) -> bytes:
    _require_private(path, 0o077)
    try:
        key = read_small_file(path, KEY_FILE_BYTES).strip()
    except OSError as exc:
        raise ConfigError(f"{path} cannot be read ({exc.strerror}); delete it to renew") from None
    if len(key) != 40:
        raise ConfigError(f"{path} is not a CURVE key (40 Z85 characters); delete it to renew")
    return key


def _write_private(path: Path, key: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(key + b"\n")


def _require_private(path: Path, forbidden: int) -> None:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid():
        raise ConfigError(f"{path} is a link or belongs to another user; refusing the CURVE keys")
    if stat.S_IMODE(st.st_mode) & forbidden:
        raise ConfigError(
            f"{path} can be read by other users (mode {stat.S_IMODE(st.st_mode):o}); "
            f"run `chmod go-rwx {path}` (and renew the keys if someone may have copied them)"
        )


def serve_curve(router: zmq.Socket[bytes], keys: ServerKeys) -> None:
    """Make `router` a CURVE server whose peers are vetted by the ZAP handler."""
    router.setsockopt(zmq.CURVE_SERVER, 1)
    router.setsockopt(zmq.CURVE_SECRETKEY, keys.server_secret)
    router.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN)


class ZapHandler:
    """Answers libzmq's authentication requests on the server's own loop (no thread)."""

    def __init__(self, context: zmq.Context[zmq.Socket[bytes]], keys: ServerKeys) -> None:
        self.admitted = z85.decode(keys.client_public)
        self.denied = 0
        self._last_denial_log = -DENIAL_LOG_INTERVAL_S
        self.socket: zmq.Socket[bytes] = context.socket(zmq.REP)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.bind(ZAP_ENDPOINT)

    def close(self) -> None:
        self.socket.close(linger=0)

    def handle(self) -> None:
        """Answer every waiting request: 200 for the admitted key, 400 for anything else."""
        while True:
            try:
                request = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            self.socket.send_multipart(self._verdict(request))

    def _verdict(self, request: list[bytes]) -> list[bytes]:
        version, request_id = request[0], request[1] if len(request) > 1 else b""
        mechanism = request[5] if len(request) > 5 else b""
        key = request[6] if len(request) > 6 else b""
        if mechanism == b"CURVE" and key == self.admitted:
            return [version, request_id, b"200", b"OK", OWNER.encode(), b""]
        self.denied += 1
        now = time.monotonic()
        if now - self._last_denial_log >= DENIAL_LOG_INTERVAL_S:
            self._last_denial_log = now
            address = request[3].decode(errors="replace") if len(request) > 3 else "?"
            log.warning(
                "refused a tcp client from %s: its CURVE key is not this user's client key "
                "(%d refused so far)",
                address,
                self.denied,
            )
        return [version, request_id, b"400", b"unknown client key", b"", b""]
