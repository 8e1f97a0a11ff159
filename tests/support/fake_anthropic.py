"""A scripted stand-in for the Anthropic Messages API, for tests of the real SDK.

    with FakeAnthropic() as fake:
        fake.reply_text("Ferries leave hourly [handbook.md:Timetable]\\nConfidence: high")
        fake.reply_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"})
        answerer = ClaudeAnswerer("sk-test-not-a-real-key", base_url=fake.base_url)
        ...
        fake.requests[0].body["system"]

`POST /v1/messages` serves the next scripted reply (or the default one when the queue is
empty): a text reply is a JSON message, or a server-sent-event stream in the API's event
order when the request says `"stream": true`. Every request is recorded. The server binds
127.0.0.1 on a free port and runs in a background thread; closing it releases any reply
that is still hanging, so `close()` never waits on a sleeping handler.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_TEXT = "I have nothing scripted to say.\nConfidence: low"


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
    stop_reason: str = "end_turn"
    piece_chars: int = 7  # streamed as several text_delta events of this size
    error_after_text: tuple[str, str] | None = None  # (type, message) sent mid-stream


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


class FakeAnthropic:
    def __init__(self, default: Reply | None = None) -> None:
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._default: Reply = default or TextReply(DEFAULT_TEXT)
        self._requests: list[RecordedRequest] = []
        self._released = threading.Event()  # set on close: hanging replies give up
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="fake-anthropic",
            daemon=True,
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    # -- scripting -------------------------------------------------------------------

    def reply_text(
        self,
        text: str,
        *,
        stop_reason: str = "end_turn",
        piece_chars: int = 7,
        times: int = 1,
        default: bool = False,
    ) -> None:
        self._script(TextReply(text, stop_reason, piece_chars), times, default)

    def reply_stream_error(
        self, partial_text: str, error_type: str = "overloaded_error", message: str = "Overloaded"
    ) -> None:
        """Stream `partial_text`, then an `error` event: the API failing mid-answer."""
        self._script(TextReply(partial_text, error_after_text=(error_type, message)), 1, False)

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

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _handler_for(fake: FakeAnthropic) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        timeout = 5  # a client that stops sending mid-request can't pin a thread forever
        error_message_format = (
            '{"type":"error","error":{"type":"not_found_error","message":"%(message)s"}}'
        )
        error_content_type = "application/json"

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
            if self.path.split("?")[0] != "/v1/messages":
                self.send_error(404, f"no route {self.path}")
                return
            reply = fake._next_reply(request)
            # The client may have given up already (its timeout fired): nothing to do then.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self._serve(reply, request)

        def _serve(self, reply: Reply, request: RecordedRequest) -> None:
            if isinstance(reply, HangReply):
                fake._released.wait(reply.seconds)
                self.close_connection = True
                return
            if isinstance(reply, ErrorReply):
                payload = {
                    "type": "error",
                    "error": {"type": reply.error_type, "message": reply.message},
                }
                self._send_json(reply.status, payload, reply.headers)
                return
            model = str(request.body.get("model", "claude-fake"))
            if request.body.get("stream"):
                self._send_stream(reply, model)
            else:
                self._send_json(200, _message(reply, model, len(request.raw)))

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

        def _send_stream(self, reply: TextReply, model: str) -> None:
            # HTTP/1.0 without a length: the body ends when we close the connection.
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("request-id", "req_fake")
            self.end_headers()
            for event_type, data in _stream_events(reply, model):
                frame = f"event: {event_type}\ndata: {json.dumps(data)}\n\n"
                self.wfile.write(frame.encode())
                self.wfile.flush()
            self.close_connection = True

    return Handler


def _message(reply: TextReply, model: str, request_bytes: int) -> dict[str, Any]:
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": reply.text}],
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": request_bytes // 4, "output_tokens": len(reply.text) // 4},
    }


def _stream_events(reply: TextReply, model: str) -> list[tuple[str, dict[str, Any]]]:
    start: dict[str, Any] = {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    step = max(1, reply.piece_chars)
    pieces = [reply.text[i : i + step] for i in range(0, len(reply.text), step)]
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        ("ping", {"type": "ping"}),
    ]
    for piece in pieces:
        delta = {"type": "text_delta", "text": piece}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    if reply.error_after_text is not None:
        error_type, message = reply.error_after_text
        events.append(
            ("error", {"type": "error", "error": {"type": error_type, "message": message}})
        )
        return events
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": len(reply.text) // 4},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events
