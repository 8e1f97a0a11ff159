"""Two files swapped by three renames (a → tmp, b → a, tmp → b), as tools that exchange
two files do: each file's content is under one name or the other at every search.

The contents stay the same but each name now holds the other's: both names are parsed
again (a `slow-*` name for PARSE_S, `tests/support/slow_parse.py`), so if a name's new
content replaced its old one while the other name was still parsing, the other file was
in no index for the rest of that parse (seen: `plain-b.md` applied at once, the content
it held missing until `slow-a.md` was parsed).

The module's tests take turns on one daemon (one start-up, not four): each writes its
files into a folder of its own under the root, with words no other test uses, waits for
them to be indexed, swaps them, and leaves the daemon idle.
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
    tmp = tmp_path_factory.mktemp("swap")
    root = tmp / "notes"
    root.mkdir()
    daemon = Daemon(tmp, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    daemon.wait_idle()
    yield daemon
    assert daemon.stop() == 0


def case_folder(daemon: Daemon, name: str) -> Path:
    folder = daemon.roots[0] / name
    folder.mkdir()
    return folder


@pytest.mark.parametrize(
    ("case", "a", "b", "tmp"),
    [
        ("both-slow", "slow-a.md", "slow-b.md", "slow-tmp.md"),  # both parsed in the background
        ("ignored-tmp", "slow-a.md", "slow-b.md", ".slow-a.md.swp"),  # via a name ragd ignores
        ("one-quick", "slow-a.md", "plain-b.md", "plain-tmp.md"),  # b's new content: at once
    ],
)
def test_two_files_swapped_by_renames_stay_searchable(
    daemon: Daemon, case: str, a: str, b: str, tmp: str
) -> None:
    folder = case_folder(daemon, case)
    alpha, beta = f"narwhalite{case[0]}", f"quokkanite{case[0]}"  # this case's words only
    (folder / a).write_text(f"# Alpha\n\nThe {alpha} glows in the alpha file.\n")
    (folder / b).write_text(f"# Beta\n\nThe {beta} hums in the beta file.\n")
    daemon.wait_searchable(alpha, f"{case}/{a}", timeout=120)
    daemon.wait_searchable(beta, f"{case}/{b}", timeout=120)
    assert daemon.wait_idle()["state"] == "idle"
    assert daemon.sources(alpha) == [f"{case}/{a}"]
    (folder / a).rename(folder / tmp)
    (folder / b).rename(folder / a)
    (folder / tmp).rename(folder / b)
    seen: list[tuple[list[str], list[str]]] = []

    def swapped() -> bool:
        seen.append((daemon.sources(alpha), daemon.sources(beta)))
        return seen[-1] == ([f"{case}/{b}"], [f"{case}/{a}"])

    wait_for(swapped, 60, "both files found under their new names", interval=0.02)
    missing = [pair for pair in seen if not pair[0] or not pair[1]]
    assert not missing, f"a search found no copy of a swapped file: {missing[:3]} of {seen}"
    assert daemon.wait_idle()["state"] == "idle"


def test_two_folders_swapped_by_renames_keep_their_files_searchable(daemon: Daemon) -> None:
    """`d1 → tmp`, `d2 → d1`, `tmp → d2`: no folder is missing when its job runs (d1 holds
    d2's files by then), so d1's scan pruned its old files at once, before d2's scan had
    planned their new names: even the quick file was in no index for a moment, the slow
    one for its whole parse. The renames of folders now carry the paths under them."""
    folder = case_folder(daemon, "folders")
    (folder / "d1").mkdir()
    (folder / "d2").mkdir()
    (folder / "d1" / "slow-a.md").write_text("# Alpha\n\nThe narwhalitef glows.\n")
    (folder / "d1" / "plain-a.md").write_text("# Quick\n\nThe okapiberryf ripens.\n")
    (folder / "d2" / "slow-b.md").write_text("# Beta\n\nThe quokkanitef hums.\n")
    tokens = ("narwhalitef", "quokkanitef", "okapiberryf")
    sources = ("d1/slow-a.md", "d2/slow-b.md", "d1/plain-a.md")
    for token, source in zip(tokens, sources, strict=True):
        daemon.wait_searchable(token, f"folders/{source}", timeout=120)
    assert daemon.wait_idle()["state"] == "idle"
    (folder / "d1").rename(folder / "tmp")
    (folder / "d2").rename(folder / "d1")
    (folder / "tmp").rename(folder / "d2")
    want = [["folders/d2/slow-a.md"], ["folders/d1/slow-b.md"], ["folders/d2/plain-a.md"]]
    seen: list[list[list[str]]] = []

    def swapped() -> bool:
        seen.append([daemon.sources(token) for token in tokens])
        return seen[-1] == want

    wait_for(swapped, 60, "every file found under its new folder", interval=0.02)
    missing = [found for found in seen if not all(found)]
    assert not missing, f"a search found no copy of a file: {missing[:3]} of {len(seen)}"
    assert daemon.wait_idle()["state"] == "idle"
