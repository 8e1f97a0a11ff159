"""A renamed file never drops out of search while its new name is indexed.

A rename is two jobs: index the new name, prune the old one. Pruning first left the file
unsearchable for as long as the new name's parse took (3–5 s for a 27-chunk file on a
loaded machine). Parse workers here take PARSE_S on `slow-*.md`
(`tests/support/slow_parse.py`), so the new name stays in flight that long; searches
polled all along must find the file under one name or the other at every moment.

One daemon serves the module: each test works in a folder of its own under the root, with
tokens of its own, so no test sees another's files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.slow_parse import slow_parse_env

PARSE_S = 1.5  # a slow parse: three times the planner's patience (PARSE_PATIENCE_S)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("renames")
    root = tmp / "notes"
    root.mkdir()
    daemon = Daemon(tmp, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    yield daemon
    daemon.stop()


def test_a_renamed_file_is_found_under_one_name_or_the_other_throughout(daemon: Daemon) -> None:
    quick, slow, here = planted(daemon, "file", "", "a")
    for token, old, new in [
        (quick, "plain-a.md", "plain-b.md"),  # parsed at once
        (slow, "slow-a.md", "slow-b.md"),  # parsed in the background
    ]:
        assert daemon.sources(token) == [f"file/{old}"]
        (here / old).rename(here / new)
        seen = sources_until(daemon, token, [f"file/{new}"])
        assert all(seen), f"{token}: a search found no copy of the renamed file: {seen}"
        assert seen[-1] == [f"file/{new}"]  # and the old name is pruned


def planted(daemon: Daemon, test: str, folder: str, suffix: str) -> tuple[str, str, Path]:
    """In the root's folder `test`/`folder`: a file parsed at once and one whose every parse
    takes PARSE_S, named `plain-` and `slow-` `suffix`, each carrying a token of this test's
    own; returns the two tokens (once both are searchable and the daemon is idle) and the
    folder `test`."""
    here = daemon.roots[0] / test
    (here / folder).mkdir(parents=True)
    quick, slow = f"okapiberry{test}", f"narwhalite{test}"
    (here / folder / f"plain-{suffix}.md").write_text(f"# Quick\n\nThe {quick} ripens.\n")
    (here / folder / f"slow-{suffix}.md").write_text(f"# Slow\n\nThe {slow} glows.\n")
    prefix = f"{test}/{folder}/" if folder else f"{test}/"
    daemon.wait_searchable(quick, f"{prefix}plain-{suffix}.md", timeout=60)
    daemon.wait_searchable(slow, f"{prefix}slow-{suffix}.md", timeout=60)
    daemon.wait_idle()
    return quick, slow, here


def sources_until(daemon: Daemon, token: str, until: list[str]) -> list[list[str]]:
    """The sources a search for `token` finds, polled until they are `until`."""
    seen: list[list[str]] = []

    def poll() -> list[str] | None:
        seen.append(daemon.sources(token))
        return seen[-1] if seen[-1] == until else None

    wait_for(poll, 60, f"{token} found under {until}", interval=0.02)
    return seen


def test_a_renamed_folder_keeps_its_files_searchable_and_a_removed_one_is_pruned(
    daemon: Daemon, tmp_path: Path
) -> None:
    """A folder renamed inside the root: its files were all pruned at once by the old
    folder's sync, before their new names were indexed (a slow file was missing from
    search for its whole parse, a quick one for a moment). A folder moved out of the root
    is still pruned."""
    quick, slow, here = planted(daemon, "folder", "d1", "a")
    for names in (["d2"], ["d3", "d4", "d5"]):  # once, then renamed again and again
        seen = []
        for name in names:
            (here / f"d{int(name[1:]) - 1}").rename(here / name)
            seen += [daemon.sources(slow), daemon.sources(quick)]
        for token, new in [(slow, "slow-a.md"), (quick, "plain-a.md")]:
            seen += sources_until(daemon, token, [f"folder/{names[-1]}/{new}"])
        assert all(seen), f"a search found no copy of a renamed folder's file: {seen}"
    (here / "d5").rename(tmp_path / "outside")
    for token in (quick, slow):
        wait_for(lambda: daemon.sources(token) == [], 30, f"{token} pruned")  # noqa: B023
    assert daemon.wait_idle()["state"] == "idle"


def test_a_rename_storm_keeps_the_file_searchable(daemon: Daemon) -> None:
    """Renamed again and again faster than the debounce: every intermediate name's job is
    pushed back, so the first name came due while its content was only queued under the
    last one, and was pruned: the file was in no index until the last name was indexed."""
    quick, slow, here = planted(daemon, "storm", "", "0")
    for token, stem in [(slow, "slow"), (quick, "plain")]:
        path, seen = here / f"{stem}-0.md", []
        for step in range(1, 7):  # a search between renames: well under the debounce
            path = path.rename(here / f"{stem}-{step}.md")
            seen.append(daemon.sources(token))
        seen += sources_until(daemon, token, [f"storm/{path.name}"])
        assert all(seen), f"{token}: a search found no copy of the renamed file: {seen}"
    assert daemon.wait_idle()["state"] == "idle"
