"""Two files swapped by three renames (a → tmp, b → a, tmp → b), as tools that exchange
two files do: each file's content is under one name or the other at every search.

The contents stay the same but each name now holds the other's: both names are parsed
again (a `slow-*` name for PARSE_S, `tests/support/slow_parse.py`), so if a name's new
content replaced its old one while the other name was still parsing, the other file was
in no index for the rest of that parse (seen: `plain-b.md` applied at once, the content
it held missing until `slow-a.md` was parsed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.slow_parse import slow_parse_env

PARSE_S = 3


@pytest.mark.parametrize(
    ("a", "b", "tmp"),
    [
        ("slow-a.md", "slow-b.md", "slow-tmp.md"),  # both parsed in the background
        ("slow-a.md", "slow-b.md", ".slow-a.md.swp"),  # through a name ragd ignores
        ("slow-a.md", "plain-b.md", "plain-tmp.md"),  # b's new content parses at once
    ],
)
def test_two_files_swapped_by_renames_stay_searchable(
    tmp_path: Path, a: str, b: str, tmp: str
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / a).write_text("# Alpha\n\nThe narwhalite glows in the alpha file.\n")
    (root / b).write_text("# Beta\n\nThe quokkanite hums in the beta file.\n")
    daemon = Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    try:
        daemon.wait_idle()
        assert daemon.sources("narwhalite") == [a]
        (root / a).rename(root / tmp)
        (root / b).rename(root / a)
        (root / tmp).rename(root / b)
        seen: list[tuple[list[str], list[str]]] = []

        def swapped() -> bool:
            seen.append((daemon.sources("narwhalite"), daemon.sources("quokkanite")))
            return seen[-1] == ([b], [a])

        wait_for(swapped, 60, "both files found under their new names", interval=0.02)
        missing = [pair for pair in seen if not pair[0] or not pair[1]]
        assert not missing, f"a search found no copy of a swapped file: {missing[:3]} of {seen}"
        assert daemon.wait_idle()["state"] == "idle"
    finally:
        daemon.stop()


def test_two_folders_swapped_by_renames_keep_their_files_searchable(tmp_path: Path) -> None:
    """`d1 → tmp`, `d2 → d1`, `tmp → d2`: no folder is missing when its job runs (d1 holds
    d2's files by then), so d1's scan pruned its old files at once, before d2's scan had
    planned their new names: even the quick file was in no index for a moment, the slow
    one for its whole parse. The renames of folders now carry the paths under them."""
    root = tmp_path / "notes"
    (root / "d1").mkdir(parents=True)
    (root / "d2").mkdir()
    (root / "d1" / "slow-a.md").write_text("# Alpha\n\nThe narwhalite glows.\n")
    (root / "d1" / "plain-a.md").write_text("# Quick\n\nThe okapiberry ripens.\n")
    (root / "d2" / "slow-b.md").write_text("# Beta\n\nThe quokkanite hums.\n")
    daemon = Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    try:
        daemon.wait_idle()
        (root / "d1").rename(root / "tmp")
        (root / "d2").rename(root / "d1")
        (root / "tmp").rename(root / "d2")
        tokens = ("narwhalite", "quokkanite", "okapiberry")
        want = [["d2/slow-a.md"], ["d1/slow-b.md"], ["d2/plain-a.md"]]
        seen: list[list[list[str]]] = []

        def swapped() -> bool:
            seen.append([daemon.sources(token) for token in tokens])
            return seen[-1] == want

        wait_for(swapped, 60, "every file found under its new folder", interval=0.02)
        missing = [found for found in seen if not all(found)]
        assert not missing, f"a search found no copy of a file: {missing[:3]} of {len(seen)}"
        assert daemon.wait_idle()["state"] == "idle"
    finally:
        daemon.stop()
