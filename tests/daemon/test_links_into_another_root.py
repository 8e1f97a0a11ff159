"""With `follow_symlinks = true`, a link from one root into another root is that root's.

A link `work/n -> ../notes`, notes a watched root: every file of notes was indexed a
second time under `work/n/`, and an edit in notes reached only notes's copy (inotify
reports it under notes; no watch follows the link), so `work/n/…` answered with the old
text until the next restart. A link to a single file of notes did the same.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def test_a_followed_link_into_another_root_is_left_to_that_root(tmp_path: Path) -> None:
    notes, work = tmp_path / "notes", tmp_path / "work"
    notes.mkdir()
    work.mkdir()
    (notes / "n.md").write_text("# Notes\n\nThe ferry leaves from the quaywharfone pier.\n")
    (work / "w.md").write_text("# Work\n\nThe workshop opens at nine.\n")
    (work / "n").symlink_to("../notes")
    (work / "one.md").symlink_to("../notes/n.md")
    d = Daemon(tmp_path / "t", [notes, work], env={"RAG_FOLLOW_SYMLINKS": "true"}).start()
    try:
        d.wait_idle()
        assert d.sources("quaywharfone") == ["notes/n.md"]
        with (notes / "n.md").open("a") as note:
            note.write("\nThe late ferry leaves from the quaywharftwo pier.\n")
        wait_for(lambda: d.sources("quaywharftwo") == ["notes/n.md"], 30, "the edit")
        (work / "later").symlink_to("../notes")  # made while the daemon runs
        (work / "marker.md").write_text("# Marker\n\nThe marker names a ptarmigan.\n")
        wait_for(lambda: d.sources("ptarmigan") == ["work/marker.md"], 30, "the marker")
        assert d.wait_idle()["files"] == 3, d.status()
        assert d.sources("quaywharfone") == ["notes/n.md"]
    finally:
        d.stop()


def test_a_followed_link_to_a_folder_made_under_a_live_daemon_is_walked(tmp_path: Path) -> None:
    """Before, the link was planned as a file ("not a regular file") and the folder's
    files were indexed only by the next start's walk."""
    work, shelf = tmp_path / "work", tmp_path / "shelf"
    work.mkdir()
    (shelf / "deep").mkdir(parents=True)
    (work / "w.md").write_text("# Work\n\nThe workshop opens at nine.\n")
    (shelf / "deep" / "s.md").write_text("# Shelf\n\nThe shelf holds a kinkajou.\n")
    d = Daemon(tmp_path / "t", [work], env={"RAG_FOLLOW_SYMLINKS": "true"}).start()
    try:
        d.wait_idle()
        (work / "shelf").symlink_to("../shelf")
        wait_for(lambda: d.sources("kinkajou") == ["shelf/deep/s.md"], 30, "the linked folder")
        # Links made live to the root itself and to the folder holding it are not walked:
        # their files are the root's (at start-up the walk met the root first).
        (work / "again").symlink_to(".")
        (work / "above").symlink_to("..")
        (work / "marker.md").write_text("# Marker\n\nThe marker names a ptarmigan.\n")
        wait_for(lambda: d.sources("ptarmigan") == ["marker.md"], 30, "the marker")
        assert d.wait_idle()["files"] == 3, d.status()
        assert d.sources("workshop") == ["w.md"]
        (work / "shelf").unlink()
        wait_for(lambda: d.sources("kinkajou") == [], 30, "the link's files pruned")
    finally:
        d.stop()
