"""A watched root made unreadable (`chmod 000`) and readable again, under a live daemon.

The daemon runs without root's CAP_DAC_* (`UnprivilegedDaemon`), so the kernel really
refuses it. A chmod of the root folder is no change to a path inside it, so the watcher
dropped its event. Before, closing the root was said nowhere (`rag status`: `errors
none`), and opening it again was not noticed either: a note saved while it was closed
was recorded as `cannot stat (Permission denied)` and stayed unindexed, with that
error, until the daemon restarted.
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

CLOSED = ("notes", "cannot read folder (Permission denied)")


def test_a_root_closed_is_said_and_opened_again_is_synced(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "keep.md").write_text("# Keep\n\nThe axolotl stays indexed.\n")
    d = UnprivilegedDaemon(tmp_path / "t", [root]).start()
    try:
        d.wait_idle()

        def errors() -> list[tuple[str, str]]:
            return [(e["source"], e["reason"]) for e in d.status()["errors"]]

        root.chmod(0)
        wait_for(lambda: CLOSED in errors(), 30, "rag status to say the root cannot be read")
        assert errors() == [CLOSED]  # one line
        assert d.sources("axolotl") == ["keep.md"]  # kept, as for a root that is gone
        # Saved while closed (the test is root): its event comes, its stat is refused.
        (root / "new.md").write_text("# New\n\nThe dugong was saved while it was closed.\n")
        wait_for(lambda: len(errors()) == 2, 30, "the refused stat of the note saved then")
        root.chmod(0o755)
        d.wait_searchable("dugong", "new.md")
        wait_for(lambda: not errors(), 30, "every error to clear")
        assert d.wait_idle()["files"] == 2
    finally:
        root.chmod(0o755)
        d.stop()
