"""Ignore files (`.gitignore`, `.ragignore`) inside the watched roots, with git's rules.

A pattern applies to the folder holding its file and to everything below it. Deeper files
win over shallower ones; in one folder a later name in `ignore_files` wins over an earlier
one (`.ragignore` over `.gitignore`); within a file the last matching pattern wins, so
`!pattern` re-includes. A folder that is excluded is not entered: nothing under it can be
re-included and the ignore files inside it are never read, as in git. Only ignore files
inside a root count (a `.gitignore` above the watched folder does not).

The patterns are compiled by pathspec (`GitIgnoreSpec`) once per folder, into a tree of
the folders looked at so far; each node keeps whether the folder is excluded and the specs
that apply in it, so a look-up costs one dict step per path component plus the regex
matches of the specs that apply. `invalidate` drops a folder's node and everything below
it (their decisions derive from it); the next look-up reads its ignore files again.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath

from pathspec import GitIgnoreSpec, PathSpec

log = logging.getLogger("ragd.ignore")

# Bounds on what one folder's ignore files may cost: every document under the folder is
# matched against each pattern (≈ 1 µs each), and real ignore files hold tens to hundreds.
MAX_IGNORE_FILE_BYTES = 256 * 1024  # a larger ignore file is read up to this much
MAX_PATTERNS = 4096  # per folder; the lines after it are left out, with a warning


@dataclass(frozen=True)
class _Spec:
    """One folder's ignore files, compiled twice: pathspec's `GitIgnoreSpec` decides for
    files (a pattern naming the file outranks one that only names a folder above it);
    asked about a folder it can rank a plain pattern above a later `!dir/`, so folders
    are decided by plain last-match-wins over the same patterns (`PathSpec`). Since the
    folders above are known not to be excluded, that errs only towards entering."""

    base: str  # the folder holding the ignore files, relative to the root ("" or "a/b/")
    files: GitIgnoreSpec
    folders: PathSpec


@dataclass
class _Folder:
    excluded: bool
    specs: tuple[_Spec, ...]  # root's first, this folder's own last
    children: dict[str, _Folder] = field(default_factory=dict)


class IgnoreRules:
    def __init__(self, names: Iterable[str] = (".gitignore", ".ragignore")) -> None:
        self.names = tuple(names)
        self._roots: dict[str, _Folder] = {}
        self._lock = threading.Lock()  # the watcher and the writer thread both look up

    def is_ignore_file(self, name: str) -> bool:
        return name in self.names

    def excluded(self, root: str, relative: PurePath, is_dir: bool) -> bool:
        """Do the ignore files exclude this path (relative to `root`)?"""
        parts = relative.parts
        if not self.names or not parts:
            return False
        with self._lock:
            if is_dir:
                return self._folder(root, parts).excluded
            parent = self._folder(root, parts[:-1])
        return parent.excluded or _verdict(parent.specs, relative.as_posix(), False)

    def invalidate(self, root: str, folder: str = "") -> None:
        """Forget what is known about a folder (relative to `root`) and everything under it."""
        with self._lock:
            if not folder:
                self._roots.pop(root, None)
                return
            *parents, name = folder.split("/")
            node = self._roots.get(root)
            for part in parents:
                node = node.children.get(part) if node is not None else None
            if node is not None:
                node.children.pop(name, None)

    def clear(self) -> None:
        with self._lock:
            self._roots.clear()

    def _folder(self, root: str, parts: Sequence[str]) -> _Folder:
        """The node of a folder, built (and its ignore files read) on first use. Below an
        excluded folder nothing is built: the excluded ancestor answers for all of it."""
        node = self._roots.get(root)
        if node is None:
            node = self._roots[root] = _Folder(False, self._own_specs((), root, ""))
        for depth, part in enumerate(parts):
            if node.excluded:
                return node
            child = node.children.get(part)
            if child is None:
                rel = "/".join(parts[: depth + 1])
                excluded = _verdict(node.specs, rel, True)
                specs = node.specs if excluded else self._own_specs(node.specs, root, rel)
                child = node.children[part] = _Folder(excluded, specs)
            node = child
        return node

    def _own_specs(self, inherited: tuple[_Spec, ...], root: str, rel: str) -> tuple[_Spec, ...]:
        lines: list[str] = []
        for name in self.names:
            lines.extend(_read_lines(Path(root, rel, name)))
        spec = _compile(lines, f"{rel}/" if rel else "")
        if spec is None:
            return inherited
        return (*inherited, _Spec(f"{rel}/" if rel else "", spec, PathSpec(spec.patterns)))


def _verdict(specs: tuple[_Spec, ...], path: str, is_dir: bool) -> bool:
    """git's decision for one path whose folders are not excluded: the deepest ignore file
    with a matching pattern decides (the last matching pattern within it)."""
    for entry in reversed(specs):
        local = path[len(entry.base) :]
        if is_dir:
            include = entry.folders.check_file(local + "/").include
        else:
            include = entry.files.check_file(local).include
        if include is not None:
            return include
    return False


def _read_lines(path: Path) -> list[str]:
    """An ignore file's lines; [] if absent, not a regular file (a symlink is not
    followed, as git does not), or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return []
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return []
        data = os.read(fd, MAX_IGNORE_FILE_BYTES)
    except OSError:
        return []
    finally:
        os.close(fd)
    return data.decode("utf-8", errors="replace").splitlines()


def _compile(lines: list[str], where: str) -> GitIgnoreSpec | None:
    """The folder's spec, or None when it has no pattern. A pattern pathspec rejects is
    left out (with a warning) instead of voiding the whole file."""
    if len(lines) > MAX_PATTERNS:
        log.warning("ignore files in %s: only the first %d lines used", where or ".", MAX_PATTERNS)
        lines = lines[:MAX_PATTERNS]
    try:
        spec = GitIgnoreSpec.from_lines(lines)
    except ValueError:
        good = []
        for line in lines:
            try:
                GitIgnoreSpec.from_lines([line])
            except ValueError:
                log.warning("ignore file in %s: invalid pattern %r left out", where or ".", line)
                continue
            good.append(line)
        spec = GitIgnoreSpec.from_lines(good)
    # Blank lines and comments compile to patterns that match nothing.
    return spec if any(p.include is not None for p in spec.patterns) else None
