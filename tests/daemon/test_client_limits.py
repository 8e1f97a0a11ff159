"""Clear refusals at the edges of the client and the address (issue 10, item 10).

- Bytes that are not UTF-8 in an argument (a Latin-1 terminal, an odd file name) are one
  line and exit 2, not a UnicodeEncodeError traceback; in a chat line, one line and the
  chat goes on.
- A request over the daemon's frame limit (2 MB of `--in` paths) is one line naming the
  limit, not "Broken pipe"; the daemon stays up.
- A question over 4,096 characters is refused by the client, in `rag chat` too (the chat
  goes on, and the line stays out of its history).
- A chat line within those 4,096 characters but over a daemon's smaller configured
  `max_message_bytes` is one line naming that limit; the chat goes on, the line stays
  out of its history; over tcp:// too, where the limit comes with the daemon's replies.
- An abstract-namespace address (``ipc://@name``: no file, so no permissions) is refused
  by both sides with one line, and `ragd serve` leaves nothing behind in its folder.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_CORPUS
from tests.support.daemon import BIN, Daemon, base_env
from tests.support.terminal import Terminal


def test_undecodable_arguments_are_one_clear_line(tmp_path: Path) -> None:
    env = base_env(tmp_path) | {"RAG_SOCKET": str(tmp_path / "absent.sock")}
    env_bytes = {k.encode(): v.encode() for k, v in env.items()}
    for argv in ([b"ask", b"caf\xe9 opening hours"], [b"search", b"caf\xe9", b"--in", b"/tmp"]):
        out = subprocess.run(
            [os.fsencode(BIN / "rag"), *argv], env=env_bytes, capture_output=True, timeout=60
        )
        err = out.stderr.decode()
        assert out.returncode == 2, err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert "not valid UTF-8" in err and "0xe9" in err
    # A path is a file's name in any bytes: passed on (here to no daemon: exit 3), not refused
    # (tests/daemon/test_undecodable_arguments.py follows one to a daemon).
    for argv in ([b"ingest", b"/tmp/caf\xe9"], [b"forget", b"caf\xe9"]):
        out = subprocess.run(
            [os.fsencode(BIN / "rag"), *argv], env=env_bytes, capture_output=True, timeout=60
        )
        err = out.stderr.decode()
        assert out.returncode == 3 and "not valid UTF-8" not in err, err


def test_a_chat_line_that_is_not_utf8_is_one_clear_line(sample_daemon: Daemon) -> None:
    out = subprocess.run(
        [BIN / "rag", "chat"],
        input=b"caf\xe9 hours?\n/exit\n",
        env=sample_daemon.env,
        capture_output=True,
        timeout=60,
    )
    err = out.stderr.decode()
    assert out.returncode == 0 and "Traceback" not in err, err
    assert "rag: the question is not valid UTF-8 text (byte 0xe9)" in err


# argv caps one argument at 128 KiB, and the client refuses a question over 4,096
# characters: twenty `--in` paths of 100 KB make a request of 2 MB, over the 1 MiB default
OVERSIZE_SCOPE = [arg for _ in range(20) for arg in ("--in", "f" * 100_000)]


def test_an_oversize_request_is_one_clear_line(sample_daemon: Daemon) -> None:
    out = sample_daemon.rag("ask", "ferry", *OVERSIZE_SCOPE)
    refusals = [line for line in out.stderr.splitlines() if line.startswith("rag: ")]
    assert len(refusals) == 1 and "Broken pipe" not in out.stderr, out.stderr
    assert "MB request" in refusals[0] and "max_message_bytes" in refusals[0]
    sample_daemon.assert_alive()
    assert sample_daemon.rag("status").returncode == 0


def test_the_chat_goes_on_after_an_oversize_question(sample_daemon: Daemon) -> None:
    """The daemon drops a connection whose frame is over its limit (it cannot reply), so
    the question after it met a broken pipe on the same connection: `ragd stopped before
    answering`, and the chat ended with exit 3. It now goes on a fresh connection (where
    this chat's scope makes the next question as big, and refused alike)."""
    out = sample_daemon.rag(
        "chat", *OVERSIZE_SCOPE, input="ferry routes?\nwhich ferry routes are there?\n/exit\n"
    )
    assert out.returncode == 0, out.stderr
    refusals = [line for line in out.stderr.splitlines() if line.startswith("rag: ")]
    assert len(refusals) == 2, out.stderr
    assert all("MB request" in line for line in refusals), out.stderr


def test_a_chat_line_over_the_question_limit_is_the_clients_own_refusal(
    sample_daemon: Daemon,
) -> None:
    """fix25: `rag ask` refuses a question over 4,096 characters itself, before sending;
    a `rag chat` line that long was sent, and the daemon's argument error came back."""
    question = " ".join(["which ferry routes are there?"] * 200)  # 5,999 characters
    asked = sample_daemon.rag("ask", question)
    assert asked.returncode == 2, asked.stderr
    (refusal,) = asked.stderr.splitlines()
    out = sample_daemon.rag("chat", input=f"{question}\nwhich ferry routes are there?\n/exit\n")
    assert out.returncode == 0, out.stderr
    assert [line for line in out.stderr.splitlines() if line.startswith("rag: ")] == [refusal]
    assert "[fleet-and-routes.md" in out.stdout, out.stdout  # the session went on


def test_a_chat_line_over_the_limit_stays_out_of_the_history(
    sample_daemon: Daemon, tmp_path: Path
) -> None:
    """On a terminal readline keeps every line typed; the refused one is taken out again."""
    state = tmp_path / "state"
    with Terminal(sample_daemon, env={"XDG_STATE_HOME": str(state)}) as term:
        term.expect("you> ")
        term.type("LONGLINE " * 500 + "\n")  # 4,500 characters
        term.expect("ragd reads at most 4096")
        term.expect("you> ")
        term.type("/frobnicate\n")
        term.expect("unknown command /frobnicate")
        term.expect("you> ")
        assert term.leave() == 0
    history = (state / "ragd" / "chat_history").read_text()
    assert history.splitlines() == ["/frobnicate", "/exit"], history


def test_a_chat_line_over_the_daemons_frame_limit_is_one_line_and_the_chat_goes_on(
    tmp_path: Path,
) -> None:
    """fix29: a line the client's 4,096 characters allow, sent to a daemon configured with
    a smaller `max_message_bytes`, was dropped with its connection (ZeroMQ cannot reply to
    a frame it refuses), and being under the client's "large request" size, the drop read
    as a daemon gone: `ragd stopped before answering`, and the chat ended with exit 3."""
    daemon = _small_frame_daemon(tmp_path).start()
    daemon.wait_idle()
    question = _over_limit_line_then_a_question(daemon)
    state = tmp_path / "state"
    with Terminal(daemon, env={"XDG_STATE_HOME": str(state)}) as term:
        term.expect("you> ")
        term.type(question + "\n")
        term.expect("too long for this ragd")
        term.expect("you> ")
        assert term.leave() == 0
    history = (state / "ragd" / "chat_history").read_text()
    assert history.splitlines() == ["/exit"], history
    assert daemon.stop() == 0, daemon.log_tail()


FRAME_LIMIT = 2048  # under a chat line the client's 4,096 characters allow


def _small_frame_daemon(tmp_path: Path) -> Daemon:
    root = tmp_path / "docs"
    root.mkdir()
    shutil.copy(SAMPLE_CORPUS / "fleet-and-routes.md", root)
    return Daemon(tmp_path, [root], env={"RAG_MAX_MESSAGE_BYTES": str(FRAME_LIMIT)})


def _over_limit_line_then_a_question(daemon: Daemon) -> str:
    """A chat whose first line is over the daemon's frame limit (nothing received on the
    connection yet) and whose second is answered; returns the over-limit line."""
    question = " ".join(["which ferry routes are there?"] * 100)  # 2,999 characters
    assert len(question) <= 4096 and len(question.encode()) > FRAME_LIMIT
    out = daemon.rag("chat", input=f"{question}\nwhich ferry routes are there?\n/exit\n")
    assert out.returncode == 0, out.stderr
    (refusal,) = [line for line in out.stderr.splitlines() if line.startswith("rag: ")]
    assert "too long for this ragd" in refusal, refusal
    assert f"max_message_bytes = {FRAME_LIMIT}" in refusal, refusal
    assert "[fleet-and-routes.md" in out.stdout, out.stdout  # the next question was answered
    return question


def test_a_chat_line_over_a_tcp_daemons_frame_limit_is_one_line_and_the_chat_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over tcp:// (CURVE, libzmq) the daemon's handshake metadata shows only on frames
    received, so the client knew no limit before its first reply: the same line had its
    connection dropped unread, read as "ragd stopped before answering", and ended the chat
    (exit 3). Each reply's metadata is read now, and a request over 1 KiB sent before any
    reply asks for it with a ping first."""
    daemon = _small_frame_daemon(tmp_path)
    address = f"tcp://127.0.0.1:{free_port()}"
    daemon.socket = address  # type: ignore[assignment]  # str() is all it needs
    daemon.env["RAG_SOCKET"] = address
    # The test's own client (readiness) reads the CURVE keys from the daemon user's config.
    monkeypatch.setenv("XDG_CONFIG_HOME", daemon.env["XDG_CONFIG_HOME"])
    daemon.start()
    try:
        daemon.wait_idle()
        _over_limit_line_then_a_question(daemon)
    finally:
        assert daemon.stop() == 0, daemon.log_tail()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_abstract_namespace_addresses_are_refused_without_litter(tmp_path: Path) -> None:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    env = base_env(tmp_path)
    served = subprocess.run(
        [BIN / "ragd", "serve", "--data-dir", tmp_path / "data", "--socket", "ipc://@ragd-t"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 2, served.stderr
    assert "abstract-namespace" in served.stderr and "Traceback" not in served.stderr
    assert list(cwd.iterdir()) == []  # no "@ragd-t.lock" left behind
    asked = subprocess.run(
        [BIN / "rag", "--socket", "ipc://@ragd-t", "status"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert asked.returncode == 2 and asked.stderr.count("\n") == 1
    assert "abstract-namespace" in asked.stderr
