"""`rag chat` keeps going when the daemon restarts between two of its lines, and says
that the restarted daemon does not remember the conversation.

The chat holds one connection for the whole conversation. A restart (`systemctl --user
restart ragd`, an upgrade) closes it while the chat waits for the user's next line; the
next line's send then met a broken pipe: "ragd stopped before answering … try again once
`rag status` answers", and the chat ended (exit 3), though the daemon was back.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path
from typing import IO

from tests.support.daemon import BIN, Daemon


def test_a_chat_goes_on_after_the_daemon_restarts_under_it(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "pumps.md").write_text("# Pumps\n\nThe quorbling pump runs at 42 bar.\n")
    daemon = Daemon(tmp_path, [root]).start()
    daemon.wait_idle()
    chat = subprocess.Popen(
        [str(BIN / "rag"), "chat"],
        env=daemon.env | {"PYTHONUNBUFFERED": "1"},  # each answer as it is printed
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert chat.stdin is not None and chat.stdout is not None
    try:
        chat.stdin.write(b"What pressure does the quorbling pump run at?\n")
        chat.stdin.flush()
        first = _answer(chat.stdout)
        assert "42 bar" in first, first

        assert daemon.stop() == 0, daemon.log_tail()
        daemon.start()  # the same socket, a new process: the chat's connection is closed
        daemon.wait_idle()

        # The restarted daemon does not know the chat: its first question says so (once);
        # after /reset the chat starts afresh and nothing is said.
        again = b"What pressure does the quorbling pump run at?\n"
        chat.stdin.write(again + b"/reset\n" + again + b"/exit\n")
        chat.stdin.close()
        rest = chat.stdout.read().decode()
        code = chat.wait(120)
        stderr = chat.stderr.read().decode() if chat.stderr else ""
    finally:
        if chat.poll() is None:
            chat.kill()
            chat.wait(10)
    assert code == 0, stderr
    assert "(conversation forgotten)" in stderr, stderr
    assert "stopped before answering" not in stderr, stderr
    assert rest.count("42 bar") >= 2, rest
    assert (rest + stderr).count("earlier questions are not remembered") == 1, rest + stderr
    assert daemon.stop() == 0, daemon.log_tail()


def _answer(out: IO[bytes], timeout_s: float = 120.0) -> str:
    """The chat's output up to the first answer's confidence line."""
    seen = b""
    deadline = time.monotonic() + timeout_s
    while b"Confidence:" not in seen:
        left = deadline - time.monotonic()
        assert left > 0 and select.select([out], [], [], left)[0], f"no answer: {seen!r}"
        chunk = os.read(out.fileno(), 65536)
        assert chunk, f"the chat ended before answering: {seen!r}"
        seen += chunk
    return seen.decode()
