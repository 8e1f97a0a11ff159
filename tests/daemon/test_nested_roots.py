"""A root inside another root: each file belongs to the deepest root that holds it.

`rag ingest ~/work` while `~/work/notes` was already watched walked `notes` again from the
outer root: every file there was indexed twice (two results for one passage), and since
the watcher gives an event to the deepest root only, an edit or a delete reached the
inner copy alone: the outer copy stayed stale, and a deleted file's text still answered.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def test_a_root_holding_a_watched_root_indexes_each_file_once_and_never_stale(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    inner = work / "notes"
    (inner / "sub").mkdir(parents=True)
    (inner / "sub" / "b.md").write_text("# Sub\n\nThe kestrelite shines over the bay.\n")
    (work / "plan.md").write_text("# Plan\n\nThe zebrafinch sings at dawn.\n")
    d = Daemon(tmp_path / "t", [inner]).start()
    try:
        d.wait_idle()
        added = d.rag("ingest", str(work), "--timeout", "60")
        assert added.returncode == 0, added.stderr
        d.wait_idle()
        assert d.sources("kestrelite") == ["notes/sub/b.md"]  # once, under the inner root
        assert d.sources("zebrafinch") == ["work/plan.md"]
        (inner / "sub" / "b.md").write_text("# Sub\n\nThe gannetwing flies over the bay.\n")
        wait_for(lambda: d.sources("gannetwing") == ["notes/sub/b.md"], 30, "the edit")
        assert d.sources("kestrelite") == [], "the old text is still served"
        forgot = d.rag("forget", "notes")
        assert forgot.returncode == 0, forgot.stderr
        # One root left, so sources are shown relative to it: `notes/sub/b.md` again.
        wait_for(lambda: d.sources("gannetwing") == ["notes/sub/b.md"], 30, "work's copy")
        roots = d.wait_idle()["roots"]
        assert [(r["name"], r["files"]) for r in roots] == [("work", 2)]
        (inner / "sub" / "b.md").unlink()  # now the outer root's file: its delete reaches it
        wait_for(lambda: d.sources("gannetwing") == [], 30, "the delete")
        d.wait_idle()
        check = d.ragd("check", "--data-dir", str(d.data_dir), timeout=300)
        assert check.returncode == 0, check.stdout + check.stderr
    finally:
        d.stop()
