"""Over tcp:// (CURVE, through libzmq), `rag` learns the daemon's frame limit too.

Over ipc:// the client reads `max_message_bytes` from the daemon's ZMTP handshake and
refuses a request over it itself (fix29). libzmq shows a peer's handshake metadata only
on the frames it receives, so over tcp:// the client knew nothing before its first reply:
a `rag chat` line under the client's own 4,096 characters but over a daemon's smaller
`max_message_bytes` had its connection dropped unread, read as "ragd stopped before
answering", and ended the chat (exit 3). Now every reply's metadata is read, and a request
over 1 KiB sent before any reply is preceded by a ping that brings the limit.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import Daemon


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_chat_line_over_a_tcp_daemons_frame_limit_is_one_line_and_the_chat_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(SAMPLE_CORPUS / "fleet-and-routes.md", root)
    limit = 2048
    daemon = Daemon(tmp_path, [root], env={"RAG_MAX_MESSAGE_BYTES": str(limit)})
    address = f"tcp://127.0.0.1:{free_port()}"
    daemon.socket = address  # type: ignore[assignment]  # str() is all it needs
    daemon.env["RAG_SOCKET"] = address
    # The test's own client (readiness) reads the CURVE keys from the daemon user's config.
    monkeypatch.setenv("XDG_CONFIG_HOME", daemon.env["XDG_CONFIG_HOME"])
    daemon.start()
    try:
        daemon.wait_idle()
        question = " ".join(["which ferry routes are there?"] * 100)  # 2,999 characters
        assert len(question) <= 4096 and len(question.encode()) > limit
        # The over-limit line first: nothing has been received on the connection yet.
        out = daemon.rag("chat", input=f"{question}\nwhich ferry routes are there?\n/exit\n")
        assert out.returncode == 0, out.stderr
        (refusal,) = [line for line in out.stderr.splitlines() if line.startswith("rag: ")]
        assert "too long for this ragd" in refusal, refusal
        assert f"max_message_bytes = {limit}" in refusal, refusal
        assert "[fleet-and-routes.md" in out.stdout, out.stdout  # the next one was answered
    finally:
        assert daemon.stop() == 0, daemon.log_tail()
