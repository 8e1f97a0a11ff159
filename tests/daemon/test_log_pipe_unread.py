"""The daemon never waits on its log (fix23, item 1): with stderr a pipe nobody reads
(journald backlogged, a parent that never reads, a terminal paused with Ctrl-S), a
synchronous write blocked once the pipe was full. The writer thread stopped mid-burst
holding the log handler's lock, and every later log line — the server loop's own
"shutting down" on SIGTERM included — waited behind it: the daemon never exited.

Here the pipe is shrunk to one page so a few dozen skipped files fill it."""

from __future__ import annotations

import fcntl
import os
import signal
import termios
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest

from tests.support.daemon import Daemon, wait_for

FILES = 100  # each logs one "skipped … too large" warning: three pages of them
PIPE_BYTES = 4096


class UnreadStderr(Daemon):
    """A daemon whose stderr is a pipe the test does not read (stdout is discarded): forked
    like the others (`Daemon.launch`), the pipe in place of its log file."""

    stdout_null = True
    pipe: IO[bytes]  # the pipe's end the test holds and never reads

    def spawn(self) -> None:
        read, write = os.pipe()
        fcntl.fcntl(read, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        self.pipe = os.fdopen(read, "rb")
        with os.fdopen(write, "wb") as stderr:  # the daemon holds its own copy
            self.proc = self.launch(self.serve_argv(), stderr)


def unread_bytes(pipe: IO[bytes]) -> int:
    """Bytes waiting in the pipe (FIONREAD), without reading any."""
    held = bytearray(4)
    fcntl.ioctl(pipe, termios.FIONREAD, held)
    return int.from_bytes(held, "little")


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[UnreadStderr]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(FILES):
        # 2 KiB each, over a 1 KiB cap: skipped at once, without a parse or an embedding
        name = f"an-over-the-cap-file-with-a-long-name-{n:04d}.md"
        (docs / name).write_text("# T\n\n" + "w " * 1024)
    daemon = UnreadStderr(tmp_path, [docs], env={"RAG_MAX_FILE_MB": "0.001"})
    daemon.start()
    yield daemon
    daemon.stop()
    daemon.pipe.close()


def test_a_full_log_pipe_stops_neither_the_writer_nor_the_loop(daemon: UnreadStderr) -> None:
    pipe = daemon.pipe
    wait_for(lambda: unread_bytes(pipe) >= PIPE_BYTES // 2, 60, "the log pipe to fill")
    # Every file gets its verdict although most of their warnings cannot be written.
    status = daemon.wait_idle(timeout=60)
    too_large = [e for e in status["errors"] if e["reason"].startswith("too large")]
    assert len(too_large) == FILES
    assert unread_bytes(pipe) <= PIPE_BYTES  # nothing read it meanwhile
    assert daemon.call("stats")["log"] == {"dropped_lines": 0}  # queued, none lost
    # The loop logs as it shuts down: it exits cleanly, within the stop's wait.
    daemon.signal(signal.SIGTERM)
    assert daemon.wait_exit(timeout=30) == 0
