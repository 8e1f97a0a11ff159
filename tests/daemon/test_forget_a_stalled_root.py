"""`rag forget` of a root whose mount stalled is answered; the daemon keeps serving.

The watcher looks at each root's folder once a second (`ingest/watcher.py`, a stat). On
a network mount whose server went away that stat never returns (`tests/support/hung_stat`:
the daemon's stat of a `hung-*` name hangs). Before: the check held the watcher's lock
while it waited, and `rag forget` of that root (what a user does about a dead mount) waits
for the same lock: it held a search worker for as long as the mount hung, and the client
got "ragd did not answer".
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.hung_stat import HungStat

CLIENT_WAIT_S = 60.0  # how long a call may take before the test calls it hung


def test_a_root_on_a_stalled_mount_can_be_forgotten(tmp_path: Path) -> None:
    notes, stalled = tmp_path / "notes", tmp_path / "hung-root"
    for root, token in ((notes, "anchortoken"), (stalled, "buoytoken")):
        root.mkdir()
        (root / "note.md").write_text(f"# Note\n\nThe {token} note.\n")
    hung = HungStat(tmp_path, "hung-*")
    hung.release()  # indexed first; the mount stalls after
    daemon = Daemon(tmp_path / "d", [notes, stalled], env=hung.env()).start()
    try:
        daemon.wait_searchable("buoytoken", "hung-root/note.md")
        daemon.wait_idle()
        hung.rearm()
        wait_for(hung.entered, 30, "the root check to reach the stalled root")

        reply = daemon.call("forget", timeout=CLIENT_WAIT_S, root="hung-root")
        assert reply["forgotten"] is True  # before: DaemonTimeout
        wait_for(lambda: not daemon.sources("buoytoken"), 60, "its documents to leave")
        assert [r["name"] for r in daemon.status()["roots"]] == ["notes"]
        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)
    finally:
        hung.release()
        assert daemon.stop() == 0
