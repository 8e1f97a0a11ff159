"""Which paths are documents: one `PathFilter`, used by the start-up walk and the watcher.

Never indexed: hidden files, folders whose name matches `skip_folders` (hidden ones and
the usual bulk: `.git`, `node_modules`, `.venv`, `__pycache__` …), paths the ignore files
exclude (`ingest.ignore`), editor and download temporaries, the daemon's own data
directory, another watched root inside this one (its files are that root's), and anything
not matching the include globs. The filter only looks at names
(and ignore files); content checks (binary, size) happen in the loaders.

Given the root, the filter also keeps the tally `rag status` shows: documents (by name)
and folders left out by the ignore rules, and the files left out only for their type
(`skipped_types`), as last seen by a walk or a sync and dropped when the watcher reports
them deleted. `status` reads the tally only: it never asks the disk, which may hang (a
network mount), and the server loop must not wait on it.
"""

from __future__ import annotations

import fnmatch
import os
import re
import threading
from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from pathlib import Path, PurePath
from typing import Protocol

from ragd.core.config import SKIP_FOLDERS
from ragd.core.roots import Roots
from ragd.ingest.ignore import IgnoreRules


class FilterSettings(Protocol):
    """The settings a PathFilter is built from (ragd.core.config.Settings has them; this module
    does not import it, since the settings take their defaults from here)."""

    @property
    def include(self) -> tuple[str, ...]: ...
    @property
    def exclude(self) -> tuple[str, ...]: ...
    @property
    def skip_folders(self) -> tuple[str, ...]: ...
    @property
    def ignore_files(self) -> tuple[str, ...]: ...
    @property
    def data_path(self) -> Path: ...


MAX_TRACKED = 100_000  # unsupported files remembered for the status count

# Names editors, office suites and downloaders use for scratch files.
TEMP_PATTERNS = (
    "*.swp",
    "*.swo",
    "*.swx",
    "*~",
    ".#*",
    "#*#",
    "*.tmp",
    "*.temp",
    "*.bak",
    "*.part",
    "*.crdownload",
    "~$*",
    "4913",  # vim probes directory writability with this name
)


def _one_regex(globs: Iterable[str]) -> re.Pattern[str]:
    """Matches a name any of the globs matches (fnmatchcase's rules); none: nothing."""
    return re.compile("|".join(fnmatch.translate(g) for g in globs) or "(?!)")


_TEMP = _one_regex(TEMP_PATTERNS)


class IgnoredTally:
    """Per root: the documents and folders the ignore rules left out, and the files left
    out for their type (with their suffix), for `rag status`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._files: dict[str, set[str]] = {}
        self._folders: dict[str, set[str]] = {}
        self._types: dict[str, dict[str, str]] = {}  # root → relpath → suffix
        self._typed = 0  # entries in _types, capped at MAX_TRACKED

    def mark(self, root: str, relpath: str, ignored: bool, folder: bool = False) -> None:
        with self._lock:
            kept = (self._folders if folder else self._files).setdefault(root, set())
            if ignored:
                kept.add(relpath)
            else:
                kept.discard(relpath)

    def mark_type(self, root: str, relpath: str, suffix: str) -> None:
        with self._lock:
            kept = self._types.setdefault(root, {})
            if relpath not in kept and self._typed >= MAX_TRACKED:
                return
            self._typed += relpath not in kept
            kept[relpath] = suffix

    def clear_under(self, root: str, relpath: str = "") -> None:
        """A walk of this folder starts: what it finds replaces what was known under it."""
        prefix = relpath + "/" if relpath else ""
        with self._lock:
            self._drop(root, lambda p: p.startswith(prefix))

    def gone(self, root: str, relpath: str) -> None:
        """The watcher saw this path deleted (or moved away): it, and all under it."""
        prefix = relpath + "/"
        with self._lock:
            self._drop(root, lambda p: p == relpath or p.startswith(prefix))

    def _drop(self, root: str, under: Callable[[str], bool]) -> None:
        for kept in (self._files.get(root), self._folders.get(root)):
            if kept:
                kept.difference_update([p for p in kept if under(p)])
        types = self._types.get(root, {})
        for path in [p for p in types if under(p)]:
            del types[path]
            self._typed -= 1

    def types(self, roots: Iterable[str]) -> dict[str, int]:
        """Files under `roots` left out for their type (no include pattern): count per
        suffix, the most frequent first."""
        counts: dict[str, int] = {}
        with self._lock:
            for root in roots:
                for suffix in self._types.get(root, {}).values():
                    counts[suffix] = counts.get(suffix, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def counts(self, roots: Iterable[str]) -> dict[str, int]:
        with self._lock:
            return {
                "files": sum(len(self._files.get(r, ())) for r in roots),
                "folders": sum(len(self._folders.get(r, ())) for r in roots),
            }


class PathFilter:
    def __init__(
        self,
        include: Iterable[str],
        exclude: Iterable[str] = (),
        data_dir: Path | None = None,
        skip_folders: Iterable[str] = SKIP_FOLDERS,
        ignore_files: Iterable[str] = (".gitignore", ".ragignore"),
        roots: Roots | None = None,  # the watched roots, when one may hold another
    ) -> None:
        self.roots = roots
        self.include = tuple(p.lower() for p in include)
        self.exclude = tuple(exclude)
        self.data_dir = data_dir.absolute() if data_dir else None
        self.skip_folders = tuple(skip_folders)
        # One regex for all the folder globs: checked for every component of every path.
        # Each glob list as one regex: these run for every path the walk and the watcher see.
        self._skip = _one_regex(self.skip_folders)
        self._include = _one_regex(self.include)
        self.rules = IgnoreRules(ignore_files)
        self.tally = IgnoredTally()

    @classmethod
    def from_settings(cls, settings: FilterSettings, roots: Roots | None = None) -> PathFilter:
        """The filter the daemon uses; `ragd check` must walk with the very same one."""
        return cls(
            settings.include,
            settings.exclude,
            settings.data_path,
            settings.skip_folders,
            settings.ignore_files,
            roots,
        )

    def is_temp_name(self, name: str) -> bool:
        return _TEMP.match(name) is not None

    def is_ignore_file(self, name: str) -> bool:
        return self.rules.is_ignore_file(name)

    def skips_folder_name(self, name: str) -> bool:
        return self._skip.match(name) is not None

    def ignores_dir(self, relative: PurePath, root: str | None = None) -> bool:
        """True when nothing under this directory (relative to a root) may be indexed.
        Without `root` only names are looked at, not ignore files."""
        if any(self.skips_folder_name(part) for part in relative.parts):
            return True
        return root is not None and self.rules.excluded(root, relative, is_dir=True)

    def prunes(self, root: str, relative: PurePath) -> bool:
        """The walk's question for a sub-folder it found; counted in the tally when yes."""
        pruned = self.ignores_dir(relative, root)
        if pruned:
            self.tally.mark(root, relative.as_posix(), True, folder=True)
        return pruned

    def inside_data_dir(self, absolute: Path | None) -> bool:
        if self.data_dir is None or absolute is None:
            return False
        return absolute == self.data_dir or self.data_dir in absolute.parents

    def in_deeper_root(self, root: str, absolute: Path | None) -> bool:
        """Is this path under `root` another watched root, or inside one? It is that
        root's: the deepest root holding a path owns it, as `Roots.locate` (which the
        watcher follows) says. Walked from the outer root too, a file was indexed twice,
        and an edit or a delete reached only the inner root's copy: the outer one stayed
        stale, its deleted text still answered."""
        if self.roots is None or absolute is None:
            return False
        owner = self.roots.locate(absolute)
        return owner is not None and owner[0] != root

    def linked_into_a_root(self, absolute: Path) -> bool:
        """With `follow_symlinks`: does this path lead, through a link on its way, to what
        a root holds under its own name (another root's files, or this root's elsewhere,
        `up -> ..`), or to a folder holding a root? Those files are indexed where they
        are. A link `work/n -> ../notes` (notes a root) indexed every file of notes a
        second time, under `work/n/`, and an edit reached only notes's copy (inotify
        reports it under notes; no watch follows the link): `work/n/…` kept the old text.
        Stats every folder on the way: the writer's thread only."""
        if self.roots is None:
            return False
        real = Path(os.path.realpath(absolute))
        if real == Path(os.path.abspath(absolute)):
            return False  # no link on the way
        return self.roots.locate(real) is not None or any(
            Path(root).is_relative_to(real) for root in self.roots
        )

    def accepts(
        self, relative: PurePath, absolute: Path | None = None, root: str | None = None
    ) -> bool:
        """Should the file at `relative` (to its root) be indexed? With `root`, the ignore
        files are consulted too and the decision is counted in the tally."""
        if not relative.parts:
            return False
        name = relative.name
        if self.is_temp_name(name) or self.inside_data_dir(absolute):
            return False
        if root is not None and self.in_deeper_root(root, absolute):
            return False
        if self.ignores_dir(relative.parent, root):
            return False  # the folder is counted (by the walk), not each file in it
        rel = relative.as_posix()
        lowered = name.lower()
        if self._include.match(lowered) is None:
            # Not a document by its name: not counted as ignored, but as a skipped type
            # unless the ignore rules leave it out anyway.
            if root is not None and not self._ignored(root, relative, rel, name):
                self.tally.mark_type(root, rel, PurePath(lowered).suffix or "(no extension)")
            return False
        ignored = self._ignored(root, relative, rel, name)
        if root is not None:
            self.tally.mark(root, rel, ignored)
        return not ignored

    def _ignored(self, root: str | None, relative: PurePath, rel: str, name: str) -> bool:
        """Hidden, excluded by the `exclude` globs, or (given the root) by ignore files."""
        return (
            name.startswith(".")
            or any(fnmatchcase(rel, p) or fnmatchcase(name, p) for p in self.exclude)
            or (root is not None and self.rules.excluded(root, relative, is_dir=False))
        )
