"""A root whose parent folder is renamed is gone, and its documents stay indexed.

inotify watches inodes: after `mv parent parent2` the root's watch still reports saves
and deletes in the moved folder, under the root's old path, until the watcher's check
(once a second) notices the root is gone. Each such event was synced against the old
path, found nothing there and pruned the file: a file saved in the moved folder left
the index, and the log then said the root's documents "stay indexed until it is back".
(A file deleted there is deleted: it leaves the index, as with `rm -rf` of the root.)
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def test_saves_in_a_root_moved_with_its_parent_prune_nothing(tmp_path: Path) -> None:
    root = tmp_path / "parent" / "notes"
    root.mkdir(parents=True)
    for n, word in enumerate(["axolotl", "bongo", "caracal"]):
        (root / f"f{n}.md").write_text(f"# F{n}\n\nThis note names the {word}.\n")
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        d.wait_idle()
        after = len(d.log())
        (tmp_path / "parent").rename(tmp_path / "parent2")
        moved = tmp_path / "parent2" / "notes"
        with (moved / "f0.md").open("a") as note:
            note.write("\nAnd the dugong.\n")
        (moved / "f1.md").unlink()
        d.wait_log("root notes is gone", after=after)
        assert d.wait_idle()["files"] == 2  # the deletion is one (`rm -rf` of a root prunes)
        assert d.sources("axolotl") == ["f0.md"] and d.sources("caracal") == ["f2.md"]
        (tmp_path / "parent2").rename(tmp_path / "parent")  # back: synced as it is now
        wait_for(lambda: d.sources("dugong") == ["f0.md"], 30, "the save made while away")
        assert d.wait_idle()["files"] == 2
    finally:
        d.stop()
