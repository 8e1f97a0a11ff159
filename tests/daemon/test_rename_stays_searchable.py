"""A renamed file never drops out of search while its new name is indexed.

A rename is two jobs: index the new name, prune the old one. Pruning first left the file
unsearchable for as long as the new name's parse took (3–5 s for a 27-chunk file on a
loaded machine). Parse workers here take PARSE_S on `slow-*.md`
(`tests/support/slow_parse.py`), so the new name stays in flight that long; searches
polled all along must find the file under one name or the other at every moment.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.slow_parse import slow_parse_env

PARSE_S = 3


def test_a_renamed_file_is_found_under_one_name_or_the_other_throughout(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "plain-a.md").write_text("# Quick\n\nThe okapiberry ripens in the shade.\n")
    (root / "slow-a.md").write_text("# Slow\n\nThe narwhalite glows under the ice.\n")
    daemon = Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    try:
        daemon.wait_idle()
        for token, old, new in [
            ("okapiberry", "plain-a.md", "plain-b.md"),  # parsed at once
            ("narwhalite", "slow-a.md", "slow-b.md"),  # parsed in the background
        ]:
            assert daemon.sources(token) == [old]
            (root / old).rename(root / new)
            seen = sources_until(daemon, token, [new])
            assert all(seen), f"{token}: a search found no copy of the renamed file: {seen}"
            assert seen[-1] == [new]  # and the old name is pruned
    finally:
        daemon.stop()


def sources_until(daemon: Daemon, token: str, until: list[str]) -> list[list[str]]:
    """The sources a search for `token` finds, polled until they are `until`."""
    seen: list[list[str]] = []

    def poll() -> list[str] | None:
        seen.append(daemon.sources(token))
        return seen[-1] if seen[-1] == until else None

    wait_for(poll, 60, f"{token} found under {until}", interval=0.02)
    return seen


def test_a_renamed_folder_keeps_its_files_searchable_and_a_removed_one_is_pruned(
    tmp_path: Path,
) -> None:
    """A folder renamed inside the root: its files were all pruned at once by the old
    folder's sync, before their new names were indexed (a slow file was missing from
    search for its whole parse, a quick one for a moment). A folder moved out of the root
    is still pruned."""
    root = tmp_path / "notes"
    (root / "d1").mkdir(parents=True)
    (root / "d1" / "plain-a.md").write_text("# Quick\n\nThe okapiberry ripens in the shade.\n")
    (root / "d1" / "slow-a.md").write_text("# Slow\n\nThe narwhalite glows under the ice.\n")
    daemon = Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    try:
        daemon.wait_idle()
        (root / "d1").rename(root / "d2")
        for token, new in [("narwhalite", "d2/slow-a.md"), ("okapiberry", "d2/plain-a.md")]:
            seen = sources_until(daemon, token, [new])
            assert all(seen), f"{token}: a search found no copy of the renamed folder's file"
        (root / "d2").rename(tmp_path / "outside")
        for token in ("okapiberry", "narwhalite"):
            wait_for(lambda: daemon.sources(token) == [], 30, f"{token} pruned")  # noqa: B023
        assert daemon.wait_idle()["state"] == "idle"
    finally:
        daemon.stop()
