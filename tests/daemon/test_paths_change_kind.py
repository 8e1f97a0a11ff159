"""Paths that change what they are under a live daemon.

A file that becomes a folder of the same name and back; a root folder deleted and made
again, or moved away and replaced (a fresh clone, a build replacing its output folder);
a root that does not exist yet when the daemon starts; a symlink loop with
`follow_symlinks` on. Each must end with the index matching the disk and the daemon
idle, with no restart.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.test_hostile_files import (
    HONEST_PERMISSIONS,
    PERMISSION_SKIP_REASON,
    UnprivilegedDaemon,
)
from tests.support.daemon import Daemon, wait_for


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("kinds")
    docs, scratch = tmp / "docs", tmp / "scratch"
    docs.mkdir()
    scratch.mkdir()
    (docs / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    (scratch / "first.md").write_text("# First\n\nThe first scratch note names oribatid.\n")
    locked = docs / "locked"  # closed while watchdog sets its watches
    locked.mkdir()
    (locked / "inside.md").write_text("# Inside\n\nThe locked note names pangolin.\n")
    locked.chmod(0)
    daemon = UnprivilegedDaemon(tmp, [docs, scratch]).start()  # root's CAP_DAC_* dropped
    daemon.wait_idle()
    yield daemon
    locked.chmod(0o755)
    daemon.stop()


def gone(d: Daemon, token: str) -> None:
    wait_for(lambda: not d.sources(token), 30, f"{token!r} to leave the index")


def test_a_file_replaced_by_a_folder_of_its_name_and_back(live: Daemon) -> None:
    docs = live.roots[0]
    target = docs / "guide.md"
    target.write_text("# Guide\n\nThe flat guide mentions quillwort.\n")
    live.wait_searchable("quillwort", "docs/guide.md")
    live.wait_idle()
    # Before: the folder's scan queued the old file's row again, for ever (never idle).
    target.unlink()
    target.mkdir()
    (target / "part.md").write_text("# Part\n\nThe folder's part mentions hornwort.\n")
    live.wait_searchable("hornwort", "docs/guide.md/part.md")
    gone(live, "quillwort")
    live.wait_idle()
    # Folder → file by a move out of the root: one event for the folder, none for its files.
    os.rename(target, live.tmp / "guide-folder")
    target.write_text("# Guide\n\nThe flat guide is back and mentions liverwort.\n")
    live.wait_searchable("liverwort", "docs/guide.md")
    gone(live, "hornwort")  # before: docs/guide.md/part.md stayed indexed
    status = live.wait_idle()
    assert not [e for e in status["errors"] if "guide" in e["source"]]


def test_a_folder_deleted_and_replaced_by_a_file_at_once(live: Daemon) -> None:
    """The deleted files' events are read once their folder is a file: stat says
    ENOTDIR, which is as gone as ENOENT (before: "cannot stat (Not a directory)", kept)."""
    docs = live.roots[0]
    folder = docs / "atlas.md"
    folder.mkdir()
    (folder / "leaf.md").write_text("# Leaf\n\nThe leaf inside mentions bryophyte.\n")
    live.wait_searchable("bryophyte", "docs/atlas.md/leaf.md")
    live.wait_idle()
    shutil.rmtree(folder)
    folder.write_text("# Atlas\n\nThe atlas file mentions sphagnum.\n")
    live.wait_searchable("sphagnum", "docs/atlas.md")
    gone(live, "bryophyte")
    status = live.wait_idle()
    assert not [e for e in status["errors"] if "atlas" in e["source"]], status["errors"]


@pytest.mark.skipif(not HONEST_PERMISSIONS, reason=PERMISSION_SKIP_REASON)
def test_a_folder_the_daemon_may_not_list_is_reported_then_read(live: Daemon) -> None:
    """os.walk skips a folder it cannot list without a word: before, `rag status` said
    "errors none" while its documents were missing (and `rag ingest` of such a folder
    said "0 files, 0 chunks"). Once opened, edits in it were never seen: watchdog had
    set no watch there."""
    locked = live.roots[0] / "locked"
    error = {"source": "docs/locked", "reason": "cannot read folder (Permission denied)"}
    assert any(error.items() <= e.items() for e in live.status()["errors"])
    locked.chmod(0o755)
    live.call("ingest", path=str(live.roots[0]))  # a rescan of the root
    live.wait_searchable("pangolin", "docs/locked/inside.md")
    wait_for(
        lambda: not [e for e in live.status()["errors"] if e["source"] == "docs/locked"],
        30,
        "the folder's error to clear",
    )
    # watchdog set no watch in it while it was closed: the root's watches are set again.
    (locked / "inside.md").write_text("# Inside\n\nThe opened note names armadillo.\n")
    live.wait_searchable("armadillo", "docs/locked/inside.md")


def test_a_root_deleted_and_made_again_is_watched_again(live: Daemon) -> None:
    scratch = live.roots[1]
    live.wait_searchable("oribatid", "scratch/first.md")
    shutil.rmtree(scratch)
    gone(live, "oribatid")
    scratch.mkdir()
    (scratch / "second.md").write_text("# Second\n\nThe second note names springtail.\n")
    # Before: watchdog ended the watch with the folder; nothing new was ever indexed.
    live.wait_searchable("springtail", "scratch/second.md")
    (scratch / "second.md").write_text("# Second\n\nThe second note now names collembola.\n")
    live.wait_searchable("collembola", "scratch/second.md")
    assert "watching root scratch afresh and syncing it" in live.log()


def test_a_root_moved_away_and_replaced_is_synced(live: Daemon) -> None:
    scratch = live.roots[1]
    (scratch / "kept.md").write_text("# Kept\n\nThe kept note names tardigrade.\n")
    live.wait_searchable("tardigrade", "scratch/kept.md")
    os.rename(scratch, live.tmp / "scratch-old")
    scratch.mkdir()
    (scratch / "third.md").write_text("# Third\n\nThe third note names rotifer.\n")
    live.wait_searchable("rotifer", "scratch/third.md")
    gone(live, "tardigrade")  # the files of the folder moved away are not the root's now
    (scratch / "third.md").write_text("# Third\n\nThe third note now names nematode.\n")
    live.wait_searchable("nematode", "scratch/third.md")
    assert live.wait_idle()["errors"] == []


def test_a_root_missing_at_start_is_watched_once_it_appears(tmp_path: Path) -> None:
    from ragd.core.roots import Roots
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.watcher import Watcher
    from ragd.ingest.work_queue import Job, WorkQueue

    root = tmp_path / "later"
    queue = WorkQueue(debounce_s=0)
    watcher = Watcher(Roots([str(root)]), PathFilter(("*.md",)), queue)
    watcher.start()
    try:
        root.mkdir()
        assert queue.take(timeout=10) == Job("sync", str(root), "")
        (root / "new.md").write_text("# New\n")
        assert queue.take(timeout=10) == Job("sync", str(root), "new.md")
    finally:
        watcher.stop()


def test_a_symlink_loop_is_walked_once_with_follow_symlinks(tmp_path: Path) -> None:
    """Python's os.walk follows `up -> ..` again and again (to the kernel's 40-link
    limit; two such links: 2^40 folders). Each folder is now walked once."""
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.walking import walk

    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.md").write_text("# B\n")
    (tmp_path / "sub" / "up").symlink_to("..")  # a second one would make this hang before
    found = [rel for rel, _ in walk(tmp_path, str(tmp_path), PathFilter(("*.md",)), True)]
    assert sorted(found) == ["a.md", "sub/b.md"]
