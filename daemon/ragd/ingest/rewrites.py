"""Files whose bytes changed although their stat says they did not.

The writer trusts a file whose size and mtime equal what is indexed without reading it:
that is what makes a scan of 100,000 unchanged files cheap. Two cases break that trust
while the daemon watches, and both are handled here, on the queue the watcher and the
reconciler share:

- Written, stat as before. `cp --preserve=timestamps`, `rsync -t`, `touch -d` after a
  save, or two saves of one size within a tick of the kernel's coarse clock leave size
  and mtime as indexed while the bytes changed. An event saying a file was written is
  the proof it may have changed, so a file an event names is read and hashed whatever
  its stat says (`Rewrites.mark`); a touch then costs one read, and the hash finds it
  unchanged.
- Hard links. One inode under several names in the roots: a save through one name
  changes the bytes under every name, but inotify reports only the name written
  through. The names of each inode with more than one link are remembered from the
  walks and the plans (`LinkedNames`), so new content planned under one name queues
  the others. A name added by `ln` while the daemon runs finds the names already there
  among the indexed files of its bytes (the kernel tells their folder nothing of it).

A mark is taken by the next sync of its path, so at most one per queued path lives.
"""

from __future__ import annotations

import os
import threading
from enum import Enum

Key = tuple[str, str]  # (root, relpath)


class Mark(Enum):
    WRITTEN = "written"  # an event named the file: read it, and tell its other names
    LINKED = "linked"  # another name of its inode got new content: read it, tell no one


class Rewrites:
    """Paths to read and hash on their next sync, whatever their stat says."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._marks: dict[Key, Mark] = {}
        self._stale: set[Key] = set()  # what they read beside them changed

    def mark(self, key: Key, mark: Mark = Mark.WRITTEN) -> None:
        with self._lock:
            if self._marks.get(key) is not Mark.WRITTEN:  # an event's mark is the stronger
                self._marks[key] = mark

    def take(self, key: Key) -> Mark | None:
        with self._lock:
            return self._marks.pop(key, None)

    def mark_stale(self, key: Key) -> None:
        """A file it read beside it changed: parse it even if its bytes are as indexed
        (`ingest/dependents.py`), whatever other mark it has."""
        with self._lock:
            self._stale.add(key)

    def is_stale(self, key: Key) -> bool:
        with self._lock:
            return key in self._stale

    def take_stale(self, key: Key) -> bool:
        with self._lock:
            if key not in self._stale:
                return False
            self._stale.discard(key)
            return True


class LinkedNames:
    """The names in the roots of each inode with more than one link, as last stat'ed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: dict[tuple[int, int], set[Key]] = {}
        self._inode: dict[Key, tuple[int, int]] = {}

    def note(self, key: Key, st: os.stat_result) -> None:
        """`key` was stat'ed as `st`: remembered if its inode has other links, else
        forgotten (an atomic save gave it an inode of its own)."""
        inode = (st.st_dev, st.st_ino)
        with self._lock:
            if self._inode.get(key) == inode and st.st_nlink > 1:
                return
            self._drop(key)
            if st.st_nlink > 1:
                self._inode[key] = inode
                self._names.setdefault(inode, set()).add(key)

    def inode_of(self, key: Key) -> tuple[int, int] | None:
        """The inode `key` was last stat'ed on, if it had other links then."""
        with self._lock:
            return self._inode.get(key)

    def names_on(self, inode: tuple[int, int]) -> list[Key]:
        """The names last seen on `inode`."""
        with self._lock:
            return sorted(self._names.get(inode, set()))

    def others(self, key: Key) -> list[Key]:
        """The other names last seen on `key`'s inode."""
        with self._lock:
            inode = self._inode.get(key)
            return sorted(self._names.get(inode, set()) - {key}) if inode else []

    def forget(self, key: Key) -> None:
        with self._lock:
            self._drop(key)

    def _drop(self, key: Key) -> None:
        inode = self._inode.pop(key, None)
        if inode is None:
            return
        names = self._names[inode]
        names.discard(key)
        if not names:
            del self._names[inode]
