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
from tests.support.slow_parse import slow_parse_env

# The hook is loaded through PYTHONPATH (slow_parse_env): the rule alone loads nothing.
ENV = slow_parse_env("slow-*.md", 3600)  # far past parse_timeout_s: never parsed
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


def test_a_forgotten_root_leaves_the_progress_of_the_ingest_after_it(tmp_path: Path) -> None:
    """attack24: `rag forget root2; rag ingest root2 --no-wait; rag forget root2; rag
    ingest root2` showed `10/143 files · 4.2 MB of 8.2 MB`: while another root kept the
    burst going, every forgotten ingest's files and bytes stayed in it. A slow file in
    `kept` holds that burst open here; one in `root2` is set aside when it is forgotten.

    The two slow parses hang for the whole test and the daemon has two parse workers, so
    the other files are parsed only if the walk lists them first: ext4 here did, a tmpfs
    (newest first) did not, and the test waited out its 120 s (testtime73). The walk now
    lists the slow files last (`slow_parse_env`'s `listed_last`) on any file system."""
    kept, root2 = tmp_path / "kept", tmp_path / "root2"
    kept.mkdir()
    (kept / "note.md").write_text("# Kept\n\nThe KEPTMARK note stays watched.\n")
    (kept / "slow-kept.md").write_text("# Held\n\nIts parse hangs for the whole test.\n")
    small, manual = shelf(root2)
    kept_bytes = sum(f.stat().st_size for f in kept.iterdir())
    # kept's two files, one done, the other set aside: what is left once root2 is forgotten
    kept_only = {"done": 1, "total": 2, "bytes_done": (kept / "note.md").stat().st_size}
    kept_only["bytes_total"] = kept_bytes
    slow = slow_parse_env("slow-*.md", 3600, listed_last=True)
    daemon = Daemon(tmp_path, [kept, root2], env={"RAG_PARSE_TIMEOUT_S": "3600", **slow}).start()

    def counts() -> dict[str, object]:
        p = daemon.status()["progress"]
        return {key: p[key] for key in ("done", "total", "bytes_done", "bytes_total")}

    def both_slow_files_aside() -> dict[str, object] | None:
        p = daemon.status()["progress"]
        aside = {item["source"] for item in p.get("in_progress") or []}
        wanted = {"kept/slow-kept.md", "root2/slow-manual.md"}
        return counts() if wanted <= aside and p["done"] == p["total"] - 2 else None

    try:
        wait_for(both_slow_files_aside, 120, "both roots read, their slow files set aside")
        forgotten = 0
        for _ in range(2):
            assert daemon.rag("forget", "root2").returncode == 0
            assert counts() == kept_only  # root2's files and bytes left at the forget
            forgotten = daemon.wait_log("forgot root root2", after=forgotten)
            assert daemon.rag("ingest", str(root2), "--no-wait").returncode == 0
            now = wait_for(both_slow_files_aside, 120, "root2 read again, its manual aside")
            assert now == {
                "done": 1 + SMALL,
                "total": 2 + SMALL + 1,
                "bytes_done": kept_only["bytes_done"] + small,
                "bytes_total": kept_bytes + small + manual.stat().st_size,
            }
    finally:
        daemon.stop()


def test_an_ingest_sent_while_the_daemon_starts_waits_for_it_and_adds_the_folder(
    tmp_path: Path,
) -> None:
    """newuser43: `rag ingest FOLDER` right after `ragd serve` (the README's service recipe
    runs it right after `systemctl --user enable --now ragd`) exited 3, "ragd is starting
    (loading the embedding model)", and the folder was not added. It now says so once,
    waits for the start (within its --timeout), and goes on as usual."""
    daemon = Daemon(tmp_path, []).start(wait=False)
    try:
        first = wait_for(lambda: daemon.answering(), 60, "the socket to answer")
        assert first["state"] == "starting"
        _, manual = shelf(tmp_path / "shelf")
        manual.unlink()  # (no hook here: it would parse)
        added = daemon.rag("ingest", str(tmp_path / "shelf"))
        assert added.returncode == 0, added.stderr
        said = added.stderr.splitlines()
        assert said[0].startswith("rag: ragd is starting (") and said[0].endswith("waiting for it")
        assert "watching new root shelf" in added.stderr
        assert f"indexed shelf: {SMALL} files" in added.stderr
        assert daemon.search("SHELFMARK3")["results"][0]["source"] == "note3.md"  # (one root)
    finally:
        daemon.stop()
