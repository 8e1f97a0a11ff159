"""The folder walk: every document under a folder of a root, as (key, stat).

Used by the reconciler's scan (start-up, a folder created or moved in, a rescan after an
inotify overflow) and by `ragd check`, which must see exactly the files the daemon would
index, so both walk with the same `PathFilter`. Folders the filter prunes (skipped,
ignored) and the daemon's own data dir are never entered; the filter counts what it
leaves out for `rag status`. The walk reads names and stats only, never file contents.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from stat import S_ISLNK

from ragd.core.kernel_fs import kernel_filesystem
from ragd.core.names import clashes, name_key
from ragd.ingest.filters import PathFilter

__all__ = ["walk"]


def walk(
    base: Path,
    root: str,
    path_filter: PathFilter,
    follow_symlinks: bool,
    on_clash: Callable[[str], None] | None = None,
    on_unreadable: Callable[[str, OSError], None] | None = None,
) -> Iterator[tuple[str, os.stat_result]]:
    """Yield (key, stat) for every document under `base`, never leaving the root. The key
    is the path relative to the root, printable (`names.name_key`: the name itself unless
    it holds bytes that are not UTF-8); a name whose key is another file's literal name
    is passed to `on_clash` instead, and a folder that cannot be listed (no permission)
    to `on_unreadable` with the error (os.walk would skip it without a word)."""
    root_path = Path(root)
    walked: set[tuple[int, int]] = set()  # folders entered, by (device, inode)

    def unreadable(error: OSError) -> None:
        if on_unreadable is not None and error.filename is not None:
            rel = Path(os.fsdecode(error.filename)).relative_to(root_path)
            on_unreadable(
                name_key(PurePosixPath(*rel.parts).as_posix()) if rel.parts else "", error
            )

    for dirpath, dirnames, filenames in os.walk(
        base, onerror=unreadable, followlinks=follow_symlinks
    ):
        current = Path(dirpath)
        if follow_symlinks and not _first_visit(current, walked):
            # A link back up (`loop -> ..`) would be walked again below itself until the
            # kernel's 40-link limit, two such links 2^40 times: each folder once.
            dirnames[:] = []
            continue
        rel_dir = current.relative_to(root_path)
        dirnames[:] = [
            d for d in dirnames if _enters(path_filter, root, current, rel_dir, d, follow_symlinks)
        ]
        for name in filenames:
            rel = PurePosixPath(*rel_dir.parts, name).as_posix()
            key = name_key(rel)
            absolute = current / name
            if not path_filter.accepts(PurePosixPath(key), absolute, root, follow_symlinks):
                continue
            if clashes(root, key, rel):
                if on_clash is not None:
                    on_clash(key)
                continue
            try:
                st = os.stat(absolute, follow_symlinks=False)
            except OSError:
                continue  # vanished during the walk; its delete event will follow
            if follow_symlinks and S_ISLNK(st.st_mode) and path_filter.linked_into_a_root(absolute):
                continue  # (a folder link on the way was looked at by `_enters`)
            yield key, st


def _enters(
    path_filter: PathFilter, root: str, current: Path, rel_dir: Path, name: str, follow: bool
) -> bool:
    """Whether the walk goes into sub-folder `name` of `current`: not pruned by the
    filter (which counts it when it is), not the daemon's own data dir, and not another
    root, nor a link to what a root holds when links are followed (its files are
    that root's), nor, then, a folder on a kernel file system."""
    if path_filter.prunes(root, PurePosixPath(*rel_dir.parts, name)):
        return False
    folder = (current / name).absolute()
    data_dir = path_filter.data_dir
    if (data_dir is not None and folder == data_dir) or path_filter.in_deeper_root(root, folder):
        return False
    if not follow:
        return True  # (a root holding /proc or /sys is refused: `core/kernel_fs.py`)
    if folder.is_symlink() and path_filter.linked_into_a_root(folder):
        return False
    # Links followed lead anywhere: into /proc or /sys (`me -> /proc/self`), whose files
    # change at every read, or to `/`, which holds them. One statfs per folder.
    return kernel_filesystem(folder) is None


def _first_visit(folder: Path, walked: set[tuple[int, int]]) -> bool:
    try:
        st = os.stat(folder)
    except OSError:
        return False
    identity = (st.st_dev, st.st_ino)
    if identity in walked:
        return False
    walked.add(identity)
    return True
