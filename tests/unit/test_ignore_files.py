"""Ignore files follow git's rules (checked against git itself), `.ragignore` wins over
`.gitignore`, hidden and bulk folders are skipped by default, and the tally counts."""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PurePosixPath

import pytest

from ragd.ingest import ignore
from ragd.ingest.filters import PathFilter
from ragd.ingest.walking import walk
from tests.support.commands import run

EVERYTHING = ("*",)

# A tree exercising nesting, negation, anchoring, folder-only patterns, the `*` + `!*/`
# whitelist idiom, and a re-inclusion under an excluded folder (which git refuses).
TREE = {
    ".gitignore": "build/\n*.log\n!keep.log\n/top.md\ndocs/private/\nsecret*\n",
    "docs/.gitignore": "!secret-ok.md\n*.md\n!*.txt.md\n!important.md\n",
    "build/.gitignore": "!x.md\n",
    "white/.gitignore": "*\n!*/\n!*.md\nclosed/\n",
    "white/sub/.gitignore": "!*.txt\n",
}
FILES = [
    "build/x.md",
    "build/sub/y.md",
    "x.log",
    "keep.log",
    "a/keep.log",
    "top.md",
    "a/top.md",
    "docs/private/p.md",
    "docs/keep/k.md",
    "docs/important.md",
    "docs/a.txt.md",
    "docs/secret-ok.md",
    "docs/secret.txt",
    "secret.md",
    "lib/notes.txt",
    "white/a.md",
    "white/a.txt",
    "white/deep/er/b.md",
    "white/deep/er/b.txt",
    "white/sub/c.txt",
    "white/closed/d.md",
]


def make_tree(root: Path) -> None:
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("# x\n\nbody\n")


def ignored(f: PathFilter, root: Path, rel: str) -> bool:
    return not f.accepts(PurePosixPath(rel), root / rel, str(root))


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to compare with")
def test_nested_gitignore_decisions_match_git_check_ignore(tmp_path: Path) -> None:
    make_tree(tmp_path)
    assert run(["git", "init", "-q", tmp_path]).returncode == 0
    listed = run(["git", "-C", tmp_path, "check-ignore", "--stdin"], input="\n".join(FILES))
    listed_paths = listed.stdout.split()
    f = PathFilter(EVERYTHING, ignore_files=(".gitignore",))
    ours = [rel for rel in FILES if ignored(f, tmp_path, rel)]
    assert ours == [rel for rel in FILES if rel in listed_paths]
    # The cases that make it interesting, spelled out.
    assert "docs/secret-ok.md" in ours  # `secret*` above, `*.md` after the `!` below
    assert "docs/important.md" not in ours  # re-included by the nested file
    assert "build/x.md" in ours  # a `!` inside an excluded folder is never read
    assert "white/deep/er/b.md" not in ours and "white/deep/er/b.txt" in ours
    assert "white/closed/d.md" in ours  # `closed/` comes after `!*/`


def test_ragignore_wins_over_gitignore_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.md\n")
    (tmp_path / ".ragignore").write_text("!wanted.md\ndrafts/\n")
    for rel in ("wanted.md", "other.md", "drafts/d.txt", "notes.txt"):
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text("x")
    f = PathFilter(EVERYTHING)
    assert not ignored(f, tmp_path, "wanted.md")
    assert ignored(f, tmp_path, "other.md")
    assert ignored(f, tmp_path, "drafts/d.txt")
    assert not ignored(f, tmp_path, "notes.txt")
    # Configured away, the files mean nothing.
    assert not ignored(PathFilter(EVERYTHING, ignore_files=()), tmp_path, "other.md")


def test_hidden_and_bulk_folders_are_skipped_by_default_and_configurable(tmp_path: Path) -> None:
    rels = [
        "keep.md",
        ".git/x.md",
        ".venv/lib/x.md",
        "node_modules/pkg/README.md",
        "src/__pycache__/x.md",
        "venv/x.md",
        ".obsidian/x.md",
    ]
    for rel in rels:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n\nbody\n")
    found = [rel for rel, _ in walk(tmp_path, str(tmp_path), PathFilter(("*.md",)), False)]
    assert found == ["keep.md"]
    only_git = PathFilter(("*.md",), skip_folders=(".git",))
    found = sorted(rel for rel, _ in walk(tmp_path, str(tmp_path), only_git, False))
    assert found == sorted(r for r in rels if not r.startswith(".git/"))


def test_a_changed_ignore_file_is_read_again_after_invalidate(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.md").write_text("x")
    f = PathFilter(EVERYTHING)
    assert not ignored(f, tmp_path, "sub/a.md")
    (tmp_path / "sub" / ".gitignore").write_text("a.md\n")
    assert not ignored(f, tmp_path, "sub/a.md")  # compiled once, cached
    f.rules.invalidate(str(tmp_path), "sub")
    assert ignored(f, tmp_path, "sub/a.md")
    (tmp_path / ".ragignore").write_text("sub/\n")  # a parent's change governs the subtree
    (tmp_path / "sub" / ".gitignore").unlink()
    f.rules.invalidate(str(tmp_path), "")
    assert f.ignores_dir(PurePosixPath("sub"), str(tmp_path))
    (tmp_path / ".ragignore").unlink()
    f.rules.invalidate(str(tmp_path))
    assert not ignored(f, tmp_path, "sub/a.md")


def test_bad_patterns_and_odd_ignore_files_do_not_void_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ignore, "MAX_PATTERNS", 16)  # the cap, at a size quick to compile
    (tmp_path / ".gitignore").write_text("# comment\n\n\\\nskip.md\n")  # `\` alone is invalid
    os.symlink("/dev/zero", tmp_path / ".ragignore")  # never followed, never read
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "sub" / ".gitignore")  # never opened for a blocking read
    lines = [f"never{i}.md" for i in range(16)] + ["late.md"]
    (tmp_path / "sub" / ".ragignore").write_text("\n".join(lines))  # past the cap: unused
    for name in ("skip.md", "keep.md", "sub/never7.md", "sub/late.md"):
        (tmp_path / name).write_text("x")
    f = PathFilter(EVERYTHING)
    assert ignored(f, tmp_path, "skip.md")
    assert not ignored(f, tmp_path, "keep.md")
    assert ignored(f, tmp_path, "sub/never7.md")
    assert not ignored(f, tmp_path, "sub/late.md")


@pytest.mark.parametrize("bad", ["[9-0].log", "[z-a]*", "[[:foo:]]"])
def test_a_line_pathspec_or_re2_refuses_is_left_out_and_the_rest_applies(
    tmp_path: Path, bad: str
) -> None:
    """A range written backwards raised re.error out of the scan, and the whole root's
    indexing stopped (every later save too, across restarts); a class RE2 does not know
    voided the whole file, so the files it keeps out were indexed."""
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / ".gitignore").write_text(f"secret.md\n{bad}\n")
    for name in ("top.md", "nested/secret.md", "nested/kept.md", "other/c.md"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("x")
    f = PathFilter(EVERYTHING)
    assert ignored(f, tmp_path, "nested/secret.md")
    assert not ignored(f, tmp_path, "nested/kept.md")
    assert not ignored(f, tmp_path, "top.md")
    assert not ignored(f, tmp_path, "other/c.md")
    assert f.rules.problems() == []  # left out with a warning, not "not applied"


def test_tally_counts_what_a_walk_leaves_out(tmp_path: Path) -> None:
    make_tree(tmp_path)
    (tmp_path / "node_modules" / "m").mkdir(parents=True)
    (tmp_path / "node_modules" / "m" / "README.md").write_text("x")
    f = PathFilter(("*.md", "*.txt"))
    root = str(tmp_path)
    f.tally.clear_under(root)
    list(walk(tmp_path, root, f, False))
    counts = f.tally.counts([root])
    # Documents excluded by their own pattern: top.md, secret.md, docs/secret-ok.md,
    # docs/secret.txt, docs/keep/k.md, white/a.txt, white/deep/er/b.txt (x.log is no
    # document); folders once, where the walk stopped: build, docs/private, white/closed,
    # node_modules (the files inside are not walked, so not counted).
    assert counts == {"files": 7, "folders": 4}
    assert f.tally.counts([]) == {"files": 0, "folders": 0}
    (tmp_path / ".gitignore").unlink()
    f.rules.invalidate(root)
    f.tally.clear_under(root)
    list(walk(tmp_path, root, f, False))
    assert f.tally.counts([root])["folders"] == 2  # node_modules and white/closed remain


def test_skipped_types_come_from_walks_and_deletions_never_the_disk(tmp_path: Path) -> None:
    for rel in ("a.numbers", "b.numbers", "sub/c.numbers", "sub/d.key", "sub/doc.md", "Makefile"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    f = PathFilter(("*.md",))
    root = str(tmp_path)
    assert [key for key, _ in walk(tmp_path, root, f, False)] == ["sub/doc.md"]
    assert f.tally.types([root]) == {".numbers": 3, "(no extension)": 1, ".key": 1}
    assert f.tally.types([]) == {}
    # Counting reads the tally only: a file gone from the disk counts until its delete
    # event (the watcher's `gone`) or the next walk of its folder says so.
    (tmp_path / "a.numbers").unlink()
    assert f.tally.types([root])[".numbers"] == 3
    f.tally.gone(root, "a.numbers")
    assert f.tally.types([root])[".numbers"] == 2
    f.tally.gone(root, "sub")  # a folder deleted: everything under it
    assert f.tally.types([root]) == {".numbers": 1, "(no extension)": 1}
    f.tally.clear_under(root)
    assert f.tally.types([root]) == {}
    list(walk(tmp_path, root, f, False))  # a.numbers is no longer on the disk
    assert f.tally.types([root]) == {".numbers": 2, "(no extension)": 1, ".key": 1}
