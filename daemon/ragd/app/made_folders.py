"""The folders a start-up made, so that a start refused before it served takes them away.

`ragd serve --data-dir NEW --socket NEWDIR/s.sock` makes both folders (and any missing
parents) before it knows whether it may serve: another daemon may hold the data dir, or the
bind may fail. A refused start that left them behind was litter the user had to find and
remove; one that removed more than it made would delete the user's own folders. So only the
folders noted here — missing before, there after — are removed, innermost first, and only
while they are empty: anything put in them meanwhile keeps its folder.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path


def missing_folders(folder: Path) -> list[Path]:
    """`folder` and those of its parents that do not exist yet, outermost first.

    A `..` after a missing folder is read as the folder above it: the start makes that
    folder itself (no link), so that is where the kernel will go. Asked as written,
    `NOTYET/../theirs` "did not exist" while NOTYET was missing, and a refused start
    given `--data-dir NOTYET/../theirs/data` removed the user's empty folder `theirs`."""
    missing: list[Path] = []
    at = Path(folder.anchor or ".")
    for part in folder.parts[1 if folder.anchor else 0 :]:
        if part == ".." and at in missing:
            at = at.parent
            continue
        at = at / part
        if not os.path.lexists(at):
            missing.append(at)
    return missing


def _is_folder(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


class MadeFolders:
    def __init__(self) -> None:
        self._made: list[Path] = []

    @contextlib.contextmanager
    def making(self, folder: Path) -> Iterator[None]:
        """Note which of `folder` and its parents the block makes; noted even when the
        block raises after making some (a parent made, then the folder refused)."""
        missing = missing_folders(folder)
        try:
            yield
        finally:
            self._made.extend(path for path in missing if _is_folder(path))

    def remove(self) -> None:
        """Remove the noted folders, the last made first; a folder no longer empty stays."""
        while self._made:
            with contextlib.suppress(OSError):
                os.rmdir(self._made.pop())
