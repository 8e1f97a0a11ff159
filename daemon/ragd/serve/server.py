"""The ZeroMQ front door: a ROUTER socket, request validation, and a dispatch table.

Every frame gets an answer. Malformed JSON, a wrong protocol version, an unknown op,
wrong argument types, an extra frame part: each becomes a typed error reply and the loop
carries on. Frames larger than `max_message_bytes` are refused by ZeroMQ itself
(ZMQ_MAXMSGSIZE drops the connection before the frame is buffered whole); the handshake
tells every client the limit (`protocol.MAX_MESSAGE_PROPERTY`), so `rag` refuses such a
request itself with a line naming it.

The server is given one table of routes (ragd/serve/routes.py): each op's name, its lane and
its handler. Lanes: `loop` ops are cheap (status, stats, …) and run inline on the loop
thread. `search` ops run on a pool with one worker per core (a question is encoded on one
thread), so concurrent clients are served in parallel; like every read they use committed
state and never wait for the index writer. `ask` ops stream (an answer, delta by delta)
on their own small pool, so a long Claude answer never holds up a search. Pooled ops send
their frames back through an inproc socket.

Nothing a client sends can stop the loop or grow the daemon without bound:
- a reply that cannot be encoded as UTF-8 (a lone surrogate echoed from the request's
  `id` or `query`) is sent with ASCII escapes instead; a reply that still cannot be sent
  is dropped with one log line, never raised into the loop;
- JSON nested too deeply for the parser is a `bad_request`, not an internal error;
- at most MAX_SLOW_IN_FLIGHT pooled requests wait; more get a `busy` reply
  at once instead of queueing without limit;
- replies to a client that does not read them pile up only to the ROUTER's send
  high-water mark (SNDHWM); past it ZeroMQ drops them (ROUTER never blocks a send).

Who may send what: on ipc:// the socket's file modes keep other users out, and libzmq
reads each peer's uid from the kernel (SO_PEERCRED) into every frame's Peer-Address; on
tcp:// only a peer holding the owner's CURVE key gets through the handshake (ragd.serve.curve),
and its frames carry that fact as User-Id. Ops that make ragd read or drop folders
(`owner_only`: ingest, forget) are refused unless the frame proves it came from the
daemon's own user — so a socket its owner opened to others (or a future extra key) can
never be used to make ragd read a folder only its own user can.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import stat
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import zmq

from ragd.core.connection_drops import ConnectionDrops
from ragd.serve.connection_guard import ConnectionGuard, Rebind
from ragd.serve.curve import OWNER, ZapHandler, ensure_keys, serve_curve
from ragproto import protocol
from ragproto.errors import (
    BadRequest,
    Busy,
    CannotListen,
    ConfigError,
    Forbidden,
    InternalError,
    RagError,
    ShuttingDown,
    UnknownOp,
    VersionMismatch,
)
from ragproto.paths import (
    curve_dir,
    default_socket_dir,
    fallback_socket_dir,
    ipc_path,
    is_tcp,
    normalize_address,
    refusal,
    untrusted_folder,
)

log = logging.getLogger("ragd.serve.server")

REBIND_LOOK_MS = 10  # how often the loop looks whether the socket is bound again
REBIND_CLOSE_WAIT_S = 2.0  # what closing waits for a bind still under way

# Worker threads hand replies to the loop through an inproc socket. Each Server binds
# its own name: ZeroMQ unbinds a closed socket's name asynchronously, so a server made
# right after another one closed (a restart in the same process; a test's next fixture)
# could meet "Address already in use" on a shared name (seen once in CI under load).
_OUTBOXES = itertools.count()
SEND_HWM = 10_000  # replies queued per client before ZeroMQ drops (ROUTER: never blocks)
MAX_SLOW_IN_FLIGHT = 64  # ask requests running or waiting for the worker pool


@dataclass
class Request:
    id: str
    op: str
    args: dict[str, Any]


class Responder:
    """Lets a (possibly off-loop) handler stream frames back to one client."""

    def __init__(self, server: Server, identity: bytes, request_id: str) -> None:
        self._server = server
        self._identity = identity
        self.request_id = request_id
        self.finished = False

    def delta(self, data: dict[str, Any]) -> None:
        self._server.send(
            self._identity,
            protocol.ok_reply(self.request_id, data, self._server.pending(), "delta"),
        )

    def wait(self) -> None:
        """Still working on it (a `wait` frame): the client's silence bound starts again."""
        self._server.send(
            self._identity,
            protocol.ok_reply(self.request_id, {}, self._server.pending(), "wait"),
        )

    def final(self, data: dict[str, Any]) -> None:
        self.finished = True
        self._server.send(
            self._identity, protocol.ok_reply(self.request_id, data, self._server.pending())
        )

    def error(self, type_name: str, message: str) -> None:
        self.finished = True
        self._server.send(
            self._identity,
            protocol.error_reply(self.request_id, type_name, message, self._server.pending()),
        )


Handler = Callable[[Request], dict[str, Any]]
SlowHandler = Callable[[Request, Responder], None]
Lane = Literal["loop", "search", "ask"]


@dataclass(frozen=True)
class Route:
    """One op: its name, where it runs, and its handler.

    `loop` and `search` handlers return the reply; an `ask` handler streams through its
    Responder. `owner_only` ops change which folders ragd reads, so only the daemon's own
    user may send them (see the module docstring). `check`, when given, validates the
    arguments on the loop before a pooled op takes a place in line: a malformed request is
    answered at once, never with `busy`.
    """

    op: str
    lane: Lane
    handler: Callable[..., Any]
    owner_only: bool = False
    check: Callable[[Request], object] | None = None


class Server:
    def __init__(
        self,
        address: str,
        pending: Callable[[], int],
        max_message_bytes: int = protocol.DEFAULT_MAX_MESSAGE_BYTES,
        workers: int = 4,
        search_workers: int = max(1, min(4, os.cpu_count() or 1)),
        drops: ConnectionDrops | None = None,
    ) -> None:
        self.address = address
        self.drops = drops or ConnectionDrops()
        self.pending = pending
        self.max_message_bytes = max_message_bytes
        self.routes: dict[str, Route] = {}
        self._context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self._router: zmq.Socket[bytes] | None = None
        self._outbox: zmq.Socket[bytes] | None = None
        self._outbox_address = f"inproc://ragd-outbox-{next(_OUTBOXES)}"
        self._zap: ZapHandler | None = None
        self._guard: ConnectionGuard | None = None
        self._rebind: Rebind | None = None  # while set, the router is its thread's
        self._poller = zmq.Poller()
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragd-ask")
        self._search_pool = ThreadPoolExecutor(
            max_workers=search_workers, thread_name_prefix="ragd-search"
        )
        self._slow_lock = threading.Lock()
        self._slow_in_flight = 0
        self.accepting = True

    def serve(self, routes: Iterable[Route]) -> None:
        """Answer these ops (the table replaces any previous one)."""
        table = {route.op: route for route in routes}
        self.routes = table

    # -- socket lifecycle -----------------------------------------------------------
    def bind(self) -> None:
        normalize_address(self.address)  # raises for ipc://@name and unknown transports
        router = self._context.socket(zmq.ROUTER)
        router.setsockopt(zmq.LINGER, 0)
        router.setsockopt(zmq.MAXMSGSIZE, self.max_message_bytes)
        limit = f"{protocol.MAX_MESSAGE_PROPERTY}:{self.max_message_bytes}"
        router.setsockopt(zmq.METADATA, limit.encode())
        router.setsockopt(zmq.ROUTER_MANDATORY, 0)
        router.setsockopt(zmq.SNDHWM, SEND_HWM)
        if is_tcp(self.address):
            keys = ensure_keys(curve_dir())
            # The handler exists before the socket listens: a CURVE server without one
            # would admit every client key.
            self._zap = ZapHandler(self._context, keys)
            self._poller.register(self._zap.socket, zmq.POLLIN)
            serve_curve(router, keys)
        elif ipc_path(self.address) is not None:
            self._guard = ConnectionGuard.for_limit(router)
            if self._guard is not None:
                self._poller.register(self._guard.socket, zmq.POLLIN)
        self._listen(router)
        outbox = self._context.socket(zmq.PULL)
        outbox.setsockopt(zmq.LINGER, 0)
        outbox.bind(self._outbox_address)
        self._router, self._outbox = router, outbox
        self._poller.register(router, zmq.POLLIN)
        self._poller.register(outbox, zmq.POLLIN)

    def _listen(self, router: zmq.Socket[bytes]) -> None:
        path = ipc_path(self.address)
        if path is not None:
            prepare_socket_dir(path)
        # The socket is born owner-only, never briefly wider. The umask is the process's:
        # other threads make folders under it meanwhile (the rebind binds on a thread of
        # its own, held as long as a stalled mount holds it), so it keeps the owner's
        # bits; 0o077 is what `ragd serve` sets at start (cli/main.py) anyway.
        previous = os.umask(0o077)
        try:
            router.bind(self.address)
        finally:
            os.umask(previous)
        if path is not None:
            os.chmod(path, 0o600)

    def _drop_all(self, router: zmq.Socket[bytes], guard: ConnectionGuard) -> None:
        """Drop every connection (serve/connection_guard.py) and start listening afresh
        on a thread: the bind's file system calls must not hold the loop."""
        router.unbind(router.getsockopt_string(zmq.LAST_ENDPOINT))
        dropped = guard.dropped()
        self.drops.note(dropped, guard.limit)
        assert self._outbox is not None
        for sock in (router, self._outbox):  # replies wait in the outbox meanwhile
            self._poller.unregister(sock)
        self._rebind = Rebind(lambda: self._listen(router), dropped)

    def _listening_again(self, rebind: Rebind, guard: ConnectionGuard) -> None:
        """The rebind's thread is done. A bind that failed (the socket's folder gone and
        its name taken, or no longer ours) would leave the daemon listening nowhere:
        CannotListen, one line, and it stops."""
        self._rebind = None
        exc = rebind.failure
        if isinstance(exc, RagError | OSError | zmq.ZMQError):
            raise CannotListen(
                f"dropped {rebind.dropped} connections near the open-file limit, then "
                f"cannot listen on {self.address} again: {exc}"
            ) from exc
        if exc is not None:
            raise exc
        assert self._router is not None and self._outbox is not None
        self._poller.register(self._router, zmq.POLLIN)
        self._poller.register(self._outbox, zmq.POLLIN)
        log.warning(
            "%d connections at once left fewer than %d of the %d open files ragd may have "
            "(RLIMIT_NOFILE): dropped them all and listening again; raise the limit "
            "(LimitNOFILE=, ulimit -n) to serve that many clients at once",
            rebind.dropped,
            guard.reserve,
            guard.limit,
        )

    def close(self) -> None:
        self.accepting = False
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._search_pool.shutdown(wait=False, cancel_futures=True)
        if self._rebind is not None and not self._rebind.done(REBIND_CLOSE_WAIT_S):
            # Its thread still binds (a stalled mount): the router is that thread's, and
            # the process is leaving; closing it under the thread could crash libzmq.
            log.warning("closing while the socket is still being bound again; left open")
            self._router = None
        if self._guard is not None and self._router is not None:  # it needs the router open
            self._guard.close()
        for sock in (self._router, self._outbox):
            if sock is not None:
                sock.close(linger=0)
        if self._zap is not None:
            self._zap.close()
        path = ipc_path(self.address)
        if path is not None:
            # (NotADirectoryError: its folder was replaced by a file while ragd ran)
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                path.unlink()

    # -- sending --------------------------------------------------------------------
    def send(self, identity: bytes, reply: protocol.Reply) -> None:
        frame = encode_reply(reply)
        on_loop = threading.current_thread() is threading.main_thread()
        if on_loop and self._router is not None and self._rebind is None:
            self._router.send_multipart([identity, frame])
            return
        push = getattr(self._local, "push", None)
        if push is None:
            push = self._context.socket(zmq.PUSH)
            push.setsockopt(zmq.LINGER, 1000)
            push.connect(self._outbox_address)
            self._local.push = push
        push.send_multipart([identity, frame])

    # -- the loop body -----------------------------------------------------------------
    def poll_once(self, timeout_ms: int) -> int:
        """Serve whatever arrives within `timeout_ms`; returns frames handled."""
        assert self._router is not None and self._outbox is not None
        if self._rebind is not None:  # back to the router soon after its bind
            timeout_ms = min(timeout_ms, REBIND_LOOK_MS)
        events = dict(self._poller.poll(timeout_ms))
        if self._zap is not None and self._zap.socket in events:
            self._zap.handle()
        if self._guard is not None:
            self._watch_connections(self._guard, events)
        if self._rebind is not None:
            return 0
        handled = 0
        if self._outbox in events:
            while True:
                try:
                    parts = self._outbox.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                self._router.send_multipart(parts)
        if self._router in events:
            for _ in range(256):  # bounded, so signals and the watchdog keep their turn
                try:
                    frames = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    break
                try:
                    self._dispatch([f.bytes for f in frames], self._from_owner(frames[-1]))
                except Exception:  # the loop outlives any one request
                    log.exception("dropped a request that could not be answered")
                handled += 1
        return handled

    def _watch_connections(self, guard: ConnectionGuard, events: dict[Any, int]) -> None:
        full = guard.full() if guard.socket in events else False  # (reads its events)
        if self._rebind is not None:
            if self._rebind.done():
                self._listening_again(self._rebind, guard)
        elif full:
            assert self._router is not None
            self._drop_all(self._router, guard)

    def _from_owner(self, frame: zmq.Frame) -> bool:
        """Did this frame come from the daemon's own user? (See the module docstring.)"""
        if self._zap is not None:
            return _metadata(frame, "User-Id") == OWNER
        # ipc: Peer-Address ends in ":uid:gid:pid", read by libzmq with SO_PEERCRED
        fields = _metadata(frame, "Peer-Address").rsplit(":", 3)
        return len(fields) == 4 and fields[1] == str(os.geteuid())

    def _dispatch(self, parts: list[bytes], owner: bool) -> None:
        identity, frames = parts[0], parts[1:]
        request_id = ""
        try:
            if len(frames) != 1:
                raise BadRequest(f"expected exactly one frame per request, got {len(frames)}")
            message = _decode(frames[0])
            # Read first, so the error for anything else wrong with the request (its
            # version, op or args) carries it: a client pipelining requests matches
            # replies by id, and an error answered with "" matched none.
            request_id = _readable_id(message)
            request = _request(message)
            if not self.accepting:
                raise ShuttingDown("ragd is shutting down")
            route = self.routes.get(request.op)
            if route is None:
                known = ", ".join(sorted(self.routes))
                raise UnknownOp(f"unknown op {request.op!r} (known: {known})")
            if route.owner_only and not owner:
                raise Forbidden(
                    f"only the user running ragd may send {request.op!r}: it changes which "
                    "folders ragd reads",
                )
            if route.check is not None:
                route.check(request)
            if route.lane != "loop":
                self._submit(route, request, Responder(self, identity, request_id))
                return
            data = route.handler(request)
            self.send(identity, protocol.ok_reply(request_id, data, self.pending()))
        except RagError as exc:
            self.send(
                identity,
                protocol.error_reply(request_id, exc.type_name, str(exc), self.pending()),
            )
        except Exception as exc:
            log.exception("internal error handling a request")
            self.send(
                identity,
                protocol.error_reply(
                    request_id,
                    InternalError.type_name,
                    f"internal error: {type(exc).__name__}",
                    self.pending(),
                ),
            )

    def _submit(self, route: Route, request: Request, responder: Responder) -> None:
        """Hand a pooled op to its lane's pool, or refuse it at once when too many wait."""
        with self._slow_lock:
            if self._slow_in_flight >= MAX_SLOW_IN_FLIGHT:
                raise Busy(
                    f"ragd is busy ({MAX_SLOW_IN_FLIGHT} requests waiting); try again shortly",
                )
            self._slow_in_flight += 1
        if route.lane == "ask":
            pool, run = self._pool, route.handler
        else:
            pool, run = self._search_pool, _replying(route.handler)
        try:
            pool.submit(self._run_slow, run, request, responder)
        except RuntimeError:  # the pool was shut down: we are stopping
            self._slow_done()
            raise ShuttingDown("ragd is shutting down") from None

    def _run_slow(self, handler: SlowHandler, request: Request, responder: Responder) -> None:
        try:
            handler(request, responder)
        except RagError as exc:
            responder.error(exc.type_name, str(exc))
        except Exception as exc:
            log.exception("internal error in %s", request.op)
            responder.error(InternalError.type_name, f"internal error: {type(exc).__name__}")
        finally:
            self._slow_done()
            if not responder.finished:
                responder.error(InternalError.type_name, "handler returned no reply")

    def _slow_done(self) -> None:
        with self._slow_lock:
            self._slow_in_flight -= 1


def _replying(handler: Handler) -> SlowHandler:
    """A one-reply handler run off the loop: its result becomes the final frame."""

    def run(request: Request, responder: Responder) -> None:
        responder.final(handler(request))

    return run


def _metadata(frame: zmq.Frame, name: str) -> str:
    """A ZeroMQ message property, or "" when the transport did not set it."""
    try:
        return str(frame.get(name))
    except zmq.ZMQError:
        return ""


def encode_reply(reply: protocol.Reply) -> bytes:
    """The reply frame; ASCII escapes when a string holds a lone surrogate (which JSON
    from a client may carry, but UTF-8 cannot)."""
    try:
        return protocol.encode(dict(reply))
    except UnicodeEncodeError:
        return json.dumps(dict(reply), ensure_ascii=True, separators=(",", ":")).encode()


def _decode(frame: bytes) -> dict[str, Any]:
    try:
        return protocol.decode(frame)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    except RecursionError:
        raise BadRequest("frame is not JSON (nested too deeply)") from None


def _readable_id(message: dict[str, Any]) -> str:
    """The request's id when it is one (a string of 1 to 128 characters), else ""."""
    request_id = message.get("id")
    if not isinstance(request_id, str) or not request_id or len(request_id) > 128:
        return ""
    return request_id


def _request(message: dict[str, Any]) -> Request:
    """The request a decoded frame holds, or the error that says what is wrong with it."""
    version = message.get("v")
    if version != protocol.PROTOCOL_VERSION:
        raise VersionMismatch(
            f"protocol version {version!r} not supported (this daemon speaks "
            f"{protocol.PROTOCOL_VERSION}); upgrade the client and the daemon together",
        )
    request_id = _readable_id(message)
    if not request_id:
        raise BadRequest("'id' must be a non-empty string of at most 128 characters")
    if not isinstance(message.get("op"), str):
        raise BadRequest("'op' must be a string")
    args = message.get("args", {})
    if not isinstance(args, dict):
        raise BadRequest("'args' must be an object")
    return Request(request_id, message["op"], args)


def prepare_socket_dir(path: Path) -> None:
    """Make sure only we can reach or replace the socket, and clear a stale socket file."""
    secure_socket_dir(path.parent)
    if path.exists() or path.is_symlink():
        path.unlink()


def secure_socket_dir(directory: Path) -> None:
    """Create or check the socket's folder; raises ConfigError naming the folder and fix.

    Runs before the instance lock is taken, since that lock file lives in this folder."""
    if directory == fallback_socket_dir():
        make_fallback_dir(directory)
    else:
        check_chosen_dir(directory)


def make_fallback_dir(directory: Path) -> None:
    """/tmp/ragd-UID, made safely: another user may have created the name first (with a
    server of theirs inside), so it is used only when `untrusted_folder` finds it ours.
    ``mkdir`` makes it 0700 at birth; the umask can only take bits away, so a folder we
    just made (ours, not a link: checked with lstat, and /tmp's sticky bit stops anyone
    swapping it) is set to exactly 0700. An existing one is never re-moded."""
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    else:
        st = os.lstat(directory)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
            os.chmod(directory, 0o700)
    problem = untrusted_folder(directory)
    if problem:
        raise ConfigError(refusal(directory, problem))


def check_chosen_dir(directory: Path) -> None:
    """A runtime-dir folder, or the folder of an explicit --socket / RAG_SOCKET.

    ragd's own directory — the default one, or any it creates now — is made 0700. A
    directory the user already had (``--socket ~/x.sock``, ``/tmp/x.sock``) keeps its
    mode: ragd never loosens or tightens someone else's folder (``chmod 700 /tmp`` would
    break every other program). Such a folder is accepted when only we can write to it, or
    when it is sticky like /tmp (nobody else can remove or replace our socket there, and
    the socket itself is 0600). A directory of another user, a symbolic link, or a folder
    others may write to without the sticky bit would let someone else reach or replace
    the socket, so start-up refuses it."""
    created = not os.path.lexists(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"socket directory {directory} is not a directory; refusing it")
    ours = st.st_uid == os.geteuid()
    sticky = bool(st.st_mode & stat.S_ISVTX)
    managed = created or directory == default_socket_dir()  # ragd's own folder
    if not ours and (managed or not (sticky and st.st_uid == 0)):
        # e.g. someone squatted /tmp/ragd-UID first; a root-owned sticky /tmp is fine
        raise ConfigError(
            f"socket directory {directory} belongs to uid {st.st_uid}, not to us "
            f"(uid {os.geteuid()}); refusing to listen there"
        )
    if managed:
        os.chmod(directory, 0o700)
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
        raise ConfigError(
            f"socket directory {directory} is writable by other users (mode "
            f"{stat.S_IMODE(st.st_mode):o}), so they could replace the socket; refusing it "
            "(use a private folder, or leave --socket unset for the default)"
        )
