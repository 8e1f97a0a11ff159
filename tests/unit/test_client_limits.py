"""What `rag` refuses itself, before it looks for a daemon, and what `rag status` says
while the daemon is still starting (client only: no daemon runs here)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ragcli.render import status
from ragproto.protocol import MAX_QUESTION_CHARS
from tests.support.commands import run_python

CLIENT = "import sys; from ragcli.main import main; sys.exit(main())"


def rag(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"RAG_SOCKET": str(tmp_path / "nobody-listens.sock")}
    return run_python(CLIENT, *argv, env=env, timeout=60)


def test_a_question_too_long_to_read_is_refused_with_the_limit_and_exit_2(tmp_path: Path) -> None:
    long_words = ["banana"] * 2000  # 13,999 characters, as pasted
    for command, what in (("ask", "question"), ("search", "query")):
        done = rag(tmp_path, command, "--json", *long_words)
        assert done.returncode == 2, done.stderr
        assert f"the {what} is 13999 characters" in done.stderr
        assert str(MAX_QUESTION_CHARS) in done.stderr
        assert done.stderr.count("\n") == 1  # one line, no traceback
    for command, what in (("ask", "question"), ("search", "query")):
        done = rag(tmp_path, command, " ")  # was exit 5 from the daemon, the long one exit 2
        assert done.returncode == 2 and f"the {what} is empty" in done.stderr, done.stderr
    # At the limit the client lets it through: it then looks for the daemon (exit 3).
    at_limit = "a" * MAX_QUESTION_CHARS
    assert rag(tmp_path, "ask", at_limit).returncode == 3


def test_status_while_starting_says_the_roots_are_not_known_yet() -> None:
    starting = {
        "state": "starting",
        "roots": [],
        "files": 0,
        "chunks": 0,
        "pending": 0,
        "embeddings": {"computed": 0, "reused": 0},
        "model": "m",
        "version": "0",
        "uptime_s": 3.0,
        "socket": "ipc:///x",
        "errors": [],
    }
    text = status(starting)
    assert "none (add one with" not in text  # it is not told to add the root it serves
    assert "not known until ragd is ready" in text
    assert "files      —" in text
    idle = status(starting | {"state": "idle"})
    assert "none (add one with `rag ingest FOLDER`)" in idle
    assert "files      0" in idle
