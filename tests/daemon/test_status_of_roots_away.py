"""`rag status` says which roots are away, and since when.

A root whose folder is deleted (or moved, or under a folder that was unmounted) keeps its
documents until it is back; before, only the log said so, and `rag status` showed the
root's counts and `errors none`, as if all were well. Now its roots row carries `away`
(`--json`) and a line of its own."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def _away(d: Daemon) -> dict[str, object] | None:
    (only,) = d.status()["roots"]
    return only.get("away")


def test_a_root_whose_folder_is_gone_is_said_in_status(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe axolotl is indexed.\n")
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        assert d.wait_idle()["files"] == 1 and _away(d) is None
        before = time.time()
        shutil.move(root, tmp_path / "elsewhere")
        wait_for(lambda: _away(d) is not None, 30, "the root to be seen away")
        away = _away(d)
        assert away is not None and away["why"] == "gone"
        assert isinstance(away["since"], int) and away["since"] >= int(before)
        shown = d.rag("status").stdout
        assert "  notes: folder gone since " in shown, shown
        assert "its documents are kept until it returns" in shown
        assert d.status()["roots"][0]["files"] == 1  # kept, as the line says
        shutil.move(tmp_path / "elsewhere", root)
        wait_for(lambda: _away(d) is None, 30, "the root to be back")
        assert "notes: folder gone" not in d.rag("status").stdout
    finally:
        d.stop()
