"""`rag chat` on a pseudo-terminal, so that readline (line editing, history) is on."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time

from tests.support.daemon import BIN, Daemon

TYPE_PIECE = 256  # characters typed between two reads of what the terminal shows


class Terminal:
    """`rag chat` with stdin, stdout and stderr on a pseudo-terminal (so readline is on)."""

    def __init__(self, daemon: Daemon, env: dict[str, str] | None = None) -> None:
        import pty

        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [str(BIN / "rag"), "chat"],
            env=daemon.env | {"TERM": "dumb"} | (env or {}),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=daemon.tmp,
            # Started with SIGINT ignored, as anything run in the background by a script
            # is (CI's `make test` was): chat must still stop an answer on Ctrl-C.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
        os.close(slave)
        self.screen = ""

    def expect(self, text: str, timeout: float = 30.0) -> None:
        """Wait until `text` appears after what earlier expects consumed."""
        deadline = time.monotonic() + timeout
        while text not in self.screen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the terminal shows:\n{self.screen}"
            if select.select([self.master], [], [], left)[0]:
                self.screen += os.read(self.master, 4096).decode(errors="replace")
        self.screen = self.screen[self.screen.index(text) + len(text) :]

    def type(self, keys: str) -> None:
        """Type `keys`, a piece at a time, reading the echo meanwhile: a long line typed
        at once fills the terminal's buffers both ways, and `rag chat` and the test would
        each wait for the other to read."""
        for start in range(0, len(keys), TYPE_PIECE):
            os.write(self.master, keys[start : start + TYPE_PIECE].encode())
            while select.select([self.master], [], [], 0)[0]:
                self.screen += os.read(self.master, 4096).decode(errors="replace")

    def leave(self) -> int:
        """Type /exit; the chat's exit status."""
        self.type("/exit\n")
        code = self.proc.wait(30)
        os.close(self.master)
        return code

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *_: object) -> None:
        if self.proc.poll() is None:  # a test that failed half-way
            self.proc.kill()
            self.proc.wait(30)
