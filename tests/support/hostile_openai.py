"""A Chat Completions server that misbehaves on purpose, for tests of what ragd does when
the "OpenAI-compatible" server on the other end is broken or hostile.

    with HostileOpenAI() as server:
        OpenAIAnswerer(server.base_url, "drip")   # the model name picks the misbehaviour

Each request is answered on a raw socket, so the server can do what no well-behaved HTTP
library would: trickle bytes forever, close mid-stream, send HTML with a 200.
"""

from __future__ import annotations

import json
import socket
import threading
import zlib
from typing import Any

STREAM = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m"}
    return f"data: {json.dumps(body | {'choices': [choice]})}\n\n".encode()


def gzipped(head: bytes, filler: bytes, megabytes: int, tail: bytes) -> bytes:
    """head, `megabytes` MB of `filler`, tail: gzip-compressed (about 1,000 to 1)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    block = filler * 2**20
    middle = [compressor.compress(block) for _ in range(megabytes)]
    return b"".join([compressor.compress(head), *middle, compressor.compress(tail)]) + (
        compressor.flush()
    )


def redirect(location: str) -> bytes:
    head = f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0"
    return head.encode() + b"\r\nConnection: close\r\n\r\n"


def compressed(stream: bool, body: bytes) -> bytes:
    """A 200 whose body is said to be gzip (whether it is or not)."""
    reply = whole("200 OK", "text/event-stream" if stream else "application/json", body)
    return reply.replace(b"\r\n\r\n", b"\r\nContent-Encoding: gzip\r\n\r\n", 1)


def whole(status: str, content_type: str, body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}"
    return head.encode() + b"\r\nConnection: close\r\n\r\n" + body


class HostileOpenAI:
    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        self._stop = threading.Event()
        self.paths: list[str] = []  # each request's path, in the order they came

    def __enter__(self) -> HostileOpenAI:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                path, request = _read_request(conn)
                self.paths.append(path)
                getattr(self, "_" + request["model"])(conn, bool(request.get("stream")))
            except OSError:
                pass  # the client gave up: that is what most of these tests want

    def _trickle(self, conn: socket.socket, first: bytes, byte: bytes) -> None:
        conn.sendall(first)
        while not self._stop.wait(0.05):  # one byte at a time, never finishing
            conn.sendall(byte)

    # -- the misbehaviours, by model name ----------------------------------------------
    def _drip(self, conn: socket.socket, stream: bool) -> None:
        if stream:  # a first word, then SSE comment bytes forever
            self._trickle(conn, STREAM + chunk({"content": "Hi"}), b":")
        else:  # a body that never ends
            self._trickle(conn, STREAM.replace(b"text/event-stream", b"application/json"), b" ")

    def _stall(self, conn: socket.socket, stream: bool) -> None:
        # bytes for a second (so the attempt outlasts 1.5 x a short timeout), then silence:
        # the per-read timeout, not the answer's limit, is what ends it
        conn.sendall(STREAM)
        for _ in range(20):
            if self._stop.wait(0.05):
                return
            conn.sendall(b":")
        self._stop.wait()

    def _empty_deltas(self, conn: socket.socket, stream: bool) -> None:
        self._trickle(conn, STREAM, chunk({"content": ""}))

    def _huge(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(STREAM)
        piece = chunk({"content": "x" * 65536})
        for _ in range(200):  # 13 MB of answer
            conn.sendall(piece)

    def _broken_json(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(STREAM + b"data: {not json\n\n")

    def _deep_json(self, conn: socket.socket, stream: bool) -> None:
        # valid JSON's start nested 100,000 deep: deeper than Python's reader recurses
        body = b"[" * 100_000
        if stream:
            conn.sendall(STREAM + b"data: " + body + b"\n\n")
        else:
            conn.sendall(whole("200 OK", "application/json", body))

    def _broken_after_text(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(STREAM + chunk({"content": "Dogs trav"}) + b"data: {not json\n\n")

    def _html(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(whole("200 OK", "text/html", b"<html><body>It works!</body></html>"))

    def _empty(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(whole("200 OK", "application/json", b""))

    def _no_choices(self, conn: socket.socket, stream: bool) -> None:
        body = b'{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[]}'
        if stream:
            conn.sendall(STREAM + b"data: " + body + b"\n\ndata: [DONE]\n\n")
        else:
            conn.sendall(whole("200 OK", "application/json", body))

    def _tool_call(self, conn: socket.socket, stream: bool) -> None:
        call = {
            "index": 0,
            "id": "c",
            "type": "function",
            "function": {"name": "rm", "arguments": "{}"},
        }
        conn.sendall(STREAM + chunk({"tool_calls": [call]}, "tool_calls") + b"data: [DONE]\n\n")

    def _gzip_bomb(self, conn: socket.socket, stream: bool) -> None:
        # 64 MB of answer text in one event or body, sent as 65 KB of gzip: the reply's
        # byte cap counted what came over the wire, and the HTTP library inflated it all
        if stream:
            head, tail = b'data: {"choices":[{"index":0,"delta":{"content":"', b'"}}]}\n\n'
        else:
            head, tail = b'{"choices":[{"index":0,"message":{"content":"', b'"}}]}'
        conn.sendall(compressed(stream, gzipped(head, b"x", 64, tail)))

    def _gzip_answer(self, conn: socket.socket, stream: bool) -> None:
        # a sound streamed answer, compressed as a server behind nginx may send it
        text = chunk({"content": "Dogs travel free.\n\nConfidence: high"}, "stop")
        conn.sendall(compressed(True, gzipped(text, b"", 0, b"data: [DONE]\n\n")))

    def _bad_gzip(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(compressed(stream, b"this is not gzip at all"))

    def _redirect_loop(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(redirect("/v1/chat/completions"))  # back where it came from, for ever

    def _redirect_away(self, conn: socket.socket, stream: bool) -> None:
        # elsewhere (another path here; in life another host): a 307 keeps the POST, and
        # the client would send the question and its documents on
        conn.sendall(redirect("/elsewhere/v1/messages"))

    def _redirect_nowhere(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(b"HTTP/1.1 302 Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    def _cut(self, conn: socket.socket, stream: bool) -> None:
        conn.sendall(STREAM + chunk({"content": "Dogs trav"}))  # then the connection closes

    def _no_done(self, conn: socket.socket, stream: bool) -> None:
        done = chunk({"content": "Dogs travel free.\n\nConfidence: high"}) + chunk({}, "stop")
        self._trickle(conn, STREAM + done, b"")  # the answer is complete; [DONE] never comes


def _read_request(conn: socket.socket) -> tuple[str, dict[str, Any]]:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += conn.recv(65536)
    request: dict[str, Any] = json.loads(body)
    return head.split(b" ")[1].decode(), request
