"""Which paths are documents: one `PathFilter`, used by the start-up walk and the watcher.

Never indexed: hidden files and folders (any component starting with "."), folders of
installed code (`node_modules`, `__pycache__`, `site-packages`), editor and
download temporaries, the daemon's own data directory, and anything not matching the
include globs. The filter only looks at names; content checks (binary, size) happen in
the loaders, where the file is actually read.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable
from pathlib import Path, PurePath

# Folders of installed or generated code: thousands of files nobody asks questions about
# (now that source files are indexed, a project's node_modules would swamp its own code).
BULK_DIRS = frozenset({"node_modules", "__pycache__", "site-packages"})
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


class PathFilter:
    def __init__(
        self,
        include: Iterable[str],
        exclude: Iterable[str] = (),
        data_dir: Path | None = None,
    ) -> None:
        self.include = tuple(p.lower() for p in include)
        self.exclude = tuple(exclude)
        self.data_dir = data_dir.absolute() if data_dir else None
        # Files seen and left out only for their type, so `rag status` can say so.
        self._unsupported: dict[str, str] = {}

    def is_temp_name(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in TEMP_PATTERNS)

    def ignores_dir(self, relative: PurePath) -> bool:
        """True when nothing under this directory (relative to a root) may be indexed."""
        return any(part.startswith(".") or part in BULK_DIRS for part in relative.parts)

    def inside_data_dir(self, absolute: Path | None) -> bool:
        if self.data_dir is None or absolute is None:
            return False
        return absolute == self.data_dir or self.data_dir in absolute.parents

    def accepts(self, relative: PurePath, absolute: Path | None = None) -> bool:
        """Should the file at `relative` (to its root) be indexed?"""
        if not relative.parts or self.ignores_dir(relative.parent):
            return False
        name = relative.name
        if name.startswith(".") or self.is_temp_name(name):
            return False
        if self.inside_data_dir(absolute):
            return False
        rel = relative.as_posix()
        if any(fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(name, p) for p in self.exclude):
            return False
        lowered = name.lower()
        if any(fnmatch.fnmatchcase(lowered, pattern) for pattern in self.include):
            return True
        if absolute is not None and len(self._unsupported) < MAX_TRACKED:
            self._unsupported[str(absolute)] = PurePath(lowered).suffix or "(no extension)"
        return False

    def unsupported_types(self, roots: Iterable[str]) -> dict[str, int]:
        """Files under `roots` left out for their type (no include pattern): count per suffix.

        Only files still there count, so a deleted one drops out without an event.
        """
        prefixes = tuple(os.path.join(root, "") for root in roots)
        counts: dict[str, int] = {}
        for path, suffix in list(self._unsupported.items()):
            if path.startswith(prefixes) and os.path.lexists(path):
                counts[suffix] = counts.get(suffix, 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
