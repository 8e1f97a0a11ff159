"""A root named through a symbolic link is the folder it leads to.

`ragd serve ~/notes` with ~/notes a link to /data/notes indexed nothing, silently: the
root's own lstat said "not a folder", so it was never walked (only later saves were
indexed, through the watcher). And `rag ingest` of the same folder by another name (the
link, or the folder the link leads to) made it a second root, watched twice: every later
save was indexed under both names.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def test_a_root_named_through_a_link_is_walked_and_not_added_twice(tmp_path: Path) -> None:
    real = tmp_path / "data" / "notes"
    (real / "sub").mkdir(parents=True)
    (real / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    (real / "sub" / "b.md").write_text("# B\n\nThe kestrelite shines over the bay.\n")
    link = tmp_path / "notes"
    link.symlink_to(real)
    d = Daemon(tmp_path / "t", [link]).start()
    try:
        d.wait_idle()
        assert d.sources("kestrelite") == ["sub/b.md"]  # walked at start
        for other_name in (real, tmp_path / "again"):
            if other_name != real:
                other_name.symlink_to(real)
            reply = d.rag("ingest", str(other_name), "--timeout", "60")
            assert reply.returncode == 0, reply.stderr
        roots = d.wait_idle()["roots"]
        assert [r["name"] for r in roots] == ["notes"], roots
        (real / "sub" / "b.md").write_text("# B\n\nThe gannetwing flies over the bay.\n")
        wait_for(lambda: d.sources("gannetwing") == ["sub/b.md"], 30, "the edit, once")
        assert d.sources("kestrelite") == []
    finally:
        d.stop()


def test_a_link_into_a_folder_of_a_root_is_that_folder_re_read(tmp_path: Path) -> None:
    """`rag ingest LINK` where LINK leads into a folder of a watched root: before, LINK
    became a second root and every save under that folder was indexed twice (once under
    each root), so a search found each passage twice."""
    root = tmp_path / "docs"
    (root / "pumps").mkdir(parents=True)
    (root / "pumps" / "p.md").write_text("# P\n\nThe quillpump is primed weekly.\n")
    link = tmp_path / "pumps-link"
    link.symlink_to(root / "pumps")
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        d.wait_idle()
        reply = d.call("ingest", path=str(link))
        assert reply["added"] is False and reply["path"] == "pumps", reply  # a re-read
        roots = d.wait_idle()["roots"]
        assert [r["name"] for r in roots] == ["docs"], roots
        (root / "pumps" / "p.md").write_text("# P\n\nThe ferrovalve is primed weekly.\n")
        wait_for(lambda: d.sources("ferrovalve") == ["pumps/p.md"], 30, "the edit, once")
        assert d.sources("quillpump") == []
    finally:
        d.stop()


def test_saves_at_the_top_of_a_root_that_is_a_link_are_indexed(tmp_path: Path) -> None:
    """watchdog sets the root's watch with IN_DONT_FOLLOW, so on a root that is a link it
    watched the link itself: a save in a folder below reached the index (that path is
    looked up through the link), a save in the root's own folder never did. Before, with
    `ragd serve notes` and notes a link, `notes/a.md` edited or a note added beside it
    kept its old text (or none) until a restart; the same for a root replaced by a link
    to a folder elsewhere while the daemon ran."""
    real = tmp_path / "data" / "notes"
    real.mkdir(parents=True)
    (real / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    link = tmp_path / "notes"
    link.symlink_to(real)
    d = Daemon(tmp_path / "t", [link]).start()
    try:
        d.wait_idle()
        (real / "a.md").write_text("# A\n\nThe gannetwing sings at dawn.\n")
        (real / "b.md").write_text("# B\n\nThe kittiwake rests on the pier.\n")
        wait_for(lambda: d.sources("gannetwing") == ["a.md"], 30, "the edit in the link's folder")
        wait_for(lambda: d.sources("kittiwake") == ["b.md"], 30, "the note added there")
        # The link moved to another folder while the daemon runs: that one is the root.
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "c.md").write_text("# C\n\nThe puffin nests on the cliff.\n")
        moved = tmp_path / "notes.new"
        moved.symlink_to(elsewhere)
        moved.rename(link)
        wait_for(lambda: d.sources("puffin") == ["c.md"], 30, "the new folder's note")
        (elsewhere / "c.md").write_text("# C\n\nThe razorbill nests on the cliff.\n")
        wait_for(lambda: d.sources("razorbill") == ["c.md"], 30, "the edit in the new folder")
        assert d.wait_idle()["files"] == 1
    finally:
        d.stop()
