"""One request, its reply frames, and clear failures — never a hang.

The client speaks ZeroMQ's wire protocol itself (`zmtp.py`, standard library only) instead
of importing pyzmq: that import alone costs more than a search. Connecting doubles as the
liveness probe: no socket file, or a refused connection (a stale file from a crashed
daemon), means the daemon is not running, and the user is told at once how to start it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from ragcli.drop_probe import STOPPED_AGAIN_S, StoppedLooks, dropped_since, stopped_now
from ragcli.zmtp import (
    RESTARTING_RETRY_S,
    DealerPeer,
    ListenerNotBack,
    ZmtpClosed,
    ZmtpError,
    open_stream_again,
)
from ragproto import protocol
from ragproto.errors import (
    Busy,
    Cancelled,
    ConfigError,
    DaemonNotRunning,
    DaemonTimeout,
    NotAuthorized,
    ProtocolError,
    RagError,
    RequestTooLarge,
    WireError,
)
from ragproto.paths import (
    daemon_beside,
    ipc_path,
    is_ragd_folder,
    is_tcp,
    refusal,
    socket_address,
    through_others_link,
    untrusted_folder,
)
from ragproto.sizes import human_size

START_HINT = "start it with `systemctl --user start ragd` or `ragd serve FOLDER`"
CONNECT_TIMEOUT_S = 2.0
STOP_POLL_S = 0.1  # how often a request that may be stopped (`stream`'s `stop`) looks
# Silence after which a client asks whether ragd is stopped by a signal: the door answers a
# new request `stopped` at once, but one already in flight waited for its whole timeout
# (an ask's 180 s). The daemon sends an ask's `wait` frames every 10 s, so 15 s of silence
# is already unusual; the look is one `ping` on a fresh connection.
STOPPED_LOOK_S = 15.0


class Peer(Protocol):
    properties: dict[str, bytes]  # the daemon's handshake metadata, when readable

    def learn_properties(self, timeout_s: float) -> None: ...
    def send(self, payload: bytes) -> None: ...
    def recv(self, timeout_s: float) -> bytes: ...
    def close(self) -> None: ...


def connect(address: str) -> Peer:
    if is_tcp(address):
        from ragcli.curve import CurvePeer

        return CurvePeer(address, CONNECT_TIMEOUT_S)
    path = ipc_path(address)
    if path is not None:
        check_socket_file(path)
    opened_at = time.time()
    try:
        stream = open_stream_again(address, CONNECT_TIMEOUT_S, beside=daemon_beside(path))
    except (OSError, ZmtpError) as exc:
        raise not_connected(address, path, exc) from None
    try:
        return DealerPeer(stream, CONNECT_TIMEOUT_S)
    except TimeoutError:
        stream.close()
        raise DaemonTimeout(f"ragd did not complete the handshake on {address}") from None
    except (ConnectionError, ZmtpClosed) as exc:
        stream.close()
        raise dropped_since(address, opened_at) or went_away(exc) from None
    except (OSError, ZmtpError) as exc:
        stream.close()
        raise ProtocolError(f"cannot talk to ragd at {address}: {exc}") from None


def went_away(exc: Exception) -> DaemonNotRunning:
    """The daemon closed the connection before its reply: it stopped, crashed or is
    restarting (`ragd` re-executes itself; systemd restarts it). Exit 3 like "not
    running", so a script retries; as "lost the connection" it was exit 5, "request
    rejected", which says not to send it again."""
    return DaemonNotRunning(
        f"ragd stopped before answering ({exc}); if it is restarting, try again once "
        f"`rag status` answers, else {START_HINT}"
    )


FILE_KINDS = (
    (stat.S_ISREG, "a regular file"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
)


def check_socket_file(path: Path) -> None:
    """Refuse, in one line, anything at `path` that is not a socket we may trust.

    A folder ragd makes for itself (/tmp/ragd-UID, or $XDG_RUNTIME_DIR/ragd, which is as
    shared when the runtime folder is world-writable) is checked first: a folder another
    user made there could hold their own server, which would receive our question and answer
    it. A socket path that names something else (a file, a folder, /dev/zero) is a
    setting to fix, not a daemon that crashed. A path through another user's link is
    refused before any look at the socket: they may re-point it between that look and
    the connect."""
    if (problem := through_others_link("the socket", path)) is not None:
        raise ConfigError(problem)
    if is_ragd_folder(path.parent):
        try:
            problem = untrusted_folder(path.parent)
        except FileNotFoundError:
            problem = None  # no folder, so no socket: "not running" below
        except PermissionError:
            problem = None  # a folder we may not enter: said in one line below
        if problem:
            raise ConfigError(refusal(path.parent, problem))
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise DaemonNotRunning(f"ragd is not running (no socket at {path}); {START_HINT}") from None
    except PermissionError:
        raise NotAuthorized(
            f"cannot reach the socket {path}: you may not enter its folder (it is another "
            "user's); set RAG_SOCKET or --socket to your own daemon's socket"
        ) from None
    if not stat.S_ISSOCK(st.st_mode):
        kind = next((name for test, name in FILE_KINDS if test(st.st_mode)), "not a socket")
        raise ConfigError(
            f"{path} is {kind}, not ragd's socket; set RAG_SOCKET or --socket to the path "
            "ragd listens on"
        )
    if st.st_uid != os.geteuid():
        # ragd's socket is its user's: one of another user's, bound first on a free name in
        # a shared folder (RAG_SOCKET=/tmp/x.sock while ragd is stopped), is their server.
        raise ConfigError(
            f"socket {path} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()}), so "
            "it is another user's server, not your ragd; refusing it (set RAG_SOCKET or "
            "--socket to a path in a private folder)"
        )


def not_connected(address: str, path: Path | None, exc: Exception) -> Exception:
    """The error for a connection that failed: refused (a stale socket left by a crash),
    forbidden (another user's socket), busy (its queue full: a flood), or something else
    named as it is."""
    code = exc.errno if isinstance(exc, OSError) else None
    if path is None:
        return DaemonNotRunning(f"ragd is not running (nothing at {address}); {START_HINT}")
    if code in (errno.EACCES, errno.EPERM):
        return NotAuthorized(
            f"cannot connect to {path}: permission denied (the socket is another user's); "
            "set RAG_SOCKET or --socket to your own daemon's socket"
        )
    if code == errno.EAGAIN:  # someone listens, with more waiting than it takes
        return Busy(
            f"cannot connect to {path}: its queue of connections is full (a flood of "
            "connections, which ragd drops, or a stopped listener); try again"
        )
    if isinstance(exc, ListenerNotBack):  # not "not running": it is, without a listener
        return DaemonTimeout(
            f"ragd is running, but its socket at {path} did not come back within "
            f"{RESTARTING_RETRY_S:.0f} s of its listener ending (is the daemon stopped, "
            "kill -STOP, or stuck?); try again, and see its log"
        )
    if code in (errno.ECONNREFUSED, errno.ENOENT) or code is None:
        return DaemonNotRunning(f"ragd is not running (stale socket at {path}); {START_HINT}")
    reason = f"cannot connect to {path}: {os.strerror(code)}"
    return DaemonNotRunning(f"ragd is not running ({reason}); {START_HINT}")


class Connection:
    def __init__(self, address: str | None = None) -> None:
        self.address = socket_address(address)
        self._opened_at = time.time()  # a drop after this closed our connection
        self._peer = connect(self.address)
        self._unanswered = ""  # the id of the request sent and not answered in full yet

    def close(self) -> None:
        self._peer.close()

    def stream(
        self,
        op: str,
        args: dict[str, Any],
        timeout_s: float,
        stop: threading.Event | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Yield every reply frame for one request; the last one has kind == "final".

        `timeout_s` bounds the silence between frames, so a long streamed answer is fine
        while a wedged daemon is not. `stop`, once set (by another thread: `rag mcp` told
        by its host), cancels the request (`cancel`) and raises Cancelled.
        """
        request_id = os.urandom(16).hex()  # as unique as a uuid4, without importing uuid
        request = protocol.encode(dict(protocol.make_request(op, args, request_id)))
        try:
            self._send(request)
        except OSError as exc:
            raise self._lost(exc, len(request)) from None
        self._unanswered = request_id
        answered = False
        while True:
            try:
                frame = self._next_frame(timeout_s, stop)
            except TimeoutError:
                raise DaemonTimeout(f"ragd did not answer within {timeout_s:g} s") from None
            except (OSError, ZmtpError) as exc:
                raise self._lost(exc, 0 if answered else len(request)) from None
            answered = True
            try:
                reply = protocol.decode(frame)
            except ValueError as exc:
                raise ProtocolError(f"unreadable reply from ragd: {exc}") from None
            if reply.get("id") != request_id:
                continue  # a late reply to an earlier, abandoned request
            if reply.get("kind") == "final":
                self._unanswered = ""
            if not reply.get("ok", False):
                error = reply.get("error") or {}
                raise WireError.from_reply(
                    str(error.get("type", "internal")), str(error.get("message", "unknown error"))
                )
            yield reply
            if reply.get("kind") == "final":
                return

    def _next_frame(self, timeout_s: float, stop: threading.Event | None) -> bytes:
        """The next frame within `timeout_s`; with `stop`, read in short slices, and once
        it is set the request is cancelled and Cancelled raised. After each
        STOPPED_LOOK_S of silence the daemon is asked whether it is stopped by a signal
        (`drop_probe.stopped_now`): if it is, it is asked again STOPPED_AGAIN_S later, and
        if it still is that is raised at once, not a timeout later (`StoppedLooks`)."""
        now = time.monotonic()
        silent_until, look_at = now + timeout_s, now + STOPPED_LOOK_S
        looks = StoppedLooks(STOPPED_LOOK_S)
        step = STOP_POLL_S if stop is not None else STOPPED_LOOK_S
        # bounded by the silence allowed, a look at most every STOPPED_AGAIN_S
        for _ in range(int(timeout_s / min(step, STOPPED_AGAIN_S)) + 2):
            if stop is not None and stop.is_set():
                self.cancel()
                raise Cancelled("the request was cancelled")
            now = time.monotonic()
            if now >= silent_until:
                break
            if now >= look_at:
                stopped, next_look_s = looks.after(stopped_now(self.address))
                if stopped is not None:
                    raise stopped
                look_at = time.monotonic() + next_look_s
            try:
                return self._peer.recv(min(step, silent_until - now, max(look_at - now, 0.01)))
            except TimeoutError:
                continue
        raise TimeoutError

    def cancel(self) -> None:
        """Tell the daemon to stop working on the request under way, if one is (Ctrl-C,
        an MCP host's cancel): its model call ends there and its worker is free. Best
        effort, at once: a daemon gone, or one too old to know `cancel` (it answers
        unknown_op, which nobody reads), changes nothing for a client that is leaving."""
        request_id, self._unanswered = self._unanswered, ""
        if not request_id:
            return
        cancel = protocol.make_request(protocol.CANCEL_OP, {"id": request_id}, request_id + "-c")
        with contextlib.suppress(OSError, ZmtpError):
            self._peer.send(protocol.encode(dict(cancel)))

    def _lost(self, exc: Exception, unanswered_bytes: int) -> RagError:
        """`lost_connection`'s error, unless the daemon says it dropped every connection
        since this one opened (ragcli/drop_probe.py): then that, in one line."""
        error = lost_connection(exc, unanswered_bytes)
        if isinstance(error, DaemonNotRunning):
            return dropped_since(self.address, self._opened_at) or error
        return error

    def _send(self, request: bytes) -> None:
        """Send `request`, on a fresh connection if the daemon has closed this one since it
        was opened: it restarted (`systemctl --user restart ragd`, an upgrade) while a
        `rag chat` waited for its next line, and every later question and /reset met a
        broken pipe, "ragd stopped before answering", and ended the chat (exit 3) with the
        daemon back and serving. A send that fails on a closed connection delivered no
        request, so it is never carried twice; a large one is not sent again (the daemon
        drops a frame over its limit: `lost_connection` names the size instead)."""
        try:
            refuse_over_limit(request, self._peer)
            self._peer.send(request)
        except (ConnectionError, ZmtpClosed):
            if len(request) > LARGE_REQUEST:
                raise
            self._peer.close()
            self._opened_at = time.time()
            self._peer = connect(self.address)  # not running now: that error, one line
            refuse_over_limit(request, self._peer)  # a daemon restarted with a new limit
            self._peer.send(request)

    def call(
        self, op: str, args: dict[str, Any], timeout_s: float = protocol.REPLY_TIMEOUT_S
    ) -> dict[str, Any]:
        """Send one request and return the final frame's data."""
        final: dict[str, Any] = {}
        for reply in self.stream(op, args, timeout_s):
            final = reply
        return dict(final.get("data") or {}) | {"_pending": final.get("pending", 0)}


LARGE_REQUEST = 64 * 1024  # far above any question; a drop after one is probably its size
# A request this long is checked against the daemon's limit even when that takes a round
# trip to learn it (tcp://): a typed question is shorter, a long chat line or history not.
PROBE_ABOVE = 1024


def refuse_over_limit(request: bytes, peer: Peer) -> None:
    """Raise `RequestTooLarge` for a request over the frame limit the daemon's handshake
    told (`protocol.MAX_MESSAGE_PROPERTY`): its socket would drop the connection unread,
    and a small request's drop reads as the daemon gone (exit 3, the end of a `rag
    chat`). Over tcp:// the properties come with the first reply, so a request over
    `PROBE_ABOVE` sent before any asks for them first. Nothing is checked when the daemon
    did not tell (an older ragd)."""
    if len(request) > PROBE_ABOVE:
        peer.learn_properties(CONNECT_TIMEOUT_S)
    limit = told_limit(peer.properties)
    if limit is None or len(request) <= limit:
        return
    raise RequestTooLarge(
        f"the request is too long for this ragd: a {human_size(len(request))} request, "
        f"over its max_message_bytes = {limit}; send something shorter",
        len(request),
        limit,
    )


LIMIT_MAX_DIGITS = 18  # a longer number is past any frame a request could make (and int()'s limit)


def told_limit(properties: dict[str, bytes]) -> int | None:
    """The frame limit the handshake told, or None when it told none we can use. ragd
    sends a positive number of ASCII digits (`max_message_bytes` is refused below 1); a
    peer that sends 0, a sign, no digits or thousands of them (int() refuses over 4,300)
    is not ragd, and its value must not refuse every request nor raise."""
    told = properties.get(protocol.MAX_MESSAGE_PROPERTY.lower(), b"")
    if not (told.isdigit() and len(told) <= LIMIT_MAX_DIGITS):  # bytes: ASCII digits only
        return None
    return int(told) or None


def lost_connection(exc: Exception, unanswered_bytes: int) -> ProtocolError | DaemonNotRunning:
    """The error for a dropped connection; names the likely cause when the request was big.

    ragd's socket drops a peer whose frame is over `max_message_bytes` before reading it
    (so it cannot even reply), which the client would otherwise only see as a broken pipe.
    """
    if unanswered_bytes > LARGE_REQUEST:
        size = human_size(unanswered_bytes)
        limit = protocol.DEFAULT_MAX_MESSAGE_BYTES >> 20
        return ProtocolError(
            f"ragd closed the connection without answering a {size} request: it refuses "
            f"requests over its max_message_bytes ({limit} MiB unless configured); "
            "send something shorter"
        )
    if isinstance(exc, ConnectionError | ZmtpClosed):
        return went_away(exc)
    return ProtocolError(f"lost the connection to ragd: {exc}")
