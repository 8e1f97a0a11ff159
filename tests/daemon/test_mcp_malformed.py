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

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
TOOLS_LIST = b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'


def test_malformed_lines_get_json_rpc_errors_and_the_session_goes_on(tmp_path: Path) -> None:
    lines = [
        json.dumps(INITIALIZE).encode(),
        INITIALIZED,
        b"{not json",
        b'{"jsonrpc":"2.0","id":5}',
        TOOLS_LIST,
    ]
    replies = _session(tmp_path, lines, {None, 2, 5})
    assert replies[None]["error"]["code"] == -32700  # type: ignore[index]
    assert replies[5]["error"]["code"] == -32600  # type: ignore[index]
    assert "tools" in replies[2]["result"]  # type: ignore[operator]


def test_requests_the_sdk_refuses_are_answered_and_deep_nesting_ends_nothing(
    tmp_path: Path,
) -> None:
    """A request nested 50,000 deep (valid JSON) first and again later, and requests
    the SDK's model refuses. Before: the nested line raised RecursionError in the relay
    (first line: in `rag mcp` itself), which ended the session with a traceback; the
    others got no reply at all."""
    deep = (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search",'
        b'"arguments":{"query":' + b"[" * 50_000 + b"]" * 50_000 + b"}}}"
    )
    lines = [
        deep,
        json.dumps(INITIALIZE).encode(),
        INITIALIZED,
        deep,
        b'{"jsonrpc":"2.0","id":10,"method":5}',
        b'{"id":11,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":13,"method":"ping","params":[1]}',
        b'{"jsonrpc":"2.0","id":15.0,"method":"ping"}',
        TOOLS_LIST,
    ]
    replies = _session(tmp_path, lines, {1, 2, 10, 11, 13, 15})
    assert "tools" in replies[2]["result"]  # type: ignore[operator]
    assert "capabilities" in replies[1]["result"]  # type: ignore[operator]
    for request_id in (10, 11, 13, 15):
        assert replies[request_id]["error"]["code"] == -32600  # type: ignore[index]


def _session(
    tmp_path: Path, lines: list[bytes], wanted: set[object]
) -> dict[object, dict[str, object]]:
    """The replies of a live `rag mcp` session (stdin kept open) up to the ids `wanted`."""
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock")}
    host = subprocess.Popen(
        [BIN / "rag", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert host.stdin is not None and host.stdout is not None
    host.stdin.write(b"\n".join(lines) + b"\n")
    host.stdin.flush()
    replies: dict[object, dict[str, object]] = {}
    deadline = time.monotonic() + 60
    try:
        while not wanted <= replies.keys():  # the stdin stays open: a live session
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
    return replies


def test_a_resource_list_without_a_daemon_warns_in_one_line(tmp_path: Path) -> None:
    """`resources/list` with no daemon: an empty list and a warning on stderr. The SDK's
    log handler (rich) wrapped the warning to its console width: five lines, the reason
    cut mid-phrase, with a timestamp and `mcp_server.py:141` in the margin."""
    lines = [json.dumps(INITIALIZE).encode(), INITIALIZED]
    lines.append(b'{"jsonrpc":"2.0","id":3,"method":"resources/list"}')
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock"), "COLUMNS": "60"}
    host = subprocess.Popen(
        [BIN / "rag", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert host.stdin is not None and host.stdout is not None and host.stderr is not None
    host.stdin.write(b"\n".join(lines) + b"\n")
    host.stdin.flush()
    replies = [json.loads(host.stdout.readline()) for _ in range(2)]  # initialize, list
    host.stdin.close()  # the session ends: what it wrote to stderr is all there is
    host.wait(60)
    assert replies[1] == {"jsonrpc": "2.0", "id": 3, "result": {"resources": []}}
    warning = host.stderr.read().decode()
    assert warning.count("\n") == 1 and warning.endswith("\n"), repr(warning)
    assert "cannot list documents" in warning and "ragd is not running" in warning, warning


def test_a_host_that_never_reads_stderr_still_gets_every_reply(tmp_path: Path) -> None:
    """A host may pipe `rag mcp`'s stderr and never read it (the MCP spec lets a client
    ignore the log). Found by attack: with no daemon, each `resources/list` logs one
    warning; once the pipe was full (64 KiB: request 386 by hand) the warning's write
    blocked, and that request and every later one went unanswered for ever. The pipe is
    made one page here, so a few requests fill it."""
    import fcntl
    import os

    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock")}
    host = subprocess.Popen(
        [BIN / "rag", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=write_end,
        env=env,
    )
    os.close(write_end)
    assert host.stdin is not None and host.stdout is not None
    try:
        host.stdin.write(json.dumps(INITIALIZE).encode() + b"\n" + INITIALIZED + b"\n")
        host.stdin.flush()
        assert json.loads(host.stdout.readline())["id"] == 1
        for request_id in range(2, 80):  # about 20 warnings fill the page
            line = f'{{"jsonrpc":"2.0","id":{request_id},"method":"resources/list"}}\n'
            host.stdin.write(line.encode())
            host.stdin.flush()
            ready, _, _ = select.select([host.stdout], [], [], 60)
            assert ready, f"no reply to request {request_id}: blocked on its stderr?"
            reply = json.loads(host.stdout.readline())
            assert reply == {"jsonrpc": "2.0", "id": request_id, "result": {"resources": []}}
        logged = os.read(read_end, 65536).decode()
        assert logged.startswith("rag mcp: warning: cannot list documents"), logged[:300]
    finally:
        os.close(read_end)  # a writer still blocked on the pipe gets EPIPE and ends
        host.stdin.close()
        host.wait(60)
