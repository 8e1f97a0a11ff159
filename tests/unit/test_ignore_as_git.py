"""Ignore files decide as git does, whole or compiled in parts: compared with git itself
(`git ls-files -o --exclude-standard`) on the cases attack50 found and on random trees.

pathspec's specs let a line naming a folder above a path decide it: `!docs/` re-entered
`docs/node_modules/` after `node_modules/`, and the ranking of part winners two at a time
kept `docs/x.txt` after `*`, `docs`, `!docs` in three parts. Random trees of nested
ignore files differed from git in 4–13 of every 700–800 (attack50's fuzzer); these
tests hold them to 0.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

from ragd.core import gitignore_lines
from ragd.ingest.ignore import IgnoreRules

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
# Lines of about 2,000 RE2 instructions each: a few force a new part at any budget used.
HEAVY = ["?" * (250 - i % 5) for i in range(24)]


def git_keeps(root: Path) -> set[str]:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-o", "--exclude-standard", "-z"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {p for p in listed.split("\0") if p and not p.endswith(".gitignore")}


def git_keeps_each(repo: Path, trees: list[str]) -> dict[str, set[str]]:
    """`git_keeps` of every tree folder directly in `repo`, from one repository and one
    listing: a .gitignore's lines are relative to its own folder, so a tree's root ignore
    file decides in a folder of the repository as at the root of a repository of its own
    (2 git processes where a repository per tree took 2 per tree)."""
    kept = git_keeps(repo)
    each: dict[str, set[str]] = {name: set() for name in trees}
    for path in kept:
        name, _, inside = path.partition("/")
        each[name].add(inside)
    return each


def ragd_keeps(root: Path) -> set[str]:
    """The files a walk keeps: an excluded folder is not entered, as the daemon's walk."""
    rules = IgnoreRules((".gitignore",))
    kept: set[str] = set()

    def walk(folder: str, rel: PurePosixPath | None) -> None:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.name in (".git", ".gitignore"):
                continue
            path = rel / entry.name if rel else PurePosixPath(entry.name)
            if entry.is_dir():
                if not rules.excluded(str(root), path, True):
                    walk(entry.path, path)
            elif not rules.excluded(str(root), path, False):
                kept.add(path.as_posix())

    walk(str(root), None)
    return kept


def tree(root: Path, ignores: dict[str, list[str]], files: list[str]) -> Path:
    for folder, lines in ignores.items():
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / ".gitignore").write_text("\n".join(lines) + "\n")
    for name in files:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    return root


@pytest.mark.parametrize(
    ("lines", "files"),
    [
        # a folder negation does not re-enter an excluded folder below it
        (["node_modules/", "!docs/"], ["docs/node_modules/x.md", "docs/a.md"]),
        (["build", "!src/"], ["src/build/out.txt", "src/main.txt"]),
        # `*`, `docs`, `!docs`, each in its own part: docs is entered, its files excluded
        (["*", *HEAVY, "docs", *HEAVY, "!docs"], ["docs/x.txt", "docs/a.md", "top.md"]),
        # a file named in an early part, a folder negation and a re-inclusion later
        (["secret.txt", "*.txt", *HEAVY, "!sub/", "!keep.txt"], ["sub/secret.txt", "sub/keep.txt"]),
        # `logs/**` is what is inside logs, so a file in it can be let back in
        (["logs/**", "!logs/keep.txt"], ["logs/keep.txt", "logs/old.txt"]),
        # `build/**/` is the folders inside build, not build's own files
        (["build/**/"], ["build/a.txt", "build/sub/b.txt"]),
        (["*/**/", "!x.md"], ["a/x.md", "a/b/x.md", "top.md"]),
    ],
)
def test_what_attack50_found_decides_as_git_does(
    tmp_path: Path, lines: list[str], files: list[str]
) -> None:
    root = tree(tmp_path, {".": lines}, files)
    assert ragd_keeps(root) == git_keeps(root)


NAMES = ["a", "b", "sub", "x.txt", "y.md", "a/", "sub/", "*.md", "*", "**", "*.txt", "s*", "?"]


def random_line(rng: random.Random) -> str:
    line = "/".join(rng.choice(NAMES) for _ in range(rng.choice([1, 1, 2, 3])))
    if rng.random() < 0.2:
        line = "/" + line
    if rng.random() < 0.25:
        line += "/"
    return "!" + line if rng.random() < 0.35 else line


def random_tree(rng: random.Random, root: Path) -> None:
    def fill(folder: Path, depth: int) -> None:
        folder.mkdir(exist_ok=True)
        for name in ["x.txt", "y.md", "a", "b"][: rng.randint(1, 4)]:
            if name in ("a", "b") and depth < 2 and rng.random() < 0.5:
                continue
            (folder / name).write_text("x")
        if depth < 3:
            for sub in rng.sample(["a", "b", "sub"], rng.randint(0, 2)):
                if not (folder / sub).exists():
                    fill(folder / sub, depth + 1)

    fill(root, 0)
    folders = [root, *(p for p in root.rglob("*") if p.is_dir())]
    for folder in rng.sample(folders, min(len(folders), rng.randint(1, 3))):
        lines = [random_line(rng) for _ in range(rng.randint(1, 6))]
        (folder / ".gitignore").write_text("\n".join(lines) + "\n")


def test_random_trees_decide_as_git_does_whole_and_one_line_a_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    differ: list[int] = []
    seeds = range(200)
    for seed in seeds:
        random_tree(random.Random(seed), tmp_path / f"t{seed}")
    by_git = git_keeps_each(tmp_path, [f"t{seed}" for seed in seeds])
    for seed in seeds:
        root = tmp_path / f"t{seed}"
        kept = by_git[f"t{seed}"]
        whole = ragd_keeps(root)
        with monkeypatch.context() as patch:
            patch.setattr(gitignore_lines, "PART_PROGRAM", 1)  # every line a part
            split = ragd_keeps(root)
        if not whole == split == kept:
            differ.append(seed)
    assert differ == []
