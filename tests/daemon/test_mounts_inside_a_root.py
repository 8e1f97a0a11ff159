"""A file system mounted on (or unmounted from) a folder inside a watched root.

inotify watches inodes: the watch on `notes/usb` stays on the folder the mount hides, so
nothing written on the mounted file system is reported, and an unmount makes its files
vanish without a single event. Before, a note written on a tmpfs mounted at `notes/usb`
was never indexed while the daemon ran, the hidden folder's note went on answering, and
after the unmount the mount's notes answered although no longer on disk. Mounting needs
root; elsewhere the test is skipped, saying so.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.mounts import mount_tmpfs, unmount


def test_a_mount_inside_a_root_is_watched_and_its_unmount_prunes(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    usb = root / "usb"
    usb.mkdir(parents=True)
    (root / "keep.md").write_text("# Keep\n\nThe axolotl stays on the main disk.\n")
    (usb / "under.md").write_text("# Under\n\nThe heron ladder is under the mount.\n")
    d = Daemon(tmp_path / "t", [root]).start()
    mounted = False
    try:
        d.wait_idle()
        assert d.sources("heron") == ["usb/under.md"]
        mount_tmpfs(usb, "4m")
        mounted = True
        (usb / "g.md").write_text("# Gryphon\n\nThe gryphon lever is oiled.\n")
        wait_for(lambda: d.sources("gryphon") == ["usb/g.md"], 30, "the note on the mount")
        # What the mount hides is no longer on disk at its path: pruned.
        assert d.wait_idle()["files"] == 2 and d.sources("heron") == []
        # Later saves on the mounted file system come by their events.
        with (usb / "g.md").open("a") as note:
            note.write("\nThe dugong checks it.\n")
        d.wait_searchable("dugong", "usb/g.md")
        unmount(usb)
        mounted = False
        wait_for(lambda: d.sources("gryphon") == [], 30, "the unmounted note to leave")
        wait_for(lambda: d.sources("heron") == ["usb/under.md"], 30, "the folder shown again")
        assert d.wait_idle()["files"] == 2 and d.sources("axolotl") == ["keep.md"]
    finally:
        d.stop()
        if mounted:
            unmount(usb, lazy=True)
