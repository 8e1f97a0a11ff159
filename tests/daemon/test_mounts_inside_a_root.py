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
from tests.support.mounts import (
    bind_mount,
    both_notes_answer,
    mount_again_with_a_new_note,
    mount_tmpfs,
    mounted_drive_of_two_notes,
    unmount,
)


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


def test_a_root_whose_file_system_is_unmounted_keeps_its_documents(tmp_path: Path) -> None:
    """A root that is a mount point (a drive, a share in fstab), unmounted while the
    daemon runs: the folder left at its path is the empty one the mount hid. Before, it
    was taken for a new folder: every document was pruned, and mounted again, indexed
    anew (embedded again once the cache had been pruned). Now it is a root that is gone
    for the while: its documents stay and answer, and the next mount is a sync that
    reads only what changed meanwhile."""
    drive, root = mounted_drive_of_two_notes(tmp_path)
    mounted = True
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        assert d.wait_idle()["files"] == 2
        # The log's writer thread may still hold the first index's lines (core/log_queue.py):
        # taken before them, `after` would count them as read again (a CI run, 6 Dec 2026).
        after = max(d.wait_log("indexed a.md"), d.wait_log("indexed b.md"))
        unmount(root)
        mounted = False
        wait_for(
            lambda: "its file system was unmounted" in d.log()[after:] or d.status()["files"] < 2,
            30,
            "the unmount to be seen",
        )
        both_notes_answer(d)  # before: files 0, every document pruned
        assert d.status()["roots"][0]["away"]["why"] == "unmounted"
        mounted = True  # (the clean-up's unmount is harmless if the mount failed)
        mount_again_with_a_new_note(d, drive, root, after)
    finally:
        d.stop()
        if mounted:
            unmount(root, lazy=True)


def test_a_folder_shown_again_by_an_unmount_is_synced(tmp_path: Path) -> None:
    """A file system mounted over a root that had files of its own, then unmounted: the
    root's own files are back, and they are its contents (only an empty folder left by
    an unmount is a drive away)."""
    drive, root = tmp_path / "drive", tmp_path / "notes"
    drive.mkdir()
    root.mkdir()
    (root / "own.md").write_text("# Own\n\nThe okapi is the folder's own.\n")
    (drive / "d.md").write_text("# D\n\nThe dingo lives on the drive.\n")
    d = Daemon(tmp_path / "t", [root]).start()
    mounted = False
    try:
        d.wait_idle()
        bind_mount(drive, root)
        mounted = True
        d.wait_searchable("dingo", "d.md")
        wait_for(lambda: d.sources("okapi") == [], 30, "the hidden note to leave")
        unmount(root)
        mounted = False
        d.wait_searchable("okapi", "own.md")
        wait_for(lambda: d.sources("dingo") == [], 30, "the drive's note to leave")
        assert d.wait_idle()["files"] == 1
    finally:
        d.stop()
        if mounted:
            unmount(root, lazy=True)
