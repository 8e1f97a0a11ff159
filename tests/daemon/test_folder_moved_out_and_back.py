"""A folder moved out of a root and back in under another name at once (well within
watchdog's half-second pairing of a move's two events): edits under it later must
still be seen. Found by `bench/staleness_fuzz.py`; before `ingest/kept_watches.py`, the
delayed report of the move out took the watches the move back in had just set (the
same inode's descriptors), and nothing under the folder was indexed again until a
restart."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def note(title: str, token: str) -> str:
    return f"# {title}\n\nThe {title.lower()} note names {token}.\n"


def indexed(d: Daemon) -> set[str]:
    return {doc["source"] for doc in d.call("documents")["documents"]}


def on_disk(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*.md") if p.is_file()}


def test_a_folder_moved_out_and_back_under_another_name_stays_watched(tmp_path: Path) -> None:
    docs, outside = tmp_path / "docs", tmp_path / "outside"
    (docs / "keep" / "deeper").mkdir(parents=True)
    outside.mkdir()
    (docs / "keep" / "first.md").write_text(note("First", "quetzal"))
    (docs / "keep" / "deeper" / "low.md").write_text(note("Low", "axolotl"))
    d = Daemon(tmp_path, [docs]).start()
    d.wait_idle()
    os.rename(docs / "keep", outside / "keep")
    os.rename(outside / "keep", docs / "back")
    # The old names leave the index once the move out is reported (half a second on):
    # by then the watches of the move out are dropped, and the bug had dropped the new.
    wait_for(lambda: indexed(d) == on_disk(docs), 30, "the moved folder indexed under back/")
    d.wait_idle()
    (docs / "back" / "later.md").write_text(note("Later", "pangolin"))
    (docs / "back" / "deeper" / "low.md").write_text(note("Low", "okapi"))
    (docs / "back" / "first.md").unlink()
    d.wait_searchable("pangolin", "back/later.md")  # before: never (30 s)
    d.wait_searchable("okapi", "back/deeper/low.md")
    wait_for(lambda: not d.sources("quetzal"), 30, "the deleted note to leave the index")
    assert not d.sources("axolotl")
    d.wait_idle()
    d.stop()
