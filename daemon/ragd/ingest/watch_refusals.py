"""The folders inside a root the kernel refused to watch, as watchdog sets their watches.

A recursive watch is one inotify watch per folder. watchdog 7 sets them at `schedule`
(a walk of the root), when a folder is created or moved in, and again after a queue
overflow; for every folder but the root itself 7.1.0 swallows the kernel's refusal
(`InotifyWatchGroup._add_callback`: `except OSError`, re-raised only for the root; 7.1.1
re-raises a refusal for want of watches during the first walk, which gave up the whole
root, so such a refusal reaches it as one it skips: `_NotingInotifyFD.add_callback`). With
the user's watches used up partway down a tree (`fs.inotify.max_user_watches`, shared
with every program of the user), the folders past the limit were skipped without a
word, and edits in them never reached the index.

Every one of those watches is asked of `InotifyFD.add_callback`, before watchdog sees the
error, so the observer is built on an `InotifyFD` that notes each refusal and each later
success (`Refusals`); the watcher reads them to say the root is partly watched and to
rescan it. Notes are made on whichever thread sets the watch (the watcher's, or
watchdog's inotify reader for a new folder) under this module's own lock only: taking
the watcher's lock there would deadlock against a `schedule` holding it.
"""

from __future__ import annotations

import errno
import os
import threading
from dataclasses import dataclass

from watchdog.observers.api import DEFAULT_OBSERVER_TIMEOUT, BaseObserver
from watchdog.observers.inotify import InotifyObserver
from watchdog.observers.inotify_c import CallbackId, InotifyFD, Mask, WatchCallback, WatchDescriptor

from ragd.core.names import name_key
from ragd.ingest.kept_watches import KeptWatchEmitter


@dataclass(frozen=True)
class Refused:
    """A root's folders without a watch: how many, the first refused, and why."""

    folders: int
    first: str
    why: str


class Refusals:
    """root → {folder under it (relative) → why its watch was refused}."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_root: dict[str, dict[str, str]] = {}

    def refused(self, root: str, folder: str, why: str) -> None:
        with self._lock:
            self._by_root.setdefault(root, {})[folder] = why

    def granted(self, root: str, folder: str) -> None:
        with self._lock:
            folders = self._by_root.get(root)
            if folders is not None:
                folders.pop(folder, None)

    def clear(self, root: str) -> None:
        """Forget a root's refusals (its watches are being set afresh, or dropped)."""
        with self._lock:
            self._by_root.pop(root, None)

    def of(self, root: str) -> Refused | None:
        with self._lock:
            folders = self._by_root.get(root)
            if not folders:
                return None
            first, why = next(iter(folders.items()))  # the first refused, in walk order
            return Refused(len(folders), first, why)


# The kernel's refusals for want of watches or instances (`fs.inotify.max_user_watches`).
_OUT_OF_WATCHES = frozenset({errno.ENOSPC, errno.EMFILE})
# A folder gone between its listing and its watch (moved or deleted meanwhile): no
# refusal. Its move or deletion is an event of the folder above, and a new place in a
# root is watched by that event. Noted, the root read "partly watched (No such file or
# directory)" and had its watches dropped and set again, and the root walked, 30 s on
# (bench/staleness_fuzz.py with moves weighted: 9 times in 253 bursts).
_GONE = frozenset({errno.ENOENT, errno.ENOTDIR})


class _NotingInotifyFD(InotifyFD):
    """watchdog's inotify instance, noting which folder watches the kernel refuses."""

    def __init__(self, refusals: Refusals) -> None:
        super().__init__()
        self._refusals = refusals

    def add_callback(
        self, path: bytes, mask: Mask, callback: WatchCallback, id_: CallbackId
    ) -> WatchDescriptor:
        # The watch group's own folder is the root it was scheduled for; a failure there
        # reaches `schedule`'s caller, so only the folders under it are noted here.
        root = getattr(callback, "path", None)
        inside = isinstance(root, bytes) and path != root
        try:
            wd = super().add_callback(path, mask, callback, id_)
        except OSError as exc:
            if not inside or exc.errno in _GONE:
                raise
            assert isinstance(root, bytes)
            self._refusals.refused(*_names(root, path), str(exc.strerror or exc))
            if exc.errno in _OUT_OF_WATCHES:
                # watchdog 7.1.1 gives up the whole root when a folder's watch is refused
                # for want of watches during its first walk (7.1.0 skipped the folder);
                # ragd watches what it can and rescans the rest, so the refusal, noted
                # above with its reason, goes on as one watchdog skips.
                raise OSError(errno.EACCES, "watch refused (noted by ragd)") from exc
            raise
        # A folder it may not read gives no error and no watch (wd -1): the scan reports
        # that one ("cannot read folder") and has its watches set again once readable.
        if inside and wd >= 0:
            assert isinstance(root, bytes)
            self._refusals.granted(*_names(root, path))
        return wd


def _names(root: bytes, path: bytes) -> tuple[str, str]:
    """The root as scheduled, and the folder as a key (`rag status` shows it)."""
    return os.fsdecode(root), name_key(os.fsdecode(os.path.relpath(path, root)))


class NotingObserver(InotifyObserver):
    """watchdog's inotify observer on an instance that notes refused folder watches
    (InotifyObserver's own constructor, with the instance chosen), whose emitters keep
    the watches of a folder moved out and back in (`ingest/kept_watches.py`)."""

    def __init__(self, refusals: Refusals) -> None:
        self._inotify_fd = _NotingInotifyFD(refusals)
        self._inotify_fd.start()
        BaseObserver.__init__(
            self, KeptWatchEmitter, timeout=DEFAULT_OBSERVER_TIMEOUT, inotify_fd=self._inotify_fd
        )
