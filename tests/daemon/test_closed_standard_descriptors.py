"""`ragd serve` started with its standard descriptors closed (attack77).

`ragd serve … <&- >&- 2>&-` (a cron line, a shell's `&>-`, a supervisor that closes what
it does not collect): the next files the daemon opened took numbers 1 and 2, so its
socket's lock file was its standard output and its data dir's `ragd.lock` its standard
error, where a library's warning, a child's inherited output or the forced exit's line
would have been written. Now descriptors 0–2 are opened on /dev/null before anything else
(`ragproto.standard_streams`): the daemon serves, and no file of its own sits there.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import IO

from ragd.harness.private_daemon import Process
from tests.support.daemon import Daemon


class ClosedStreamsDaemon(Daemon):
    """Executed (never forked from the fork server) with descriptors 0, 1 and 2 closed."""

    def launch(self, argv: list[str], log: IO[bytes]) -> Process:
        def close_standard() -> None:
            for fd in (0, 1, 2):
                os.close(fd)

        return subprocess.Popen(argv, env=self.env, cwd=self.cwd, preexec_fn=close_standard)


def test_a_daemon_started_with_closed_standard_descriptors_keeps_its_files_off_them(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Gribbles\n\nThe gribble is kept in the blue shed.\n")
    daemon = ClosedStreamsDaemon(tmp_path, [notes]).start()
    try:
        daemon.wait_idle()
        assert daemon.proc is not None
        held = {fd: os.readlink(f"/proc/{daemon.proc.pid}/fd/{fd}") for fd in (0, 1, 2)}
        assert held == {0: os.devnull, 1: os.devnull, 2: os.devnull}, held
        assert [hit["source"] for hit in daemon.search("gribble shed")["results"]] == ["a.md"]
    finally:
        daemon.stop()
