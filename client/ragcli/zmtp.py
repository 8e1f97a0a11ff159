"""A ZeroMQ DEALER peer in the standard library: ZMTP 3.0 over a stream socket.

Why not pyzmq? Importing it costs every `rag` command more than the search the daemon
performs (docs/performance.md). The client needs a tiny part of ZeroMQ: one connection to
the daemon's ROUTER, single-frame messages out and in. That part is the wire protocol
ZMTP 3.0 (rfc.zeromq.org/spec/23) with the NULL security mechanism: a 64-byte greeting
each way, one READY command each way, then length-prefixed frames. The daemon keeps
using real libzmq; tests run this peer against it.

Only `ipc://` (a Unix socket) and `tcp://host:port` are spoken. The `rag` client itself
uses this peer for ipc:// only: ragd serves tcp:// with CURVE security alone (ragcli.curve).
"""

from __future__ import annotations

import socket
import time

# Greeting: signature (0xFF, 8 padding bytes, 0x7F), version 3.0, mechanism "NULL"
# padded to 20 bytes, as-server = 0, 31 bytes of filler.
GREETING = b"\xff" + bytes(8) + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + bytes(32)
_MORE, _LONG, _COMMAND = 0x01, 0x02, 0x04
# ragd's READY is Socket-Type and its frame limit, under 100 bytes; a peer announcing
# more is not ragd, and is not read (it could announce 2^63).
HANDSHAKE_MAX_BYTES = 64 * 1024
READ_BYTES = 1 << 20  # the most one recv asks for


class ZmtpError(Exception):
    """The peer broke the protocol, refused us, or closed the connection."""


class ZmtpClosed(ZmtpError):
    """The peer closed the connection (ragd stopping or restarting does this)."""


def open_stream(address: str, timeout_s: float) -> socket.socket:
    """Connect a stream socket to an ipc:// or tcp:// ZeroMQ address (OSError on failure)."""
    if address.startswith("ipc://"):
        path = address[len("ipc://") :]
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout_s)
        try:
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return sock
    if address.startswith("tcp://"):
        host, _, port = address[len("tcp://") :].rpartition(":")
        return socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s)
    raise ZmtpError(f"unsupported address {address!r} (use ipc:// or tcp://)")


# How long a refused ipc:// connection is tried again: the socket's name is there and
# nobody listens for the moment ragd takes to start its listener again after dropping
# every connection (ragd's serve/door.py). A daemon that crashed leaves the name too; its
# "not running" comes this much later.
REFUSED_RETRY_S = 1.5
REFUSED_STEP_S = 0.05
# ...and how long while the daemon's own private socket beside it (`beside`: ragproto's
# private_socket) accepts: the daemon is alive, its listener is being started again,
# slower than REFUSED_RETRY_S on a loaded machine. A daemon that stops closes both.
RESTARTING_RETRY_S = 10.0


def open_stream_again(address: str, timeout_s: float, beside: str | None = None) -> socket.socket:
    """`open_stream`, trying again while an ipc:// socket refuses or is being made again
    (see REFUSED_RETRY_S and RESTARTING_RETRY_S). (This module is the standard library
    only: another user's probe in the tests runs it alone, so the name comes from the
    caller.)"""
    started = time.monotonic()
    deadline = started + REFUSED_RETRY_S
    while True:
        try:
            return open_stream(address, timeout_s)
        # Refused: nobody listens on the name; not found: a new listener is replacing it;
        # EAGAIN (BlockingIOError): its queue of connections not yet accepted is full, a
        # flood that ragd drops in a moment.
        except (ConnectionRefusedError, FileNotFoundError, BlockingIOError) as exc:
            if not address.startswith("ipc://"):
                raise
            now = time.monotonic()
            if now >= deadline:
                # A full queue has a listener (a flood, a stopped door): busy, said after
                # REFUSED_RETRY_S; only a name nobody listens on is a door starting again.
                restarting = not isinstance(exc, BlockingIOError) and _listens(beside)
                if not restarting:
                    raise
                if now >= started + RESTARTING_RETRY_S:
                    raise ListenerNotBack(
                        exc.errno, f"{exc.strerror} (the daemon is alive)"
                    ) from exc
                deadline = now + REFUSED_RETRY_S  # looked at again then
            time.sleep(REFUSED_STEP_S)


class ListenerNotBack(ConnectionRefusedError):
    """The socket still refused after RESTARTING_RETRY_S while the daemon's private socket
    beside it accepted: the daemon runs, its listener did not come back (the daemon is
    stopped or its loop held while its door was gone)."""


def _listens(path: str | None) -> bool:
    """Does something accept a connection on this ipc:// path?"""
    if path is None:
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(REFUSED_STEP_S * 4)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


class DealerPeer:
    """One ZMTP connection behaving as a DEALER: send a message, receive messages."""

    def __init__(self, sock: socket.socket, timeout_s: float) -> None:
        self._sock = sock
        self._timeout_s = timeout_s  # what a send may wait for the socket to take it
        self._buffer = bytearray()
        # The whole handshake has `timeout_s`, not each read: a peer trickling its
        # greeting and READY a byte at a time kept the client waiting without end.
        self._deadline: float | None = time.monotonic() + timeout_s
        sock.settimeout(timeout_s)
        try:
            sock.sendall(GREETING + _command(b"READY", _property(b"Socket-Type", b"DEALER")))
        except (BrokenPipeError, ConnectionResetError):
            raise ZmtpClosed("ragd closed the connection") from None
        greeting = self._read(64)
        if greeting[0] != 0xFF or greeting[9] != 0x7F or greeting[10] < 3:
            raise ZmtpError("the peer does not speak ZMTP 3")
        if greeting[12:32].rstrip(b"\0") != b"NULL":
            raise ZmtpError("the peer wants a security mechanism other than NULL")
        name, body = self._read_command(HANDSHAKE_MAX_BYTES)
        self._deadline = None
        sock.settimeout(timeout_s)  # sends wait as long as before the handshake
        if name == b"ERROR":
            raise ZmtpError(f"the peer refused the connection: {body[1:].decode(errors='replace')}")
        if name != b"READY":
            raise ZmtpError(f"expected READY from the peer, got {name!r}")
        # What the peer says of itself (Socket-Type, and whatever it adds: ragd its frame
        # limit), names lower-cased since ZMTP's are case-insensitive.
        self.properties = _properties(body)

    def close(self) -> None:
        self._sock.close()

    def learn_properties(self, timeout_s: float) -> None:
        """Nothing to learn: the handshake gave them."""

    def send(self, payload: bytes) -> None:
        """Send a one-frame message (a DEALER adds no envelope; the ROUTER adds its own)."""
        self._sock.sendall(_frame_header(0, len(payload)) + payload)

    def recv(self, timeout_s: float) -> bytes:
        """The next message's last frame; `timeout_s` bounds the wait (TimeoutError), even
        while heartbeats keep arriving."""
        self._deadline = time.monotonic() + timeout_s
        try:
            while True:
                flags, body = self._read_frame()
                if flags & _COMMAND:
                    self._answer_command(body)
                    continue
                if not flags & _MORE:  # earlier parts of a multipart message are skipped
                    return body
        finally:
            self._deadline = None
            # The last read left the socket the wait's remainder, perhaps milliseconds: a
            # large request sent next would time out on a full buffer.
            self._sock.settimeout(self._timeout_s)

    # -- wire --------------------------------------------------------------------------
    def _read(self, size: int) -> bytes:
        self._fill(size)
        out = bytes(self._buffer[:size])
        del self._buffer[:size]
        return out

    def _fill(self, size: int) -> None:
        """At least `size` bytes in the buffer, none taken out: a timeout part-way through
        a frame leaves it whole for the next read (`rag mcp` reads in short slices)."""
        while len(self._buffer) < size:
            if self._deadline is not None:
                remaining = self._deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("no message within the timeout")
                self._sock.settimeout(remaining)
            # At most READ_BYTES a call: a size the peer declares is not a buffer to
            # allocate (2^63 raised OverflowError out of recv, a traceback).
            chunk = self._sock.recv(min(max(65536, size - len(self._buffer)), READ_BYTES))
            if not chunk:
                raise ZmtpClosed("ragd closed the connection")
            self._buffer += chunk

    def _read_frame(self, most: int | None = None) -> tuple[int, bytes]:
        """One whole frame, taken from the buffer only once all of it has come."""
        self._fill(1)
        flags = self._buffer[0]
        header = 1 + (8 if flags & _LONG else 1)
        self._fill(header)
        size = int.from_bytes(self._buffer[1:header], "big")
        if most is not None and size > most:
            raise ZmtpError(f"the peer's handshake is a frame of {size:,} bytes: not ragd's")
        self._fill(header + size)
        self._read(header)
        return flags, self._read(size)

    def _read_command(self, most: int) -> tuple[bytes, bytes]:
        flags, body = self._read_frame(most)
        if not flags & _COMMAND or not body:
            raise ZmtpError("expected a command frame from the peer")
        return _split_command(body)

    def _answer_command(self, body: bytes) -> None:
        name, data = _split_command(body)
        if name == b"PING" and len(data) >= 2:  # heartbeat: echo its context in a PONG
            self._sock.sendall(_command(b"PONG", data[2:]))
        elif name == b"ERROR":
            raise ZmtpError(f"the peer reported an error: {data[1:].decode(errors='replace')}")


def _split_command(body: bytes) -> tuple[bytes, bytes]:
    if not body:  # an empty command frame: no name (body[0] was an IndexError)
        return b"", b""
    size = body[0]
    return body[1 : 1 + size], body[1 + size :]


def _properties(data: bytes) -> dict[str, bytes]:
    """A READY command's metadata: name → value, names lower-cased. A truncated property
    ends the list rather than the connection."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(data):
        end = at + 1 + data[at]
        name = data[at + 1 : end].decode("ascii", "replace").lower()
        size = int.from_bytes(data[end : end + 4], "big")
        value = data[end + 4 : end + 4 + size]
        if end + 4 + size > len(data):
            break
        found[name] = value
        at = end + 4 + size
    return found


def _frame_header(flags: int, size: int) -> bytes:
    if size > 255:
        return bytes([flags | _LONG]) + size.to_bytes(8, "big")
    return bytes([flags, size])


def _command(name: bytes, data: bytes) -> bytes:
    body = bytes([len(name)]) + name + data
    return _frame_header(_COMMAND, len(body)) + body


def _property(name: bytes, value: bytes) -> bytes:
    return bytes([len(name)]) + name + len(value).to_bytes(4, "big") + value
