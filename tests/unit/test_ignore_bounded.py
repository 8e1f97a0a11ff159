"""Ignore patterns cost bounded time (issue 18, item 2).

`*a*a*a*a*a*a*b` against long names of `a`s backtracked for tens of seconds in Python's
`re`; thousands of patterns in nested ignore files were compiled under the lock the
watcher and the writer share. Now the patterns run on RE2 (linear in the path), each
ignore file is capped in lines and line length (over the cap: applied up to it and named
in `problems`), the patterns summed over the files above one path are capped, and the
files are read and compiled outside the lock. Times are compared as ratios in one run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import pytest

from ragd.ingest import ignore
from ragd.ingest.ignore import IgnoreRules

BACKTRACKER = "*a*a*a*a*a*a*b"


def per_call(fn: Callable[[], object], floor_s: float = 0.005) -> float:
    """CPU seconds per call, the best of three batches each long enough to measure."""
    calls = 1
    while True:
        start = time.process_time()
        for _ in range(calls):
            fn()
        if time.process_time() - start >= floor_s:
            break
        calls *= 2
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return best


def test_a_backtracking_pattern_costs_linear_time_in_the_name(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text(f"{BACKTRACKER}\n*.log\n")
    rules = IgnoreRules()
    root = str(tmp_path)
    assert rules.excluded(root, PurePosixPath("x.log"), False)
    assert rules.excluded(root, PurePosixPath("aaaaaab"), False)
    short, long = PurePosixPath("a" * 60), PurePosixPath("a" * 240)
    assert not rules.excluded(root, long, False)
    small = per_call(lambda: rules.excluded(root, short, False))
    large = per_call(lambda: rules.excluded(root, long, False))
    # Python's re: each extra `*a` multiplies; 4× the name was thousands of times slower.
    assert large / small < 8, f"4× the name took {large / small:.1f}× the time"


def test_over_the_caps_an_ignore_file_is_applied_in_part_and_named(tmp_path: Path) -> None:
    lines = [f"never{i}.md" for i in range(ignore.MAX_PATTERNS)] + ["late.md"]
    lines.insert(3, "x" * (ignore.MAX_PATTERN_CHARS + 1))
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    rules = IgnoreRules()
    root = str(tmp_path)
    assert rules.excluded(root, PurePosixPath("never7.md"), False)
    assert not rules.excluded(root, PurePosixPath("late.md"), False)  # past the cap
    [(where, name, why)] = rules.problems()
    assert (where, name) == (root, ".gitignore")
    assert f"only its first {ignore.MAX_PATTERNS} lines" in why and "1 lines longer" in why
    rules.invalidate(root)  # the file changes: its problem goes until it is read again
    assert rules.problems() == []


def test_the_patterns_above_one_path_are_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ignore, "MAX_PATTERNS_PER_PATH", 20)
    folder = tmp_path
    for depth in range(4):  # 8 patterns each: the third file would pass 20
        folder = folder / f"d{depth}"
        folder.mkdir()
        (folder / ".gitignore").write_text("".join(f"p{depth}-{i}.md\n" for i in range(8)))
    rules = IgnoreRules()
    root = str(tmp_path)
    assert rules.excluded(root, PurePosixPath("d0/d1/p1-3.md"), False)
    assert not rules.excluded(root, PurePosixPath("d0/d1/d2/p2-3.md"), False)
    assert not rules.excluded(root, PurePosixPath("d0/d1/d2/d3/p3-3.md"), False)
    assert [name for _, name, _ in rules.problems()] == [
        "d0/d1/d2/.gitignore",
        "d0/d1/d2/d3/.gitignore",
    ]


def test_compiling_one_tree_does_not_hold_up_look_ups_in_another(tmp_path: Path) -> None:
    big, small = tmp_path / "big", tmp_path / "small"
    folder = big
    for depth in range(12):
        folder = folder / f"level{depth}"
        folder.mkdir(parents=True)
        rules_text = "".join(f"/dir{depth}x{i}/*.tmp{i}\n" for i in range(ignore.MAX_PATTERNS))
        (folder / ".gitignore").write_text(rules_text)
    small.mkdir()
    (small / ".gitignore").write_text("*.log\n")
    rules = IgnoreRules()
    deep = PurePosixPath(*(f"level{d}" for d in range(12)), "note.md")
    builder = threading.Thread(target=rules.excluded, args=(str(big), deep, False))
    builder.start()
    # Once the big tree's top is built, its deeper files are being read and compiled.
    deadline = time.monotonic() + 60
    while str(big) not in rules._roots and time.monotonic() < deadline:
        time.sleep(0.001)
    answered = 0
    for _ in range(50):
        answered += rules.excluded(str(small), PurePosixPath("x.log"), False)
    still_compiling = builder.is_alive()
    builder.join()
    assert answered == 50
    assert still_compiling, "the small tree's look-ups waited for the big tree's compile"


def test_changes_elsewhere_do_not_restart_a_compile_for_ever(tmp_path: Path) -> None:
    """A folder created or an ignore file saved anywhere invalidates that part of the tree.
    A compile under way was thrown away and redone on *any* such change, so changes
    elsewhere arriving faster than one compile (a build creating folders beside big ignore
    files) made the look-up — the watcher's or the scan's — never return (found by attack:
    six nested 1,000-line files, an unrelated folder invalidated every 0.75 s, no answer
    after 30 s)."""
    folder = tmp_path
    for depth in range(4):
        folder = folder / f"level{depth}"
        folder.mkdir()
        rules_text = "".join(f"/dir{depth}x{i}/*.tmp{i}\n" for i in range(ignore.MAX_PATTERNS))
        (folder / ".gitignore").write_text(rules_text)
    (tmp_path / "elsewhere").mkdir()
    deep = PurePosixPath(*(f"level{d}" for d in range(4)), "note.md")
    started = time.monotonic()
    assert IgnoreRules().excluded(str(tmp_path), deep, False) is False
    one_compile = time.monotonic() - started

    rules = IgnoreRules()
    done = threading.Event()
    looker = threading.Thread(
        target=lambda: (rules.excluded(str(tmp_path), deep, False), done.set()), daemon=True
    )
    looker.start()
    changes = 0
    # Ten changes per compile, for at most 20 compiles' time: far more than it needs.
    while not done.is_set() and changes < 200:
        rules.invalidate(str(tmp_path), "elsewhere")
        changes += 1
        done.wait(one_compile / 10)
    # A change to a folder above does make it read again, and it still answers.
    assert done.is_set(), f"no answer after {changes} changes elsewhere"
    rules.invalidate(str(tmp_path), "level0")
    assert rules.excluded(str(tmp_path), deep, False) is False


def test_an_ignore_file_over_re2s_budget_in_one_set_is_applied_in_parts(tmp_path: Path) -> None:
    """Hundreds of lines of `?` runs pass the memory RE2 allows one compiled set: the file
    was not applied at all, so what it listed was indexed (attack48: fail-open). It is now
    compiled in parts, each within the budget, and decides as one file: its last matching
    line wins, a later negation included."""
    lines = ["*" + "?" * 40 + f"{i}*.log" for i in range(600)]
    lines += ["secret*.txt", "!secret-ok.txt"]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    rules = IgnoreRules()
    root = str(tmp_path)
    assert rules.problems() == []
    assert rules.excluded(root, PurePosixPath("secret-key.txt"), False)
    assert not rules.excluded(root, PurePosixPath("secret-ok.txt"), False)
    assert rules.excluded(root, PurePosixPath("x" * 41 + "7-build.log"), False)
    assert not rules.excluded(root, PurePosixPath("notes.md"), False)
    assert rules.problems() == []
    assert len(rules._roots[root].specs[0].lines.parts) > 1  # it did not fit one set


def test_a_file_named_in_one_part_stays_ignored_past_a_folder_negation_in_a_later_one(
    tmp_path: Path,
) -> None:
    """git decides a file by the last line naming the file itself; a later `!folder/`
    above it only keeps the folder entered. Compiled in parts, the later part's `!sub/`
    decided alone and `sub/secret.txt` was indexed (attack49b); a later `!keep.txt` still
    re-includes, as in git."""
    heavy = ["?" * i + "*" + "?" * (250 - i) for i in range(62)]
    lines = ["secret.txt", "*.txt", *heavy, "!sub/", "!keep.txt"]
    (tmp_path / ".gitignore").write_text("\n".join(lines) + "\n")
    rules = IgnoreRules()
    root = str(tmp_path)
    assert rules.excluded(root, PurePosixPath("sub/secret.txt"), False)
    assert rules.excluded(root, PurePosixPath("sub/notes.txt"), False)
    assert not rules.excluded(root, PurePosixPath("sub/keep.txt"), False)
    assert not rules.excluded(root, PurePosixPath("sub/readme.md"), False)
    assert len(rules._roots[root].specs[0].lines.parts) > 1


def heavy_lines(count: int, tag: str) -> list[str]:
    """Lines of 250 `?` (about 2,000 RE2 instructions each), distinct per `tag` so no
    cache of an earlier compile serves them."""
    return [f"{tag}{i}" + "?" * 250 for i in range(count)]


def build_cost(tmp_path: Path, name: str, lines: list[str]) -> float:
    """CPU seconds to read and compile a folder holding an ignore file of `lines`."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / ".gitignore").write_text("\n".join(lines) + "\n")
    rules = IgnoreRules()
    start = time.process_time()
    rules.excluded(str(folder), PurePosixPath("x.md"), False)
    return time.process_time() - start


def test_what_compiling_one_folders_ignore_files_costs_is_bounded(tmp_path: Path) -> None:
    """1,024 lines of `?` runs compiled in 32 parts in 5 CPU s on the writer thread; six
    such files stalled another root's save for 36 s (attack49b). A folder's lines are now
    compiled up to MAX_PROGRAM_PER_FOLDER RE2 instructions and the rest named: eight times
    the lines cost about what the lines up to the cap cost, and what the cap keeps still
    applies."""
    at_cap = ignore.MAX_PROGRAM_PER_FOLDER // 2_100
    small = build_cost(tmp_path, "small", heavy_lines(at_cap, "a"))
    large = build_cost(tmp_path, "large", heavy_lines(8 * at_cap, "b"))
    assert large / small < 2.5, f"8× the lines cost {large / small:.1f}× as much"
    root = str(tmp_path / "large")
    rules = IgnoreRules()
    assert rules.excluded(root, PurePosixPath("b3" + "x" * 250), False)
    assert not rules.excluded(root, PurePosixPath(f"b{8 * at_cap - 1}" + "x" * 250), False)
    [(_, name, why)] = rules.problems()
    assert name == ".gitignore" and "lines left out" in why and "per folder" in why


def test_the_program_summed_over_the_files_above_a_path_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ignore, "MAX_PROGRAM_PER_PATH", 3 * 20 * 2_100)
    folder = tmp_path
    for depth in range(4):  # 20 heavy lines each: the fourth file passes the sum
        folder = folder / f"d{depth}"
        folder.mkdir()
        (folder / ".gitignore").write_text("\n".join(heavy_lines(20, f"n{depth}-")) + "\n")
    rules = IgnoreRules()
    root = str(tmp_path)
    deep = PurePosixPath("d0/d1/d2/d3")
    assert rules.excluded(root, deep / ("n2-5" + "x" * 250), False)
    assert not rules.excluded(root, deep / ("n3-19" + "x" * 250), False)
    [(_, name, why)] = rules.problems()
    assert name == "d0/d1/d2/d3/.gitignore" and "summed over the ignore files above" in why


def test_the_program_summed_over_every_folder_read_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each folder's ignore files were capped, but not how many such folders a tree holds:
    thirty folders of heavy lines held 424 MB (attack50). Past MAX_PROGRAM_TOTAL a folder's
    ignore files are left out and named; forgetting a folder gives back what it held."""
    monkeypatch.setattr(ignore, "MAX_PROGRAM_TOTAL", 3 * 20 * 2_100)
    for n in range(4):  # 20 heavy lines each, side by side: the fourth passes the total
        (tmp_path / f"f{n}").mkdir()
        (tmp_path / f"f{n}" / ".gitignore").write_text("\n".join(heavy_lines(20, f"n{n}-")) + "\n")
    rules = IgnoreRules()
    root = str(tmp_path)

    def ignored(n: int) -> bool:
        return rules.excluded(root, PurePosixPath(f"f{n}/n{n}-19" + "x" * 250), False)

    assert [ignored(n) for n in range(4)] == [True, True, True, False]
    [(_, name, why)] = rules.problems()
    assert name == "f3/.gitignore" and "summed over the root's ignore files" in why
    # Another root's own budget: a heavy root never leaves its `.ragignore` unapplied
    # (review51: one shared total had left `private/` in another root indexed).
    other = tmp_path / "other"
    (other / "private").mkdir(parents=True)
    (other / ".ragignore").write_text("\n".join(heavy_lines(20, "o-")) + "\nprivate/\n")
    assert rules.excluded(str(other), PurePosixPath("private"), True)
    assert [name for _, name, _ in rules.problems()] == ["f3/.gitignore"]
    rules.invalidate(root, "f0")
    rules.invalidate(root, "f3")
    assert ignored(3) and rules.problems() == []  # f0's share given back, f3 read again
    assert not ignored(0)  # and now f0 is the one past the total
    assert [name for _, name, _ in rules.problems()] == ["f0/.gitignore"]
    rules.invalidate(root)
    assert ignored(0) and ignored(1) and rules.problems() == []
