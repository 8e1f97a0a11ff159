"""`rag mcp` whose host writes requests and does not read the replies.

The SDK reads every line it is given at once and starts a task for each request; its
reply then waits to be written. A host that never read our stdout (or read slower than it
wrote) grew `rag mcp` without bound: 354 MB after 30 s of `get` requests, by hand. The
line gate now hands the SDK at most `MAX_IN_FLIGHT` unanswered requests; past that it
stops reading the host, which meets a full pipe, and all goes on once it reads.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import threading
from pathlib import Path

from ragcli.mcp_lines import InFlight, LineGate
from tests.support.daemon import BIN, base_env, wait_for

# Held back, the writer stops after what the gate, the SDK's reader and the two pipes hold:
# ≈ 2,700 requests with Linux's 64 KiB pipes, ≈ 250 with the one-page pipes the host below
# asks for. Without the gate every request is read. Each request answered costs
# `rag mcp` ≈ 0.5 ms of CPU, so the count is kept to what tells the two apart.
REQUESTS = 6_000
PIPE_BYTES = 4096  # one page: the least F_SETPIPE_SZ gives


def _request(n: int, method: str = "ping") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": method}).encode() + b"\n"


def test_requests_wait_for_room_and_replies_or_cancels_make_it() -> None:
    in_flight = InFlight(limit=2)
    forwarded: list[bytes] = []
    gate = LineGate(forwarded.append, lambda _: None, in_flight=in_flight)
    gate.feed(_request(1) + _request(2))
    third = threading.Thread(target=gate.feed, args=(_request(3),), daemon=True)
    third.start()
    third.join(0.2)
    assert third.is_alive() and len(forwarded) == 2  # waits: two unanswered
    in_flight.sdk_line(b'{"jsonrpc":"2.0","id":1,"result":{}}')
    third.join(10)
    assert not third.is_alive() and len(forwarded) == 3
    # A cancelled request is never answered by the SDK: the host's cancel makes room.
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}
    gate.feed(json.dumps(cancel).encode() + b"\n")
    assert len(in_flight) == 1
    # A reply of megabytes is read by its head; the SDK's own requests settle nothing.
    in_flight.sdk_line(b'{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"x"}}')
    in_flight.sdk_line(b'{"jsonrpc":"2.0","id":4,"method":"ping"}')
    assert len(in_flight) == 0


def test_a_cancel_naming_the_id_as_a_string_settles_the_request() -> None:
    """review48: the SDK reads "7" as request 7 (and cancels it, never answering); kept
    apart here, request 7 stayed in flight for ever, and `rag mcp` waited EOF_DRAIN_S at
    the end of its input."""
    in_flight = InFlight()
    gate = LineGate(lambda _: None, lambda _: None, in_flight=in_flight)
    gate.feed(_request(7))
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "7"}}
    gate.feed(json.dumps(cancel).encode() + b"\n")
    assert len(in_flight) == 0 and in_flight.settled(0.0)
    gate.feed(json.dumps({"jsonrpc": "2.0", "id": "x7", "method": "ping"}).encode() + b"\n")
    in_flight.sdk_line(b'{"jsonrpc":"2.0","id":"x7","result":{}}')
    assert in_flight.settled(0.0)


def test_a_host_that_does_not_read_is_not_read_either(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "none.sock")}
    mcp = subprocess.Popen(
        [str(BIN / "rag"), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert mcp.stdin is not None and mcp.stdout is not None
    for pipe in (mcp.stdin, mcp.stdout):  # a host's small pipes fill after fewer requests
        fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    sent = [0]

    def write() -> None:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}  # fmt: skip
        assert mcp.stdin is not None
        mcp.stdin.write(json.dumps(init).encode() + b"\n")
        mcp.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for n in range(1, REQUESTS + 1):
            mcp.stdin.write(_request(n))
            mcp.stdin.flush()
            sent[0] = n

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        # Until the writer is stuck (the same count twice in a row) or done.
        seen = [-1]

        def settled() -> bool:
            still = sent[0] == seen[0]
            seen[0] = sent[0]
            return still or not writer.is_alive()

        wait_for(settled, 120, "the host's writes to stop or end", interval=1.0)
        assert writer.is_alive(), f"all {REQUESTS} requests were read with no reply read"
        assert sent[0] < REQUESTS // 2, sent  # held back: what the pipes and 64 requests hold
        # Now read: every request is answered, once, and the host's writes go on.
        ids: list[int] = []
        while len(ids) < REQUESTS + 1:
            line = mcp.stdout.readline()
            assert line, f"rag mcp ended after {len(ids)} replies"
            ids.append(json.loads(line)["id"])
        writer.join(60)
        assert not writer.is_alive()
    finally:
        mcp.kill()
        mcp.wait(10)
    assert sorted(ids) == list(range(REQUESTS + 1))
