"""What a test's daemon start costs: `ragd serve` forked as the tests fork it
(tests/support/fork_server.py), on a one-file folder and on an empty one, interleaved.

    .venv/bin/python bench/forked_start.py [ROUNDS]

For each start, the CPU seconds of the daemon's process tree (the daemon, its door, store
worker and parse worker, and what they reaped: tests/support/cpu_per_file.tree_cpu_seconds)
when it is ready, idle and (one file) once its gate floor is learned, and its whole life
with the stop (the fork server's reaped-children time across the start). The server's own
import is paid once, before the first (warm-up) start, and not counted. docs/performance.md
("Start → READY", session 52) holds the figures.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.cpu_per_file import tree_cpu_seconds
from tests.support.daemon import Daemon, close_fork_server, fork_server

from ragd.core.proc_stat import CLOCK_TICKS, proc_stat


def reaped(pid: int) -> float:
    stat = proc_stat(pid)
    return stat.children_ticks / CLOCK_TICKS if stat else 0.0


def start(server_pid: int, one_file: bool) -> dict[str, float]:
    tmp = Path(tempfile.mkdtemp(prefix="forked-start-"))
    try:
        folder = tmp / "docs"
        folder.mkdir()
        if one_file:
            (folder / "a.md").write_text("# Widgets\n\nThe frobnicator turns widgets blue.\n")
        before = reaped(server_pid)
        daemon = Daemon(tmp, [folder]).start()
        assert daemon.proc is not None
        pid = daemon.proc.pid
        figures = {"ready": tree_cpu_seconds(pid)}
        daemon.wait_idle()
        figures["idle"] = tree_cpu_seconds(pid)
        if one_file:
            daemon.wait_floor_settled()
            figures["floor"] = tree_cpu_seconds(pid)
        daemon.stop()
        figures["life"] = reaped(server_pid) - before
        return figures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    server = fork_server()
    assert server is not None, "RAGD_TEST_FORK=0: nothing is forked"
    start(server.proc.pid, one_file=False)  # warm-up: the server's import is paid here
    for _ in range(rounds):
        for one_file in (True, False):
            figures = start(server.proc.pid, one_file)
            shown = " ".join(f"{k} {v:.2f}" for k, v in figures.items())
            kind = "one file" if one_file else "empty   "
            print(f"{kind}  CPU s: {shown}  (load {os.getloadavg()[0]:.1f})", flush=True)
    close_fork_server()


if __name__ == "__main__":
    main()
