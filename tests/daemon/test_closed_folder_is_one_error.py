"""A folder closed (`chmod 000`) under a live daemon is one error, not one per file.

The daemon runs without root's CAP_DAC_* (`UnprivilegedDaemon`), so the kernel really
refuses it. The folder's scan cannot list it, and took every indexed file under it for
vanished: each was synced, its stat refused, and recorded. Before, closing a folder of
three notes gave `rag status` four errors and the log four warnings, the folder's and
`cannot stat (Permission denied)` for each note (a folder of 1,000 notes, 1,001; and
the same at a start with the folder closed). Its notes stay indexed, as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.daemon.test_hostile_files import (
    HONEST_PERMISSIONS,
    PERMISSION_SKIP_REASON,
    UnprivilegedDaemon,
)
from tests.support.daemon import wait_for

pytestmark = pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)

CLOSED = {"source": "locked", "reason": "cannot read folder (Permission denied)"}


def test_a_folder_closed_under_a_live_daemon_is_one_error(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    locked = root / "locked"
    (locked / "deeper").mkdir(parents=True)
    (root / "open.md").write_text("# Open\n\nThe axolotl is in the open.\n")
    for n, word in enumerate(["heron", "ibis", "jacana"]):
        where = locked / "deeper" if n == 2 else locked
        (where / f"n{n}.md").write_text(f"# N{n}\n\nThe {word} is in the closed folder.\n")
    d = UnprivilegedDaemon(tmp_path / "t", [root]).start()
    try:
        assert d.wait_idle()["files"] == 4
        locked.chmod(0)
        wait_for(
            lambda: any(CLOSED.items() <= e.items() for e in d.status()["errors"]),
            30,
            "rag status to say the folder cannot be read",
        )
        status = d.wait_idle()
        assert [(e["source"], e["reason"]) for e in status["errors"]] == [tuple(CLOSED.values())]
        assert status["files"] == 4 and d.sources("jacana") == ["locked/deeper/n2.md"]
        assert "cannot stat" not in d.log()
        locked.chmod(0o755)  # opened: read again by the folder's event, the error gone
        wait_for(lambda: not d.status()["errors"], 30, "the folder's error to clear")
        (locked / "n0.md").write_text("# N0\n\nThe heron now meets a kiwi.\n")
        d.wait_searchable("kiwi", "locked/n0.md")
    finally:
        locked.chmod(0o755)
        d.stop()
