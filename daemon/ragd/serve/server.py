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
on their own small pool, so a long Claude answer never holds up a search. `check` waits
for the index writer to be idle (up to two minutes beside a daemon that keeps indexing)
and runs on a pool of one worker of its own: on the search pool, two `ragd check` runs
held both of a two-core machine's workers, and every search in the meantime went
unanswered for 30 s (attack52). Pooled ops send their frames back through an inproc
socket.

Nothing a client sends can stop the loop or grow the daemon without bound:
- a reply that cannot be encoded as UTF-8 (a lone surrogate echoed from the request's
  `id` or `query`) is sent with ASCII escapes instead; a reply that still cannot be sent
  is dropped with one log line, never raised into the loop;
- JSON nested too deeply for the parser is a `bad_request`, not an internal error;
- at most MAX_SLOW_IN_FLIGHT pooled requests of each lane wait; more get a `busy`
  reply at once instead of queueing without limit. Each lane counts its own: asks
  waiting on a silent model server (each up to its model deadline, 220 s by default)
  left no room for anyone's search while one count held them all (attack61);
- replies to a client that does not read them pile up only to the ROUTER's send
  high-water mark (SNDHWM); past it they are dropped (every send is non-blocking);
- an ask whose client gives up stops (serve/running_asks.py): its `cancel` reaches it,
  and so does a reply frame with no connection to go to (ROUTER_MANDATORY: the door, or
  on tcp:// this ROUTER, says the client is gone), its next `wait` frame at the latest.

On ipc:// a process of its own, the door (serve/door.py), holds the public socket and
relays frames to this server's ROUTER on a private socket beside it: libzmq ends a process
whose ipc:// listener runs out of descriptors, and that process is then the door alone
(serve/door_keeper.py starts another). On tcp:// the server's own ROUTER listens.

Who may send what: on ipc:// the socket's file modes keep other users out, and libzmq
reads each peer's uid from the kernel (SO_PEERCRED) into every frame's Peer-Address, which
the door passes on as one frame (owner or not) before the request's; on
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
import math
import os
import secrets
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import zmq

from ragd.core.connection_drops import ConnectionDrops
from ragd.core.native_panic import failed
from ragd.query.cancellation import Cancel
from ragd.serve.curve import OWNER, ZapHandler, ensure_keys, serve_curve
from ragd.serve.door import GONE, peer_credentials, send_or_gone
from ragd.serve.door_keeper import ROUTING_ID_BYTES, Door, Ended, EndedFromOutside
from ragd.serve.running_asks import RunningAsks
from ragd.serve.socket_dir import prepare_socket_dir, secure_socket_dir
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
    MAX_SOCKET_PATH_BYTES,
    curve_dir,
    ipc_path,
    is_tcp,
    normalize_address,
    private_socket,
)

log = logging.getLogger("ragd.serve.server")

FLOOD_LINE_S = 60.0  # a flood's drops are said once a minute at most
DEAF_STARTS = 3  # doors in a row ended from outside before listening, started again

# Worker threads hand replies to the loop through an inproc socket. Each Server binds
# its own name: ZeroMQ unbinds a closed socket's name asynchronously, so a server made
# right after another one closed (a restart in the same process; a test's next fixture)
# could meet "Address already in use" on a shared name (seen once in CI under load).
_OUTBOXES = itertools.count()
SEND_HWM = 10_000  # replies queued per client before ZeroMQ drops (ROUTER: never blocks)
MAX_SLOW_IN_FLIGHT = 64  # requests of one lane running or waiting for its worker pool


@dataclass
class Request:
    id: str
    op: str
    args: dict[str, Any]
    client: bytes = b""  # the connection it came on (its routing identity): ids are its own


class Responder:
    """Lets a (possibly off-loop) handler stream frames back to one client."""

    def __init__(
        self, server: Server, identity: bytes, request_id: str, cancel: Cancel | None = None
    ) -> None:
        self._server = server
        self._identity = identity
        self.request_id = request_id
        self.cancel = cancel  # an ask's: once its client gave up, nothing more is sent
        self.finished = False

    def delta(self, data: dict[str, Any]) -> None:
        self._send(protocol.ok_reply(self.request_id, data, self._server.pending(), "delta"))

    def wait(self) -> None:
        """Still working on it (a `wait` frame): the client's silence bound starts again."""
        self._send(protocol.ok_reply(self.request_id, {}, self._server.pending(), "wait"))

    def final(self, data: dict[str, Any]) -> None:
        self.finished = True
        self._send(protocol.ok_reply(self.request_id, data, self._server.pending()))

    def error(self, type_name: str, message: str) -> None:
        self.finished = True
        self._send(
            protocol.error_reply(self.request_id, type_name, message, self._server.pending())
        )

    def _send(self, reply: protocol.Reply) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            return  # the client gave up on it (or is gone): it reads nothing more of it
        self._server.send(self._identity, reply)


Handler = Callable[[Request], dict[str, Any]]
SlowHandler = Callable[[Request, Responder], None]
Lane = Literal["loop", "search", "ask", "check"]


@dataclass(frozen=True)
class Route:
    """One op: its name, where it runs, and its handler.

    `loop`, `search` and `check` handlers return the reply; an `ask` handler streams through its
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
        self._door: Door | None = None  # ipc:// only
        self._door_ended: Ended | None = None  # while its successor starts
        self._deaf_starts = 0  # doors in a row ended before they listened
        self._flood_said_at = -math.inf  # (time.monotonic) the last flood's line
        self._flood_unsaid = 0  # drops since, not said
        self._inner: Path | None = None  # the private socket the door relays to
        self._poller = zmq.Poller()
        self._local = threading.local()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragd-ask")
        self._search_pool = ThreadPoolExecutor(
            max_workers=search_workers, thread_name_prefix="ragd-search"
        )
        # One check at a time, never on a search worker (see the module docstring).
        self._check_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragd-check")
        self._slow_lock = threading.Lock()
        self._slow_in_flight: dict[str, int] = {}  # by lane ("ask", "search", "check")
        self.running = RunningAsks()  # what a `cancel`, or a client gone, stops
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
        metadata = f"{protocol.MAX_MESSAGE_PROPERTY}:{self.max_message_bytes}"
        router.setsockopt(zmq.METADATA, metadata.encode())
        # A reply for a peer that is gone raises EHOSTUNREACH instead of vanishing: that
        # is how a client gone without a word is noticed (`_route`).
        router.setsockopt(zmq.ROUTER_MANDATORY, 1)
        router.setsockopt(zmq.SNDHWM, SEND_HWM)
        if is_tcp(self.address):
            keys = ensure_keys(curve_dir())
            # The handler exists before the socket listens: a CURVE server without one
            # would admit every client key.
            self._zap = ZapHandler(self._context, keys)
            self._poller.register(self._zap.socket, zmq.POLLIN)
            serve_curve(router, keys)
        path = ipc_path(self.address)
        if path is None:
            self._listen(router, self.address, None)
        else:
            prepare_socket_dir(path)  # (the door does it again each time it binds)
            self._inner = inner = inner_socket(path)
            self._listen(router, f"ipc://{inner}", inner)
            door = Door(self.address, f"ipc://{inner}", self.max_message_bytes, metadata, SEND_HWM)
            try:
                self._first_door(door)
            except OSError:
                router.close(linger=0)
                with contextlib.suppress(OSError):
                    inner.unlink()
                raise
            self._door = door
            self._poller.register(door.fileno(), zmq.POLLIN)
        outbox = self._context.socket(zmq.PULL)
        outbox.setsockopt(zmq.LINGER, 0)
        outbox.bind(self._outbox_address)
        self._router, self._outbox = router, outbox
        self._poller.register(router, zmq.POLLIN)
        self._poller.register(outbox, zmq.POLLIN)

    def _first_door(self, door: Door) -> None:
        """Start the door and wait until it listens; one ended from outside before it did
        is started again, DEAF_STARTS times at most, as after an end while serving."""
        for attempt in range(DEAF_STARTS + 1):
            try:
                door.start(wait=True)
                return
            except EndedFromOutside as exc:
                if attempt == DEAF_STARTS:
                    raise
                log.warning("%s; starting another", exc)

    def _listen(self, router: zmq.Socket[bytes], address: str, path: Path | None) -> None:
        # The socket is born owner-only, never briefly wider. The umask is the process's:
        # other threads make folders under it meanwhile, so it keeps the owner's bits;
        # 0o077 is what `ragd serve` sets at start (cli/main.py) anyway.
        previous = os.umask(0o077)
        try:
            router.bind(address)
        finally:
            os.umask(previous)
        if path is not None:
            os.chmod(path, 0o600)

    def _door_said(self, door: Door) -> None:
        """The door wrote: it listens again after an end, or it ended. An end while the
        daemon serves drops its connections (clients asking `ping` learn it) and starts
        another door; a door that cannot listen would leave the daemon listening nowhere:
        CannotListen, one line, and it stops."""
        polled = door.fileno()
        ended = door.read()
        if ended is None:
            if door.listening and self._door_ended is not None:
                self._said_listening_again(self._door_ended)
                self._door_ended = None
            return
        before = self._door_ended
        if before is not None and door.listening:  # listened, then ended at once
            self._said_listening_again(before)
            before = None
        deaf = before is not None and not door.listening  # ended before it listened
        # One ended from outside as it started (a second `kill`; a flood aborting it the
        # moment it binds) is tried again, a few times in a row at most.
        self._deaf_starts = self._deaf_starts + 1 if deaf else 0
        if ended.failure or (deaf and not ended.by_signal) or self._deaf_starts > DEAF_STARTS:
            dropped = before.connections if before is not None else ended.connections
            raise self._cannot_listen_again(dropped, ended.failure or "its listener " + ended.why)
        if ended.limit_reached:  # (a `kill` is not the limit: the log says how it ended)
            self.drops.note(ended.connections, ended.limit)
        self._door_ended = before if deaf else ended  # (the end the log will tell)
        self._poller.unregister(polled)  # (closed with the pipe by now)
        self._private_again(door, (before or ended).connections)
        try:
            door.start(wait=False)
        except OSError as exc:  # no process to be had (EAGAIN, ENOMEM)
            raise CannotListen(f"cannot start a listener on {self.address} again: {exc}") from exc
        self._poller.register(door.fileno(), zmq.POLLIN)

    def _private_again(self, door: Door, dropped: int) -> None:
        """The private name is a hidden file beside the socket, which a cleaner may remove
        (systemd-tmpfiles' age in /tmp, an `rm` of dot files): a door started on it would
        relay to nobody (or, in a shared sticky folder, to whoever took the name). Gone or
        not ours, the router is bound afresh on a new name. (One lstat on the loop, in the
        folder the door binds in; a bind only after a cleaner.)"""
        assert self._router is not None and self._inner is not None
        with contextlib.suppress(OSError):
            st = os.lstat(self._inner)
            if stat.S_ISSOCK(st.st_mode) and st.st_uid == os.geteuid():
                return
        with contextlib.suppress(zmq.ZMQError):
            self._router.unbind(f"ipc://{self._inner}")
        public = ipc_path(self.address)
        assert public is not None
        try:
            secure_socket_dir(public.parent)  # (the folder may have been replaced as well)
            self._inner = inner = inner_socket(public)
            self._listen(self._router, f"ipc://{inner}", inner)
        except (RagError, OSError, zmq.ZMQError) as exc:
            raise self._cannot_listen_again(
                dropped, f"cannot make its private socket: {exc}"
            ) from exc
        log.warning("the private socket beside %s was gone: made again", public)
        door.inner = f"ipc://{inner}"

    def _cannot_listen_again(self, dropped: int, why: str) -> CannotListen:
        """The one line a daemon that lost its door and cannot listen again stops with."""
        return CannotListen(
            f"dropped {dropped} connections, then cannot listen on {self.address} again: {why}"
        )

    def _said_listening_again(self, ended: Ended) -> None:
        """One line per end; those a flood causes (the open-file limit: the guard's drop,
        libzmq's abort) once a FLOOD_LINE_S at most, the next one counting the rest (a
        sustained flood logged 1.4 lines a second; `rag status` counts every drop)."""
        more = ""
        if ended.limit_reached:
            now = time.monotonic()
            if now - self._flood_said_at < FLOOD_LINE_S:
                self._flood_unsaid += 1
                return
            if self._flood_unsaid:
                more = f" ({self._flood_unsaid} more such drops since the last line)"
            self._flood_said_at, self._flood_unsaid = now, 0
        if not ended.why:
            log.warning(
                "%d connections at once left fewer than %d of the %d open files ragd may "
                "have (RLIMIT_NOFILE): dropped them all and listening again; raise the "
                "limit (LimitNOFILE=, ulimit -n) to serve that many clients at once%s",
                ended.connections,
                ended.reserve,
                ended.limit,
                more,
            )
        else:
            log.warning(
                "the process holding the socket (serve/door.py) %s, dropping its "
                "connections (about %d; the open-file limit is %d): listening again%s",
                ended.why,
                ended.connections,
                ended.limit,
                more,
            )

    def close(self) -> None:
        self.accepting = False
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._search_pool.shutdown(wait=False, cancel_futures=True)
        self._check_pool.shutdown(wait=False, cancel_futures=True)
        if self._door is not None:
            self._door.close()
        for sock in (self._router, self._outbox):
            if sock is not None:
                sock.close(linger=0)
        if self._zap is not None:
            self._zap.close()
        for path in (ipc_path(self.address), self._inner):
            if path is not None:
                # (NotADirectoryError: its folder was replaced by a file while ragd ran)
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    path.unlink()

    # -- sending --------------------------------------------------------------------
    def send(self, identity: bytes, reply: protocol.Reply) -> None:
        frame = encode_reply(reply)
        envelope = self._envelope(identity)
        on_loop = threading.current_thread() is threading.main_thread()
        if on_loop and self._router is not None:
            self._route([*envelope, frame])
            return
        push = getattr(self._local, "push", None)
        if push is None:
            push = self._context.socket(zmq.PUSH)
            push.setsockopt(zmq.LINGER, 1000)
            push.connect(self._outbox_address)
            self._local.push = push
        push.send_multipart([*envelope, frame])

    def _route(self, parts: list[bytes]) -> None:
        """Send one reply on the ROUTER, never blocking the loop: past the client's
        high-water mark it is dropped (as a ROUTER without ROUTER_MANDATORY drops it); a
        client with no connection left (on ipc://: a door that ended) is gone, and its
        asks are cancelled."""
        assert self._router is not None
        if not send_or_gone(self._router, parts):
            self._client_gone(b"".join(parts[:-1]))

    def _client_gone(self, identity: bytes) -> None:
        cancelled = self.running.gone(identity)
        if cancelled:
            log.info("a client went away: %d of its questions cancelled", cancelled)

    def _envelope(self, identity: bytes) -> list[bytes]:
        """Through the door, an identity is the door's routing id and then the client's."""
        if self._door is None:
            return [identity]
        return [identity[:ROUTING_ID_BYTES], identity[ROUTING_ID_BYTES:]]

    # -- the loop body -----------------------------------------------------------------
    def poll_once(self, timeout_ms: int) -> int:
        """Serve whatever arrives within `timeout_ms`; returns frames handled."""
        assert self._router is not None and self._outbox is not None
        events = dict(self._poller.poll(timeout_ms))
        if self._zap is not None and self._zap.socket in events:
            self._zap.handle()
        if self._door is not None:
            if self._door.fileno() in events:
                self._door_said(self._door)
            self._door.end_if_stopped(time.monotonic())
        handled = 0
        if self._outbox in events:
            while True:
                try:
                    parts = self._outbox.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                self._route(parts)
        if self._router in events:
            for _ in range(256):  # bounded, so signals and the watchdog keep their turn
                try:
                    frames = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    break
                try:
                    self._take(frames)
                except Exception:  # the loop outlives any one request
                    log.exception("dropped a request that could not be answered")
                handled += 1
        return handled

    def _take(self, frames: list[zmq.Frame]) -> None:
        """One request off the router: through the door it is [door, client, owner,
        frames…], taken only from the door running now (its pid, read by libzmq with
        SO_PEERCRED); on tcp:// it is [client, frames…] and CURVE said who sent it."""
        door = self._door
        if door is None:
            owner = _metadata(frames[-1], "User-Id") == OWNER
            self._dispatch([f.bytes for f in frames], owner)
            return
        uid, pid = peer_credentials(frames[-1])
        sender = door.proc.pid if door.proc is not None else None
        if len(frames) < 3 or pid != str(sender):
            return  # not the door running now (one that ended left these behind)
        if frames[0].bytes != door.routing_id:
            return
        if len(frames) == 3:  # the door's own word: a reply found this client gone
            if frames[2].bytes == GONE:
                self._client_gone(frames[0].bytes + frames[1].bytes)
            return
        owner = frames[2].bytes == b"1" and uid == str(os.geteuid())
        self._dispatch([frames[0].bytes + frames[1].bytes, *(f.bytes for f in frames[3:])], owner)

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
            request.client = identity
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
        except BaseException as exc:
            if not failed(exc):
                raise
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
        lane = route.lane
        with self._slow_lock:
            waiting = self._slow_in_flight.get(lane, 0)
            if waiting >= MAX_SLOW_IN_FLIGHT:
                what = "questions" if lane == "ask" else "requests"
                raise Busy(f"ragd is busy ({waiting} {what} waiting); try again shortly")
            self._slow_in_flight[lane] = waiting + 1
        if route.lane == "ask":
            # Registered here, on the loop: a cancel read after this ask always finds it.
            responder.cancel = self.running.start(request.client, request.id)
            pool, run = self._pool, route.handler
        elif route.lane == "check":
            pool, run = self._check_pool, _replying(route.handler)
        else:
            pool, run = self._search_pool, _replying(route.handler)
        try:
            future = pool.submit(self._run_slow, lane, run, request, responder)
        except RuntimeError:  # the pool was shut down: we are stopping
            self._slow_done(lane, request, responder)
            raise ShuttingDown("ragd is shutting down") from None
        if responder.cancel is not None:
            # Cancelled while it waits for a worker: out of the queue at once, its place
            # given back. It kept its place until a worker came free (60 cancelled asks
            # behind 4 hung calls: the next user's ask was refused `busy`, attack62).
            responder.cancel.on_cancel(lambda: self._unqueue(future, lane, request, responder))

    def _unqueue(
        self, future: Future[None], lane: str, request: Request, responder: Responder
    ) -> None:
        if future.cancel():  # (False once a worker has it: it ends by itself)
            self._slow_done(lane, request, responder)

    def _run_slow(
        self, lane: str, handler: SlowHandler, request: Request, responder: Responder
    ) -> None:
        try:
            if responder.cancel is not None:
                responder.cancel.check()  # given up while it waited for a worker
            handler(request, responder)
        except RagError as exc:
            responder.error(exc.type_name, str(exc))  # (not sent once cancelled)
        except BaseException as exc:
            if not failed(exc):
                raise
            log.exception("internal error in %s", request.op)
            responder.error(InternalError.type_name, f"internal error: {type(exc).__name__}")
        finally:
            self._slow_done(lane, request, responder)
            if not responder.finished:
                responder.error(InternalError.type_name, "handler returned no reply")

    def _slow_done(self, lane: str, request: Request, responder: Responder) -> None:
        with self._slow_lock:
            self._slow_in_flight[lane] -= 1
        if responder.cancel is not None:
            self.running.done(request.client, request.id, responder.cancel)


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
    except ValueError as exc:  # nested too deeply included (protocol.decode)
        raise BadRequest(str(exc)) from None


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


def inner_socket(path: Path) -> Path:
    """A name beside the socket for the server's own ROUTER, which only the door uses:
    hidden, `.NAME.d`, so that one a crash left behind is taken again by the next start
    (the bind replaces it) instead of piling up; a random hidden name no longer than the
    socket's own when that one would not fit sun_path or something listens on it.
    (libzmq 4.3.5 removes no ipc:// file when it closes a listener: an unbound one cannot
    take away a name bound again after it.)"""
    named = private_socket(path)
    if len(os.fsencode(named)) <= MAX_SOCKET_PATH_BYTES and free_socket_name(named):
        return named
    width = max(2, len(path.name))
    for _ in range(100):
        candidate = path.parent / ("." + secrets.token_hex(width)[: width - 1])
        if not os.path.lexists(candidate):
            return candidate
    raise ConfigError(f"no unused name for a private socket beside {path}")


def free_socket_name(path: Path) -> bool:
    """May a bind take `path` (libzmq removes whatever is there first)? Yes when nothing
    is there, or a socket nobody accepts on (a crash's leftover); never a file of the
    user's, nor another daemon's live socket."""
    try:
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            return False
    except FileNotFoundError:
        return True
    except OSError:
        return False
    with contextlib.closing(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)) as probe:
        probe.settimeout(0.5)
        try:
            probe.connect(str(path))
        except OSError:
            return True
    return False
