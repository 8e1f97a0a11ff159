"""A save inside a folder of thousands of files costs what changed, not the folder
(dirmod70). watchdog's inotify emitter follows each file's create, close-after-write,
delete and move with a "modified" event of the folder holding it; each became a sync of
that folder, which walked and stat'ed every file beside the one saved: found by
hostile70, ≈ 1.5 daemon CPU s a save in a folder of 20,000 files, 20 times a save beside
it. The scans are counted from the daemon's own debug lines (`scanned …: N entries`),
never timed."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.daemon import Daemon

BESIDE = 2000  # empty notes in the big folder: no text, so quick to index
SCANNED = re.compile(r"scanned (.*): (\d+) entries, \d+ queued")


def _scans(log: str) -> list[tuple[str, int]]:
    return [(m.group(1), int(m.group(2))) for m in SCANNED.finditer(log)]


def test_a_save_in_a_big_folder_looks_at_what_changed_not_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    many = root / "many"
    many.mkdir(parents=True)
    for i in range(BESIDE):
        (many / f"e{i:05d}.md").touch()
    (many / "gone.md").write_text("# Gone\n\nThe gone note holds plumgonetoken.\n")
    (root / "beside.md").write_text("# Beside\n\nThe beside note holds besidetoken.\n")
    d = Daemon(tmp_path, [root], env={"RAG_LOG_LEVEL": "DEBUG"}).start()
    try:
        d.wait_searchable("plumgonetoken", "many/gone.md")
        d.wait_idle()
        # The start-up walk is a scan of the whole root: the counter works.
        assert any(entries > BESIDE for _, entries in _scans(d.log())), "no start-up scan line"
        before = len(d.log())

        (many / "e01000.md").write_text("# Filled\n\nThe filled note holds fillertoken.\n")
        d.wait_searchable("fillertoken", "many/e01000.md")
        (many / "new.md").write_text("# New\n\nThe new note holds newcomertoken.\n")
        d.wait_searchable("newcomertoken", "many/new.md")
        (many / "new.md").rename(many / "renamed.md")
        d.wait_searchable("newcomertoken", "many/renamed.md")
        (many / "gone.md").unlink()
        (many / "sub").mkdir()
        (many / "sub" / "inner.md").write_text("# Inner\n\nThe inner note holds innertoken.\n")
        d.wait_searchable("innertoken", "many/sub/inner.md")
        d.wait_idle()

        # What changed is indexed and pruned ...
        assert d.sources("newcomertoken") == ["many/renamed.md"]
        assert d.sources("plumgonetoken") == []
        assert d.sources("besidetoken") == ["beside.md"]
        # ... and no save walked the 2,000 files beside it (before: a scan of `many`, of
        # every entry in it, after each of these changes). The new folder's own scan
        # (created, it is walked) holds what is in it.
        scans = _scans(d.log()[before:])
        assert all(entries < 10 for _, entries in scans), scans
        assert "many" not in {where for where, _ in scans}, scans
    finally:
        assert d.stop() == 0
