"""A daemon started while a root's drive is not mounted (a USB disk, an fstab share that
mounts late; a bind mount in these tests, whose folder is on the same disk, so the same
`st_dev`: only the mount table tells).

Before, the start-up scan found the empty folder the mount covers and pruned every
document (`files 0`); when the drive came, everything was indexed again. Now a root that
was a mount point when indexed, and is an empty folder with nothing mounted on it, keeps
its documents, and its drive is picked up when mounted. A folder the user emptied while
its drive stays mounted is pruned as before: stale documents are never kept for it.
Mounting needs root; elsewhere the tests are skipped, saying so.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon
from tests.support.mounts import (
    both_notes_answer,
    mount_again_with_a_new_note,
    mounted_drive_of_two_notes,
    unmount,
)


def test_a_root_whose_drive_is_away_at_start_keeps_its_documents(tmp_path: Path) -> None:
    drive, root = mounted_drive_of_two_notes(tmp_path)
    mounted = True
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        assert d.wait_idle()["files"] == 2
        d.stop()
        unmount(root)
        mounted = False
        d.start()
        both_notes_answer(d)  # before: files 0, every document pruned
        assert "root notes: nothing is mounted on its folder" in d.log()
        (away,) = (r["away"] for r in d.status()["roots"])
        assert away is not None and away["why"] == "not mounted"  # `rag status` says it
        assert "  notes: its folder is empty with nothing mounted" in d.rag("status").stdout
        mounted = True  # the running daemon's mount-table check sees the mount
        mount_again_with_a_new_note(d, drive, root, len(d.log()))
        assert d.status()["roots"][0]["away"] is None
    finally:
        d.stop()
        if mounted:
            unmount(root, lazy=True)


def test_a_mounted_folder_the_user_emptied_is_pruned_at_start(tmp_path: Path) -> None:
    """The same empty folder at start, but the drive is mounted: the user emptied it."""
    drive, root = mounted_drive_of_two_notes(tmp_path)
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        assert d.wait_idle()["files"] == 2
        d.stop()
        for note in drive.iterdir():
            note.unlink()
        d.start()
        assert d.wait_idle()["files"] == 0 and d.sources("axolotl") == []
        assert "nothing is mounted on its folder" not in d.log()
    finally:
        d.stop()
        unmount(root, lazy=True)
