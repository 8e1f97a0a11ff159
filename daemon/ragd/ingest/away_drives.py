"""A root whose drive is away: told from a folder the user emptied, without guessing.

A root that is a mount point (a USB disk, an fstab share that mounts late) shows, while
nothing is mounted there, the empty folder the mount covers. A daemon started then took
that folder for the root's contents and pruned every document, and the drive's return
indexed them all again (embedded again once the cache had been pruned). An empty folder
alone cannot say which it is: `rm -rf notes/*` leaves one too.

So each scan of a root's folder records, in the manifest, whether a file system was
mounted on the root's own folder (`/proc/self/mountinfo`, which a bind mount of a
folder of the same disk is in too, where `st_dev` would not differ). A root recorded so,
whose folder is now empty with nothing mounted on it, is a drive that is away: its
documents stay indexed, said once, and the drive's mount is a new folder at the root's
path, which the watcher watches afresh and syncs. A folder emptied while its file
system stays mounted, or one that never was a mount point, is pruned as before; a
folder that shows files of its own once unmounted is those files' folder, scanned as
such (and no longer recorded as a mount point).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

from ragd.core.mount_points import MOUNTINFO, read_mounts
from ragd.index.manifest import Manifest

log = logging.getLogger("ragd.indexer")

MOUNTED_ROOTS_KEY = "mounted_roots"  # manifest meta: the roots last scanned as mount points
NOT_MOUNTED = "not mounted"  # `rag status --json`'s why for such a root (beside the watcher's)


def empty(path: str) -> bool:
    """Is this folder empty, as a mount point is once its file system is unmounted? (A
    folder with files of its own under the mount shows them again: those are its
    contents, synced as a new folder's.)"""
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def drive_away(was_mounted: bool, mounted_now: bool, empty_now: bool) -> bool:
    """The rule: a root scanned on a file system mounted at its own folder, whose folder
    is now empty with nothing mounted there. Every other case is the folder's contents."""
    return was_mounted and not mounted_now and empty_now


class MountedRoots:
    """Which roots were last scanned on a file system mounted at their own folder (kept
    in the manifest across restarts), and which of them have their drive away now."""

    def __init__(
        self,
        manifest: Manifest,
        remember: Callable[[str, str], None],
        mountinfo: Path = MOUNTINFO,
    ) -> None:
        self._manifest = manifest
        self._remember = remember  # the writer's: it alone writes the manifest
        self._mountinfo = mountinfo
        # root → since when (the wall clock) its drive was found away: said once in the
        # log, and in `rag status` for as long as it is.
        self._away: dict[str, float] = {}

    def _recorded(self) -> list[str]:
        try:
            value = json.loads(self._manifest.get_meta(MOUNTED_ROOTS_KEY) or "[]")
        except ValueError:
            return []
        return [root for root in value if isinstance(root, str)] if isinstance(value, list) else []

    def _record(self, root: str, mounted: bool) -> None:
        recorded = self._recorded()
        if (root in recorded) == mounted:
            return  # no write: a scan of an unchanged root costs none
        kept = [r for r in recorded if r != root] + ([root] if mounted else [])
        self._remember(MOUNTED_ROOTS_KEY, json.dumps(sorted(kept)))

    def away(self, root: str) -> bool:
        """Before a scan of a root's whole folder: is its drive away (keep its documents)?
        Otherwise the record is brought up to date for the scan that follows."""
        mounted_now = os.path.realpath(root) in {p for p, _ in read_mounts(self._mountinfo)}
        if drive_away(root in self._recorded(), mounted_now, empty(root)):
            if root not in self._away:
                self._away[root] = time.time()
                log.warning(
                    "root %s: nothing is mounted on its folder, which is empty, though it "
                    "was a mount point when indexed (a drive or share not mounted yet?); "
                    "its documents stay indexed until it is mounted again",
                    Path(root).name,
                )
            return True
        self._away.pop(root, None)
        self._record(root, mounted_now)
        return False

    def forget(self, root: str) -> None:
        """A root left the watched set: nothing of it is kept."""
        self._away.pop(root, None)
        self._record(root, False)

    def away_now(self) -> dict[str, float]:
        """root → since when (`time.time()`) for each root whose drive is away."""
        return dict(self._away)  # one copy, made while holding the GIL
