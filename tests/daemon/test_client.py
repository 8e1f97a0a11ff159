"""The thin client: what it imports, how it fails without a daemon, and the wire protocol."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import zmq

from ragproto.errors import ExitCode
from ragproto.protocol import PROTOCOL_VERSION
from tests.support.commands import run, run_python
from tests.support.daemon import BIN, Daemon, base_env

HEAVY = [
    "torch",
    "sentence_transformers",
    "chromadb",
    "tantivy",
    "anthropic",
    "watchdog",
    "pydantic",
    "typer",
    "numpy",
    "zmq",  # the client speaks ZMTP itself (ragcli/zmtp.py): pyzmq costs ≈ 24 ms to import
    "importlib.metadata",  # ≈ 24 ms: read by `rag --version` only
    "readline",  # line editing: `rag chat` only
]


def test_client_imports_stay_light(tmp_path: Path) -> None:
    # `main` itself: ragcli.main has no `__main__` block, so running the module as
    # __main__ (as this probe did) only imported it and never ran the command.
    probe = (
        "import sys\n"
        "from ragcli.main import main\n"
        "try:\n    main(['status'])\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "none.sock")}
    out = run_python(probe, env=env)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr


# What `rag mcp` must not have imported while it waits for its first request: the SDK
# (pydantic, its web-server packages) is imported only once `initialize` is answered.
MCP_SDK = ["mcp", "mcp_types", "pydantic", "anyio", "starlette", "uvicorn", "httpx"]


def test_rag_mcp_imports_nothing_heavy_before_its_first_request(tmp_path: Path) -> None:
    """At the moment `rag mcp` waits for the host's first line, nothing of HEAVY nor the
    SDK is loaded: not even `importlib.metadata`, read for the stored reply's key once
    an `initialize` has come (fixes42: it was read at start-up)."""
    probe = (
        "import sys\n"
        "from ragcli import mcp_handshake\n"
        "def first_line(fd, limit=0):\n"
        f"    print(sorted(m for m in {HEAVY + MCP_SDK!r} if m in sys.modules), flush=True)\n"
        "    raise SystemExit(0)\n"
        "mcp_handshake._read_line = first_line\n"
        "from ragcli.main import main\n"
        "main(['mcp'])\n"
    )
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "none.sock")}
    out = run_python(probe, env=env)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout + out.stderr


def test_every_command_says_when_the_daemon_is_not_running(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock")}
    for args in (
        ["status"],
        ["search", "x"],
        ["ask", "x"],
        ["stats"],
        ["ingest", "."],
        ["status", "--wait", "--timeout", "1"],  # retried until the timeout, then the same
    ):
        out = run([BIN / "rag", *args], env, timeout=10)
        assert out.returncode == ExitCode.NOT_RUNNING, args
        assert out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and "not running" in lines[0] and "ragd" in lines[0]


def test_stale_socket_file_is_reported_as_not_running(tmp_path: Path) -> None:
    import socket as pysocket

    path = tmp_path / "stale.sock"
    s = pysocket.socket(pysocket.AF_UNIX)
    s.bind(str(path))
    s.close()  # the file stays, nobody listens
    env = base_env(tmp_path) | {"RAG_SOCKET": str(path)}
    out = run([BIN / "rag", "status"], env, timeout=10)
    assert out.returncode == ExitCode.NOT_RUNNING
    assert "stale socket" in out.stderr


def raw_request(sock: zmq.Socket, *frames: bytes) -> dict:  # type: ignore[type-arg]
    sock.send_multipart(list(frames))
    assert sock.poll(10_000), "no reply"
    return json.loads(sock.recv())


def test_socket_permissions_and_malformed_frames(sample_daemon: Daemon) -> None:
    d = sample_daemon
    assert stat.S_IMODE(os.stat(d.socket.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(d.socket).st_mode) == 0o600
    ctx = zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.connect(f"ipc://{d.socket}")
    try:
        cases = {
            b"not json": "bad_request",
            b"[1, 2]": "bad_request",
            b"\xff\xfe": "bad_request",
            json.dumps({"v": 99, "id": "a", "op": "status"}).encode(): "version_mismatch",
            json.dumps({"v": PROTOCOL_VERSION, "id": "b", "op": "explode"}).encode(): "unknown_op",
            json.dumps(
                {"v": PROTOCOL_VERSION, "id": "c", "op": "search", "args": {"query": 5}}
            ).encode(): "bad_request",
            json.dumps(
                {
                    "v": PROTOCOL_VERSION,
                    "id": "d",
                    "op": "search",
                    "args": {"query": "x", "top_k": "ten"},
                }
            ).encode(): "bad_request",
            json.dumps({"v": PROTOCOL_VERSION, "id": "", "op": "status"}).encode(): "bad_request",
        }
        for frame, expected in cases.items():
            reply = raw_request(sock, frame)
            assert reply["ok"] is False and reply["error"]["type"] == expected, frame
            assert reply["error"]["message"]
        reply = raw_request(sock, b"{}", b"second part")
        assert reply["error"]["type"] == "bad_request"
        good = json.dumps(
            {"v": PROTOCOL_VERSION, "id": "ok", "op": "search", "args": {"query": "refund"}}
        ).encode()
        reply = raw_request(sock, good)
        assert reply["ok"] and reply["id"] == "ok" and reply["data"]["results"]
    finally:
        sock.close()
    d.assert_alive()


def test_search_json_shape(sample_daemon: Daemon) -> None:
    data = sample_daemon.rag_json("search", "late cancellation refund", "--top-k", "3")
    assert set(data) == {"query", "scope", "gate", "results", "index"}
    assert set(data["gate"]) == {
        *("passed", "support", "floor", "floor_origin", "floor_detail"),
        *("unseen", "asked", "reason", "rescue", "verdict", "probability", "signals"),
    }
    assert data["gate"]["verdict"] in ("pass", "unsure", "refuse")
    assert set(data["gate"]["signals"]) >= {"support", "cosine", "coverage", "unseen"}
    assert set(data["index"]) == {"files", "chunks", "pending"}
    assert len(data["results"]) == 3
    first = data["results"][0]
    assert {
        "rank",
        "source",
        "heading",
        "score",
        "fused",
        "vector_rank",
        "bm25_rank",
        "text",
    } <= set(first)
    assert [r["rank"] for r in data["results"]] == [1, 2, 3]
    fused = [r["fused"] for r in data["results"]]
    assert fused == sorted(fused, reverse=True)
    for r in data["results"]:
        assert not r["source"].startswith("/")
        assert r["vector_rank"] is None or r["vector_rank"] >= 1


def test_status_json_and_wait(sample_daemon: Daemon) -> None:
    data = sample_daemon.rag_json("status", "--wait", "--timeout", "60")
    for key in (
        "state",
        "roots",
        "files",
        "chunks",
        "pending",
        "embeddings",
        "errors",
        "model",
        "version",
        "uptime_s",
        "socket",
    ):
        assert key in data
    assert data["state"] == "idle" and data["pending"] == 0
    # --wait also waits for the gate floor learned for the index: a question asked next
    # is judged by the floor the README shows, not the default.
    assert data["floor"]["current"] and data["floor"]["origin"] == "learned"
    assert data["files"] == 7 and data["roots"][0]["name"] == "sample_corpus"
    assert set(data["embeddings"]) == {"computed", "reused"}


def test_stats_reads_the_metric_back(sample_daemon: Daemon) -> None:
    out = sample_daemon.rag("stats")
    assert out.returncode == 0
    assert "distance: cosine" in out.stdout
    assert "operations-manual.md" in out.stdout


def test_relevant_chunk_outranks_irrelevant_ones(sample_daemon: Daemon) -> None:
    results = sample_daemon.search("What happens if the wind is too strong to sail?")["results"]
    assert results[0]["source"] == "operations-manual.md"
    assert "Weather Limits" in results[0]["heading"]
    stem = sample_daemon.search("cancelling a vehicle booking", mode="bm25")["results"]
    assert any("cancel" in r["text"].lower() for r in stem)
