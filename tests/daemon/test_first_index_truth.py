"""What a new user sees during the first index is true: the "ready" line says indexing is
under way, `rag ask` counts every pending file, and `rag status` says when the gate floor is
not yet learned for the index (queued files told from files being parsed:
test_status_tells_files.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ragcli import render
from tests.support.daemon import Daemon, wait_for

FILES = 120  # enough that the writer is still busy when the question arrives


def backlog(root: Path) -> None:
    root.mkdir()
    for i in range(FILES):
        (root / f"berth-{i:03d}.md").write_text(
            f"# Berth {i}\n\nBerth {i} takes vessels up to {20 + i % 40} metres long.\n\n"
            f"## Mooring\n\nMooring at berth {i} is booked through the harbour office.\n"
        )


def ready_line(daemon: Daemon) -> str:
    daemon.wait_log("ragd: ready:")  # logged by the loop just after it turns ready
    return next(line for line in daemon.log().splitlines() if "ragd: ready:" in line)


def test_the_first_index_is_described_as_it_is(tmp_path: Path) -> None:
    root = tmp_path / "backlog"
    backlog(root)
    daemon = Daemon(tmp_path, [root]).start()
    try:
        ready = ready_line(daemon)
        assert "first index under way" in ready and "try: rag ask" not in ready
        # Right after READY nothing is measured: the status says the floor is the default.
        status = daemon.status()
        assert status["floor"]["origin"] == "default" and status["floor"]["current"] is False
        shown = daemon.rag("status").stdout
        assert "gate floor " in shown and "not learned yet for this index" in shown

        out = daemon.rag("ask", "--json", "How long may a vessel at berth 7 be?")
        indexed_after = daemon.status()["files"]
        assert out.returncode == 0, out.stderr
        pending = json.loads(out.stdout)["pending"]
        # Every file not indexed when the answer came was counted (not "1 file pending"
        # for the folder still to be scanned).
        assert pending >= FILES - indexed_after, (pending, indexed_after)
        assert pending > 0, "indexing finished before the question; backlog too small"
        assert render.pending_note(pending) in out.stderr.splitlines()  # the note, exactly

        daemon.wait_idle()
        floor = wait_for(
            lambda: (f := daemon.status()["floor"])["current"] and f, 120, "the floor learned"
        )
        assert floor["origin"] == "learned"
        assert "gate floor " not in daemon.rag("status").stdout
    finally:
        daemon.stop()
    restarted = daemon.start()
    try:
        ready = ready_line(restarted)
        assert f"{FILES} files indexed" in ready and "try: rag ask" in ready
        restarted.wait_idle()
        # Nothing changed while it was down: the stored floor is current, not re-learned.
        assert restarted.status()["floor"] == floor
    finally:
        restarted.stop()
