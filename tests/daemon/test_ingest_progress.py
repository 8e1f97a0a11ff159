"""`rag ingest` and `rag status` progress on a real daemon: every file counted once, the
work left measured in bytes.

The test-only hook `RAGD_TEST_SLOW_PARSE` makes the parse of `slow-*.md` hang, so the
writer sets that file aside while the small ones are indexed: the state under test is
reached by ordering, not by a stopwatch. Deleting the slow file then supersedes its work.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from tests.support.daemon import BIN, Daemon, wait_for

ENV = {"RAGD_TEST_SLOW_PARSE": "slow-*.md=3600"}  # far past parse_timeout_s: never parsed
SMALL = 6


def shelf(folder: Path) -> tuple[int, Path]:
    """Six one-paragraph notes and one long manual; returns (bytes of the notes, manual)."""
    folder.mkdir()
    for i in range(SMALL):
        (folder / f"note{i}.md").write_text(
            f"# Note {i}\n\nThe SHELFMARK{i} note says where box {i} is kept.\n"
        )
    manual = folder / "slow-manual.md"
    steps = "\n\n".join(
        f"Step {i} of the winding procedure for the tower clock." for i in range(400)
    )
    manual.write_text(f"# Clock manual\n\n{steps}\n")
    return sum((folder / f"note{i}.md").stat().st_size for i in range(SMALL)), manual


def test_ingest_counts_a_set_aside_file_once_and_its_bytes_as_the_work_left(
    tmp_path: Path,
) -> None:
    daemon = Daemon(tmp_path, [], env=ENV).start()
    try:
        daemon.wait_idle()
        small, manual = shelf(tmp_path / "shelf")
        big = manual.stat().st_size
        proc = subprocess.Popen(
            [str(BIN / "rag"), "ingest", str(tmp_path / "shelf")],
            env=daemon.env,
            stderr=subprocess.PIPE,
            text=True,
        )
        totals: set[int] = set()

        def progress() -> dict[str, object]:
            status = daemon.status()
            if status["state"] == "indexing":
                totals.add(status["progress"]["total"])
            return dict(status["progress"])

        def notes_done_manual_parsing() -> dict[str, object] | None:
            p = progress()
            aside = {item["source"] for item in p.get("in_progress") or []}  # type: ignore[attr-defined]
            return p if p["done"] == SMALL and "slow-manual.md" in aside else None

        p = wait_for(notes_done_manual_parsing, 120, "the notes indexed, the manual set aside")
        assert p["total"] == SMALL + 1  # the manual once, not once more for being set aside
        # What is left is the manual's bytes: the ETA is about it, not about 1 file of 7.
        assert (p["bytes_done"], p["bytes_total"]) == (small, small + big)
        assert p["eta_s"] is not None
        shown = daemon.rag("status").stdout
        assert re.search(
            rf"^progress\s+{SMALL}/{SMALL + 1} files, [\d.,]+ \w+ of [\d.,]+ \w+, ", shown, re.M
        )

        manual.unlink()  # supersedes the hung parse: the delete carries the file
        while proc.poll() is None:
            progress()
            time.sleep(0.05)  # a sampling interval, not a wait for a state
        assert proc.returncode == 0, proc.stderr.read()  # type: ignore[union-attr]
        final = progress()
        assert (final["done"], final["total"]) == (SMALL + 1, SMALL + 1)
        assert final["bytes_done"] == final["bytes_total"] == small  # the manual was no work
        assert max(totals) == SMALL + 1, totals
        last = proc.stderr.read().splitlines()[-1]  # type: ignore[union-attr]
        assert last.startswith(f"indexed shelf: {SMALL} files")
    finally:
        daemon.stop()
