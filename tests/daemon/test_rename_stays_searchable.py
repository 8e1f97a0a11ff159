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
    root, daemon = started(tmp_path, "", "a")
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


def started(tmp_path: Path, folder: str, suffix: str) -> tuple[Path, Daemon]:
    """A daemon on a root holding, in `folder`, a file parsed at once (`okapiberry`) and
    one whose every parse takes PARSE_S (`narwhalite`), named `plain-` and `slow-` `suffix`."""
    root = tmp_path / "notes"
    (root / folder).mkdir(parents=True)
    (root / folder / f"plain-{suffix}.md").write_text("# Quick\n\nThe okapiberry ripens.\n")
    (root / folder / f"slow-{suffix}.md").write_text("# Slow\n\nThe narwhalite glows.\n")
    return root, Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()


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
    root, daemon = started(tmp_path, "d1", "a")
    try:
        daemon.wait_idle()
        for names in (["d2"], ["d3", "d4", "d5"]):  # once, then renamed again and again
            seen = []
            for name in names:
                (root / f"d{int(name[1:]) - 1}").rename(root / name)
                seen += [daemon.sources("narwhalite"), daemon.sources("okapiberry")]
            for token, new in [("narwhalite", "slow-a.md"), ("okapiberry", "plain-a.md")]:
                seen += sources_until(daemon, token, [f"{names[-1]}/{new}"])
            assert all(seen), f"a search found no copy of a renamed folder's file: {seen}"
        (root / "d5").rename(tmp_path / "outside")
        for token in ("okapiberry", "narwhalite"):
            wait_for(lambda: daemon.sources(token) == [], 30, f"{token} pruned")  # noqa: B023
        assert daemon.wait_idle()["state"] == "idle"
    finally:
        daemon.stop()


def test_a_rename_storm_keeps_the_file_searchable(tmp_path: Path) -> None:
    """Renamed again and again faster than the debounce: every intermediate name's job is
    pushed back, so the first name came due while its content was only queued under the
    last one, and was pruned: the file was in no index until the last name was indexed."""
    root, daemon = started(tmp_path, "", "0")
    try:
        daemon.wait_idle()
        for token, stem in [("narwhalite", "slow"), ("okapiberry", "plain")]:
            path, seen = root / f"{stem}-0.md", []
            for step in range(1, 7):  # a search between renames: well under the debounce
                path = path.rename(root / f"{stem}-{step}.md")
                seen.append(daemon.sources(token))
            seen += sources_until(daemon, token, [path.name])
            assert all(seen), f"{token}: a search found no copy of the renamed file: {seen}"
        assert daemon.wait_idle()["state"] == "idle"
    finally:
        daemon.stop()
