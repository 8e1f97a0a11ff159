"""A folder moved out of a root and back in under another name keeps its watches.

watchdog 7 holds an unpaired IN_MOVED_FROM for half a second (its move-pairing delay)
before it reports the folder deleted and drops the watches of that folder and those
below it (`InotifyWatchGroup.remove_watched_directory`). inotify keeps one watch per
inode: when the folder comes back in within that half second (`mv notes/proj /tmp/x;
mv /tmp/x notes/proj2`, a script staging a folder outside, a file manager's undo), the
IN_MOVED_TO sets its watches again and gets the same watch descriptors, now named under
the new path; the delayed removal then took those descriptors off the kernel and
purged the events queued for them. Nothing under the folder was reported again, so its
files stayed as first indexed — edits, new notes and deletions there never reached the
index until a restart (found by `bench/staleness_fuzz.py`).

Here the removal leaves alone every descriptor that the group has since given to a
folder at another path (`_nodes_by_wd` names the node that holds it now): that folder
is the same inode, watched where it is.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

from watchdog.observers.inotify import InotifyEmitter, InotifyWatchGroup

# The IN_MOVED_TO's new watches reuse the folder's descriptors, each with this group's
# callback already on it: watchdog warns that it "will be overwritten" (by itself), one
# log line per folder naming its absolute path. Nothing is wrong then; nothing to say.
warnings.filterwarnings(
    "ignore", r"Callback with id '\d+' already exists for watch", RuntimeWarning
)

# watchdog's "no descriptor" (`inotify._INVALID_WD`, -1), spelled here rather than
# imported: it is private to watchdog.
_NO_WATCH = -1


class KeptWatchGroup(InotifyWatchGroup):
    """watchdog's watch group whose removal of a vanished folder spares the descriptors
    another folder of the group holds now."""

    def _remove_node_and_watches(self, node: Any, path: bytes) -> list[bytes]:
        # watchdog's private names, read defensively: a version without them gets its own
        # removal (the fault back, tests/daemon/test_folder_moved_out_and_back.py fails),
        # never an AttributeError that would end the watching thread.
        holders = getattr(self, "_nodes_by_wd", None)
        stack = [node] if isinstance(holders, dict) else []
        while stack:  # the removed subtree: bounded by the folders it had
            current = stack.pop()
            wd = getattr(current, "wd", _NO_WATCH)
            if wd != _NO_WATCH and holders is not None and holders.get(wd) is not current:
                current.wd = _NO_WATCH  # its inode is watched again at its new path
            stack.extend(getattr(current, "children", {}).values())
        removed: list[bytes] = super()._remove_node_and_watches(node, path)
        return removed


class KeptWatchEmitter(InotifyEmitter):
    """InotifyEmitter with a `KeptWatchGroup` (its own `on_thread_start`, the group
    chosen)."""

    def on_thread_start(self) -> None:
        self._inotify = KeptWatchGroup(
            self._inotify_fd,
            os.fsencode(self.watch.path),
            is_recursive=self.watch.is_recursive,
            event_mask=self.get_event_mask_from_filter(),
            follow_symlink=self.watch.follow_symlink,
        )
