"""The part every fake model server shares: a scripted reply queue, recorded requests,
and a real HTTP server on 127.0.0.1 (a free port, a background thread).

A fake for one API (fake_anthropic.py, fake_openai.py) subclasses `ScriptedServer` and
says how that API renders a reply, a stream and an error. `POST` to its route serves the
next scripted reply (or the default one when the queue is empty); a request that asks
for `"stream": true` gets server-sent events. Closing the server releases any reply that
is still hanging, so `close()` never waits on a sleeping handler.

A hanging reply watches its connection: the server's view of a client that gave up is
recorded (`hung_up`: the client closed or shut down the connection while the server
was silent), and so is when each hang began (`hang_began`), for a test that asks whether
the client ended the call before its deadline would have.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any]  # the parsed JSON body ({} if it was not JSON)
    raw: bytes


@dataclass(frozen=True)
class TextReply:
    text: str
    stop_reason: str
    piece_chars: int = 7  # streamed as several delta events of this size
    error_after_text: tuple[str, str] | None = None  # (type, message) sent mid-stream
    cut_after_text: bool = False  # the connection closed after the text: no stop events
    broken_after_text: bool = False  # then a frame whose data is not JSON, and the end


@dataclass(frozen=True)
class ErrorReply:
    status: int
    error_type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class HangReply:
    seconds: float  # then the connection is closed without a reply


Reply = TextReply | ErrorReply | HangReply


class ScriptedServer:
    route = "/v1/messages"  # the one path served; others answer 404
    prefix = ""  # what base_url adds after host:port (e.g. "/v1")
    end_turn = "end_turn"  # the API's stop reason of a finished reply
    default_text = "I have nothing scripted to say.\nConfidence: low"

    def __init__(self, default: Reply | None = None) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._default: Reply = default or TextReply(self.default_text, self.end_turn)
        self._requests: list[RecordedRequest] = []
        self._released = threading.Event()  # set on close: hanging replies give up
        self._hangs = threading.Condition()
        self.hang_began: list[float] = []  # time.monotonic() of each hang's start
        self.hung_up: list[float] = []  # ... of each hang the client ended (it closed)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.prefix}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # -- how the API looks (the subclass's part) -----------------------------------------

    def error_body(self, reply: ErrorReply) -> dict[str, Any]:
        raise NotImplementedError

    def message(self, reply: TextReply, model: str, request_bytes: int) -> dict[str, Any]:
        raise NotImplementedError

    def stream_frames(self, reply: TextReply, model: str) -> list[str]:
        """The whole event stream, one `event:`/`data:` frame (with its blank line) each."""
        raise NotImplementedError

    # -- scripting -------------------------------------------------------------------

    def reply_text(
        self,
        text: str,
        *,
        stop_reason: str | None = None,
        piece_chars: int = 7,
        times: int = 1,
        default: bool = False,
    ) -> None:
        reply = TextReply(text, stop_reason or self.end_turn, piece_chars)
        self._script(reply, times, default)

    def reply_stream_error(
        self, partial_text: str, error_type: str = "overloaded_error", message: str = "Overloaded"
    ) -> None:
        """Stream `partial_text`, then an error event: the API failing mid-answer."""
        reply = TextReply(partial_text, self.end_turn, error_after_text=(error_type, message))
        self._script(reply, 1, False)

    def reply_stream_broken(self, partial_text: str) -> None:
        """Stream `partial_text`, then a frame whose data is not JSON (a proxy or server
        garbling the stream mid-answer), and close the connection."""
        self._script(TextReply(partial_text, self.end_turn, broken_after_text=True), 1, False)

    def reply_error(
        self,
        status: int,
        body_type: str,
        message: str,
        headers: dict[str, str] | None = None,
        *,
        times: int = 1,
        default: bool = False,
    ) -> None:
        chosen = headers if headers is not None else {"retry-after": "0"}
        reply = ErrorReply(status, body_type, message, dict(chosen))
        self._script(reply, times, default)

    def reply_hang(self, seconds: float, *, times: int = 1) -> None:
        self._script(HangReply(seconds), times, False)

    def wait_hanging(self, count: int, timeout: float) -> bool:
        """Until `count` calls hang (the server accepted them and says nothing)."""
        with self._hangs:
            return self._hangs.wait_for(lambda: len(self.hang_began) >= count, timeout)

    def wait_hung_up(self, count: int, timeout: float) -> bool:
        """Until the clients have closed `count` hanging calls."""
        with self._hangs:
            return self._hangs.wait_for(lambda: len(self.hung_up) >= count, timeout)

    def _hang(self, connection: socket.socket, seconds: float) -> None:
        """Say nothing for `seconds` (or until closed), watching for the client to close
        the connection: then it is recorded, and the hang ends."""
        with self._hangs:
            self.hang_began.append(time.monotonic())
            self._hangs.notify_all()
        for _ in range(int(seconds / HANG_POLL_S) + 1):  # bounded by the hang's length
            if self._released.is_set():
                return
            readable, _, _ = select.select([connection], [], [], HANG_POLL_S)
            if readable and not _peek(connection):
                with self._hangs:
                    self.hung_up.append(time.monotonic())
                    self._hangs.notify_all()
                return

    def _script(self, reply: Reply, times: int, default: bool) -> None:
        with self._lock:
            if default:
                self._default = reply
            else:
                self._queue.extend([reply] * times)

    def _next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self._requests.append(request)
            return self._queue.popleft() if self._queue else self._default

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()  # joins the handler threads, none of which can block now
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Handler(BaseHTTPRequestHandler):
    fake: ScriptedServer  # set by _handler_for
    timeout = 5  # a client that stops sending mid-request can't pin a thread forever

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        request = RecordedRequest(
            method="POST",
            path=self.path,
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body if isinstance(body, dict) else {},
            raw=raw,
        )
        if self.path.split("?")[0] != self.fake.route:
            missing = ErrorReply(404, "not_found_error", f"no route {self.path}")
            self._send_json(404, self.fake.error_body(missing))
            return
        reply = self.fake._next_reply(request)
        # The client may have given up already (its timeout fired): nothing to do then.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._serve(reply, request)

    def _serve(self, reply: Reply, request: RecordedRequest) -> None:
        if isinstance(reply, HangReply):
            self.fake._hang(self.connection, reply.seconds)
            self.close_connection = True
            return
        if isinstance(reply, ErrorReply):
            self._send_json(reply.status, self.fake.error_body(reply), reply.headers)
            return
        model = str(request.body.get("model", "fake-model"))
        if request.body.get("stream"):
            self._send_stream(self.fake.stream_frames(reply, model))
        else:
            self._send_json(200, self.fake.message(reply, model, len(request.raw)))

    def _send_json(
        self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_fake")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_stream(self, frames: list[str]) -> None:
        # HTTP/1.0 without a length: the body ends when we close the connection.
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", "req_fake")
        self.end_headers()
        for frame in frames:
            self.wfile.write(frame.encode())
            self.wfile.flush()
        self.close_connection = True


HANG_POLL_S = 0.05


def _peek(connection: socket.socket) -> bytes:
    """What the client sent next, left unread (b"": it closed the connection)."""
    try:
        return connection.recv(1, socket.MSG_PEEK)
    except OSError:
        return b""


def _handler_for(fake: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": fake})


def pieces(text: str, size: int) -> list[str]:
    step = max(1, size)
    return [text[i : i + step] for i in range(0, len(text), step)]
