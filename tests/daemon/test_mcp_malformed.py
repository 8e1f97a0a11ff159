"""`rag mcp` (the real MCP SDK) answers every malformed line instead of dropping it.

JSON-RPC answers a line that is not JSON with a parse error and a request with an id
but no method with an invalid-request error carrying that id; the SDK replied nothing
to either, so a host waiting for reply 5 waited for ever. No daemon is needed: these
lines never reach it, and `tools/list` is answered by the server itself.
"""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path

from tests.support.daemon import BIN, base_env


def test_malformed_lines_get_json_rpc_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock")}
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    lines = [
        json.dumps(initialize).encode(),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b"{not json",
        b'{"jsonrpc":"2.0","id":5}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    ]
    host = subprocess.Popen(
        [BIN / "rag", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(b"\n".join(lines) + b"\n")
    host.stdin.flush()
    replies: dict[object, dict[str, object]] = {}
    deadline = time.monotonic() + 60
    try:
        while not {None, 2, 5} <= replies.keys():  # the stdin stays open: a live session
            left = deadline - time.monotonic()
            ready, _, _ = select.select([host.stdout], [], [], max(left, 0))
            assert ready, f"no reply within 60 s; got ids {sorted(map(str, replies))}"
            line = host.stdout.readline()
            assert line, f"rag mcp ended before answering all; got {sorted(map(str, replies))}"
            reply = json.loads(line)
            replies[reply.get("id")] = reply
    finally:
        host.stdin.close()
        host.wait(60)
    assert replies[None]["error"]["code"] == -32700  # type: ignore[index]
    assert replies[5]["error"]["code"] == -32600  # type: ignore[index]
    assert "tools" in replies[2]["result"]  # type: ignore[operator]
