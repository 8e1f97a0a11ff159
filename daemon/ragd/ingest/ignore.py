"""Ignore files (`.gitignore`, `.ragignore`) inside the watched roots, with git's rules.

A pattern applies to the folder holding its file and to everything below it. Deeper files
win over shallower ones; in one folder a later name in `ignore_files` wins over an earlier
one (`.ragignore` over `.gitignore`); within a file the last matching pattern wins, so
`!pattern` re-includes. A folder that is excluded is not entered: nothing under it can be
re-included and the ignore files inside it are never read, as in git. Only ignore files
inside a root count (a `.gitignore` above the watched folder does not).

The patterns are translated by pathspec and matched on RE2 (`core/gitignore_lines.py`:
linear in the path whatever the patterns; a path is decided by the last line naming it
itself, the folders above it having been decided on the way down) once per folder, into
a tree of the folders looked at so far; each node keeps whether the folder is excluded
and the specs that apply in it, so a look-up costs one dict step per path component plus
one RE2 pass per ignore file above the path. Reading and compiling happen outside the
lock that guards the tree. An ignore file over the caps below (lines, line length, and
what its patterns compile to) is applied up to them and named, with the reason, in `rag
status` (`problems`); lines RE2 cannot hold in one set within its memory budget are
compiled in parts (`gitignore_lines.IgnoreLines`), one RE2 pass per part. `invalidate` drops
a folder's node and everything below it (their decisions derive from it); the next
look-up reads its ignore files again.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from ragd.core.gitignore_lines import (
    PATTERN_ERRORS,
    IgnoreLines,
    compiles,
    program_size,
    spec_of,
)
from ragd.ingest.regular_file import read_head

log = logging.getLogger("ragd.ignore")

# Bounds on what ignore files may cost. Matching runs on RE2:
# linear in the path whatever the pattern (`*a*a*a*a*a*a*b` included), one pass per
# folder's patterns. Compiling and matching still grow with the patterns' number and
# length, and real ignore files hold tens to hundreds of short lines, so:
MAX_IGNORE_FILE_BYTES = 256 * 1024  # a larger ignore file is read up to this much
MAX_PATTERNS = 1024  # lines per ignore file; the lines after it are left out
MAX_PATTERN_CHARS = 256  # a longer line is left out
MAX_PATTERNS_PER_PATH = 8192  # summed over the ignore files above a path; deeper ones unused
# What compiling costs grows with the patterns' RE2 programs (gitignore_lines.program_size):
# a real ignore file's line is 7-35 instructions, a line of 250 `?` is 2,000. One folder's
# ignore files are compiled up to this many, the lines past it left out and named: 1,024
# lines of `?` runs (2,000,000) took 3 CPU s on the writer thread, six of them stalled
# another root's save for 36 s (attack49b). At the cap a folder costs about 0.4 CPU s.
MAX_PROGRAM_PER_FOLDER = 256_000
MAX_PROGRAM_PER_PATH = 1_024_000  # summed over the ignore files above a path, as above
# What the compiled sets hold in memory grows with the program too, about 8 MB per folder
# at the cap: thirty such folders in one root held 424 MB (attack50). Summed over every
# folder's own ignore files in one root, at most this many; a folder read past it is named
# and its ignore files left out (as past the per-path sum) until it is read again (its
# ignore file changes, a rescan). Per root, so that one root's files (a cloned repository
# of heavy ignore files) never leave another root's `.ragignore` unapplied (review51). A
# real ignore file's 100 lines are about 2,500 instructions, so this is some 1,600 of them.
MAX_PROGRAM_TOTAL = 4_096_000
# Invalidations remembered so a compile under way can tell whether one touched its folder
# (a compile older than all of them is redone: it cannot tell).
MAX_CHANGES_KEPT = 4096


@dataclass(frozen=True)
class _Spec:
    """One folder's ignore files, compiled: a path (a folder's with a trailing "/") is
    decided by the last line naming it itself (`gitignore_lines`); the folders above it
    are decided on their own on the way down."""

    base: str  # the folder holding the ignore files, relative to the root ("" or "a/b/")
    lines: IgnoreLines
    program: int  # RE2 instructions of its lines (MAX_PROGRAM_PER_PATH)


@dataclass
class _Folder:
    excluded: bool
    specs: tuple[_Spec, ...]  # root's first, this folder's own last
    own_program: int = 0  # RE2 instructions of this folder's own ignore files (0: none)
    children: dict[str, _Folder] = field(default_factory=dict)

    def program_below(self) -> int:
        """The instructions of this folder's own ignore files and of every folder under it."""
        total, todo = 0, [self]
        while todo:
            node = todo.pop()
            total += node.own_program
            todo.extend(node.children.values())
        return total


@dataclass(frozen=True)
class _Missing:
    """Where a look-up found no node yet: the parent to build below (None: the root's)."""

    parent: _Folder | None
    depth: int
    generation: int


class IgnoreRules:
    def __init__(self, names: Iterable[str] = (".gitignore", ".ragignore")) -> None:
        self.names = tuple(names)
        self._roots: dict[str, _Folder] = {}
        # The watcher and the writer thread both look up. The lock guards the tree only:
        # ignore files are read and compiled outside it, so one slow folder never holds
        # up look-ups elsewhere; `_generation` tells a build that the tree changed meanwhile,
        # `_changes` where: only a change to its own folder or one above redoes a build, so
        # changes elsewhere, however frequent, cannot make a look-up start over for ever.
        self._lock = threading.Lock()
        self._generation = 0
        self._changes: deque[tuple[int, str | None, str]] = deque(maxlen=MAX_CHANGES_KEPT)
        self._problems: dict[tuple[str, str], str] = {}  # (root, ignore file) → why
        # instructions compiled into each root's nodes (MAX_PROGRAM_TOTAL)
        self._program: dict[str, int] = {}

    def is_ignore_file(self, name: str) -> bool:
        return name in self.names

    def excluded(self, root: str, relative: PurePath, is_dir: bool) -> bool:
        """Do the ignore files exclude this path (relative to `root`)?"""
        parts = relative.parts
        if not self.names or not parts:
            return False
        if is_dir:
            return self._folder(root, parts).excluded
        parent = self._folder(root, parts[:-1])
        return parent.excluded or _verdict(parent.specs, relative.as_posix(), False)

    def problems(self) -> list[tuple[str, str, str]]:
        """(root, ignore file, why) for each ignore file not applied in full."""
        with self._lock:
            return [(root, rel, why) for (root, rel), why in sorted(self._problems.items())]

    def invalidate(self, root: str, folder: str = "") -> None:
        """Forget what is known about a folder (relative to `root`) and everything under it."""
        with self._lock:
            self._generation += 1
            self._changes.append((self._generation, root, folder))
            prefix = f"{folder}/" if folder else ""
            for key in [k for k in self._problems if k[0] == root and k[1].startswith(prefix)]:
                del self._problems[key]
            if not folder:
                self._forget(root, self._roots.pop(root, None))
                self._program.pop(root, None)  # (0 now; a root forgotten for good goes)
                return
            *parents, name = folder.split("/")
            node = self._roots.get(root)
            for part in parents:
                node = node.children.get(part) if node is not None else None
            if node is not None:
                self._forget(root, node.children.pop(name, None))

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._changes.append((self._generation, None, ""))  # None: every root
            self._roots.clear()
            self._problems.clear()
            self._program.clear()

    def _forget(self, root: str, node: _Folder | None) -> None:
        """Release what a dropped subtree's ignore files held (called with the lock held)."""
        if node is not None:
            self._program[root] = self._program.get(root, 0) - node.program_below()

    def _folder(self, root: str, parts: Sequence[str]) -> _Folder:
        """The node of a folder, built (and its ignore files read) on first use. Below an
        excluded folder nothing is built: the excluded ancestor answers for all of it."""
        while True:
            with self._lock:
                found = self._find(root, parts)
            if isinstance(found, _Folder):
                return found
            built, problems = self._build(root, parts, found)
            rel = "" if found.parent is None else "/".join(parts[: found.depth + 1])
            with self._lock:
                if self._stale(root, rel, found.generation):
                    continue  # its folder or one above changed while reading: read again
                self._problems.update(problems)
                siblings = self._roots if found.parent is None else found.parent.children
                name = root if found.parent is None else parts[found.depth]
                if siblings.setdefault(name, built) is built:
                    self._program[root] = self._program.get(root, 0) + built.own_program

    def _stale(self, root: str, rel: str, since: int) -> bool:
        """Did an invalidation after generation `since` touch folder `rel` or one above it?
        (Called with the lock held.)"""
        if since == self._generation:
            return False
        if not self._changes or self._changes[0][0] > since + 1:
            return True  # older than every change remembered: cannot tell
        for generation, changed_root, folder in reversed(self._changes):
            if generation <= since:
                return False
            if changed_root is None or (
                changed_root == root
                and (not folder or rel == folder or rel.startswith(f"{folder}/"))
            ):
                return True
        return False

    def _find(self, root: str, parts: Sequence[str]) -> _Folder | _Missing:
        node = self._roots.get(root)
        if node is None:
            return _Missing(None, -1, self._generation)
        for depth, part in enumerate(parts):
            if node.excluded:
                return node
            child = node.children.get(part)
            if child is None:
                return _Missing(node, depth, self._generation)
            node = child
        return node

    def _build(
        self, root: str, parts: Sequence[str], missing: _Missing
    ) -> tuple[_Folder, dict[tuple[str, str], str]]:
        """The missing node, from its parent's and its own ignore files (no lock held)."""
        if missing.parent is None:
            inherited: tuple[_Spec, ...] = ()
            rel = ""
        else:
            rel = "/".join(parts[: missing.depth + 1])
            inherited = missing.parent.specs
            if _verdict(inherited, rel, True):
                return _Folder(True, inherited), {}
        specs, problems = self._own_specs(inherited, root, rel)
        own = specs[-1].program if len(specs) > len(inherited) else 0
        return _Folder(False, specs, own), problems

    def _own_specs(
        self, inherited: tuple[_Spec, ...], root: str, rel: str
    ) -> tuple[tuple[_Spec, ...], dict[tuple[str, str], str]]:
        """The specs that apply in folder `rel`: the inherited ones and its own files'."""
        base = f"{rel}/" if rel else ""
        problems: dict[tuple[str, str], str] = {}
        budget = MAX_PATTERNS_PER_PATH - sum(s.lines.patterns for s in inherited)
        path_program = MAX_PROGRAM_PER_PATH - sum(s.program for s in inherited)
        # Read without the lock: builds under way at once may together pass the total by
        # what each may compile (MAX_PROGRAM_PER_FOLDER), no more.
        tree_program = MAX_PROGRAM_TOTAL - self._program.get(root, 0)
        lines: list[str] = []
        program = 0
        for name in self.names:
            own, why = _usable_lines(_read_lines(Path(root, rel, name)))
            if own and len(lines) + len(own) > budget:
                why = f"not applied: over {MAX_PATTERNS_PER_PATH} patterns would apply below it"
                own = []
            left = {
                f"{MAX_PROGRAM_PER_FOLDER:,} allowed per folder": MAX_PROGRAM_PER_FOLDER - program,
                f"{MAX_PROGRAM_PER_PATH:,} allowed summed over the ignore files above a path": (
                    path_program - program
                ),
                f"{MAX_PROGRAM_TOTAL:,} allowed summed over the root's ignore files": (
                    tree_program - program
                ),
            }
            kept, cost = _affordable(own, min(left.values()))
            if len(kept) < len(own):
                over = _over_program(len(own) - len(kept), min(left, key=left.__getitem__))
                why = f"{why}; of those, {over}" if why else over
                own = kept
            program += cost
            if why:
                problems[(root, base + name)] = why
                log.warning("ignore file %s: %s", base + name, why)
            lines.extend(own)
        spec = _compile(lines, base or ".")
        if spec is None:
            return inherited, problems
        return (*inherited, _Spec(base, spec, program)), problems


def _affordable(lines: list[str], budget: int) -> tuple[list[str], int]:
    """The leading lines whose patterns compile within `budget` RE2 instructions, and
    their sum. Only the lines kept are compiled, so this costs at most the budget."""
    spent = 0
    for count, line in enumerate(lines):
        try:
            cost = program_size(line)
        except PATTERN_ERRORS:
            cost = 0  # left out, with a warning, when the folder's lines are compiled
        if spent + cost > budget:
            return lines[:count], spent
        spent += cost
    return lines, spent


def _over_program(left_out: int, allowed: str) -> str:
    return (
        f"its last {left_out} lines left out: with them its patterns would compile to "
        f"more RE2 instructions than the {allowed}"
    )


def _verdict(specs: tuple[_Spec, ...], path: str, is_dir: bool) -> bool:
    """git's decision for one path whose folders are not excluded: the deepest ignore file
    with a matching pattern decides (the last matching pattern within it)."""
    for entry in reversed(specs):
        local = path[len(entry.base) :]
        verdict = entry.lines.verdict(f"{local}/" if is_dir else local)
        if verdict is not None:
            return verdict
    return False


def _read_lines(path: Path) -> list[str]:
    """An ignore file's lines; [] if absent, not a regular file (a symlink is not
    followed, as git does not), or unreadable."""
    data = read_head(path, MAX_IGNORE_FILE_BYTES, follow_links=False)
    return [] if data is None else data.decode("utf-8", errors="replace").splitlines()


def _usable_lines(lines: list[str]) -> tuple[list[str], str]:
    """The lines within the caps, and what was left out ("" when nothing)."""
    left_out = []
    if len(lines) > MAX_PATTERNS:
        left_out.append(f"only its first {MAX_PATTERNS} lines are applied")
        lines = lines[:MAX_PATTERNS]
    short = [line for line in lines if len(line) <= MAX_PATTERN_CHARS]
    if len(short) < len(lines):
        left_out.append(
            f"{len(lines) - len(short)} lines longer than {MAX_PATTERN_CHARS} characters left out"
        )
    return short, "; ".join(left_out)


def _compile(lines: list[str], where: str) -> IgnoreLines | None:
    """The folder's spec; None when it has no pattern.
    A pattern pathspec or RE2 rejects is left out (with a warning) instead of voiding the
    file: one such line had stopped the whole root's indexing ("[9-0].log") or let every
    file the others keep out be indexed ("[[:foo:]]")."""
    try:
        spec = spec_of(lines)
    except PATTERN_ERRORS:
        good = []
        for line in lines:
            if compiles(line):
                good.append(line)
            else:
                log.warning("ignore file in %s: invalid pattern %r left out", where, line)
        # Each good line compiles alone, and spec_of splits lines RE2 cannot hold in
        # one set until each part compiles: this compiles.
        spec = spec_of(good)
    return spec if spec.patterns else None  # (blank lines and comments only: none)


@dataclass(frozen=True)
class SettingLines:
    """The `exclude` setting's patterns read as the lines of one ignore file at the top of
    each root, its paths relative to the root as an ignore file's there are."""

    lines: IgnoreLines

    def excludes_folder(self, parts: Sequence[str]) -> bool:
        """Is this folder or one above it excluded? git enters no excluded folder, so a
        later `!private/ok/` lets nothing under `private/` back in."""
        return any(
            self.lines.verdict("/".join(parts[:depth]) + "/") for depth in range(1, len(parts) + 1)
        )

    def verdict(self, path: str) -> bool | None:
        """For a file (its folders not excluded): True excluded, False let back in by a
        negation (`!keep.md`), None when no line names it."""
        return self.lines.verdict(path)


def setting_lines(patterns: Sequence[str]) -> SettingLines | None:
    """The `exclude` setting as ignore-file lines (None: no pattern)."""
    spec = _compile(list(patterns), "the exclude setting")
    return None if spec is None else SettingLines(spec)
