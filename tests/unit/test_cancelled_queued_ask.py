"""A cancelled ask that waits for a worker gives its place in line back at once (attack62).

Measured: 4 asks held the 4 ask workers on a hung model server; another client sent 60
asks and cancelled each (every cancel answered `cancelled: true`); the next user's
`rag ask` was refused at once, "rag: ragd is busy (64 questions waiting); try again
shortly" (exit 4): the cancelled asks kept their places until a worker came free, up to
the hung calls' deadline."""

from __future__ import annotations

import threading
from typing import Any

from ragd.serve.server import MAX_SLOW_IN_FLIGHT, Request, Responder, Route, Server


class Sent:
    def __init__(self) -> None:
        self.replies: list[Any] = []

    def __call__(self, identity: bytes, reply: Any) -> None:
        self.replies.append(reply)


def test_a_cancelled_queued_ask_frees_its_place_at_once() -> None:
    server = Server("ipc:///nonexistent/a62.sock", lambda: 0, workers=1)
    sent = Sent()
    server.send = sent  # type: ignore[method-assign]
    release = threading.Event()

    def hung(request: Request, responder: Responder) -> None:
        release.wait(30)
        responder.final({})

    route = Route("ask", "ask", hung)
    try:
        for n in range(MAX_SLOW_IN_FLIGHT):
            client = b"A" if n == 0 else b"B"  # A's ask holds the only worker
            server._submit(
                route, Request(str(n), "ask", {}, client), Responder(server, client, str(n))
            )
        for n in range(1, MAX_SLOW_IN_FLIGHT):
            assert server.running.cancel(b"B", str(n))
        assert server._slow_in_flight["ask"] == 1  # only A's, running
        request = Request("next", "ask", {}, b"C")
        server._submit(route, request, Responder(server, b"C", "next"))  # not Busy
    finally:
        release.set()
        server._pool.shutdown(wait=True)
    assert server._slow_in_flight["ask"] == 0
    assert not server.running._asks  # every ask forgotten, the cancelled ones too
