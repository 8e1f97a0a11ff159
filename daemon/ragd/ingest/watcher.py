"""watchdog events → `sync` jobs on the index queue.

Events are only hints: every path an event names (both ends of a move) is queued as
"bring this path in line with the disk", and the indexer looks at the disk to decide.
That one rule covers the awkward cases watchdog reports: an editor's atomic save is a
move from a temp name onto the original (the temp end is filtered, the target is
synced), a folder moved out of a root arrives as a single `deleted` for the folder (the
sync prunes everything under it), a folder moved in arrives as `created` (the sync
scans it).

When more events arrive than the kernel's inotify queue holds (`max_queued_events`,
16,384 by default: 10,000 new files are ≈ 30,000 events), the kernel drops them and
watchdog only says so in a log record. That record is turned into a rescan of every
root (`_OverflowRescan`), so a burst never loses a file, and it is kept out of our log
because it names the root by its absolute path.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path, PurePosixPath

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ragd.ingest.filters import PathFilter
from ragd.ingest.work_queue import Job, WorkQueue, file_size
from ragd.roots import Roots

log = logging.getLogger("ragd.watcher")

IGNORED_EVENTS = {"opened", "closed_no_write"}
RESCAN_LOG_INTERVAL_S = 5.0
# The modules that report an inotify queue overflow (watchdog 6–7).
WATCHDOG_LOGGERS = ("watchdog.observers.inotify", "watchdog.observers.inotify_c")


class _OverflowRescan(logging.Filter):
    """Turns watchdog's "Inotify queue overflowed" log record into a rescan of the roots."""

    def __init__(self, watcher: Watcher) -> None:
        super().__init__()
        self.watcher = watcher

    def filter(self, record: logging.LogRecord) -> bool:
        if "overflow" not in str(record.msg).lower():
            return True
        self.watcher.rescan("the inotify event queue overflowed")
        return False


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in IGNORED_EVENTS:
            return
        paths = [event.src_path]
        if event.event_type == "moved":
            paths.append(event.dest_path)
        for path in paths:
            raw = os.fsdecode(path)  # bytes that are not UTF-8 become surrogates, not a crash
            self.watcher.notify(raw, event.is_directory)


class Watcher:
    def __init__(self, roots: Roots, path_filter: PathFilter, queue: WorkQueue) -> None:
        self.roots = roots
        self.filter = path_filter
        self.queue = queue
        self._observer = Observer()
        self._watches: dict[str, object] = {}
        self._handler = _Handler(self)
        self._overflow = _OverflowRescan(self)
        self._rescan_lock = threading.Lock()
        self._rescan_logged = -RESCAN_LOG_INTERVAL_S

    def start(self) -> None:
        for name in WATCHDOG_LOGGERS:
            logger = logging.getLogger(name)
            logger.addFilter(self._overflow)
            # A logger's filters only see records at or above its level.
            logger.setLevel(logging.WARNING)
        for root in self.roots:
            self.watch(root)
        self._observer.start()

    def rescan(self, why: str) -> None:
        """Events were lost: bring every root in line with the disk.

        The queue coalesces the root jobs, and one overflow is several watchdog records,
        so the log line is limited to one per RESCAN_LOG_INTERVAL_S."""
        self.filter.rules.clear()  # an ignore file's change may be among the lost events
        for root in self.roots:
            self.queue.put(Job("sync", root, ""))
        now = time.monotonic()
        with self._rescan_lock:
            if now - self._rescan_logged < RESCAN_LOG_INTERVAL_S:
                return
            self._rescan_logged = now
        log.warning("%s (events were lost); rescanning %d root(s)", why, len(self.roots))

    def watch(self, root: str) -> None:
        if root not in self._watches and Path(root).is_dir():
            self._watches[root] = self._observer.schedule(self._handler, root, recursive=True)

    def unwatch(self, root: str) -> None:
        self.filter.rules.invalidate(root)
        self.filter.tally.clear_under(root)
        watch = self._watches.pop(root, None)
        if watch is not None:
            self._observer.unschedule(watch)  # type: ignore[arg-type]

    def stop(self) -> None:
        self._observer.stop()
        self._observer.join(timeout=5)
        for name in WATCHDOG_LOGGERS:
            logging.getLogger(name).removeFilter(self._overflow)

    def _ignore_file_changed(self, root: str, folder: str) -> None:
        """An ignore file was saved, created or removed: re-read it, and bring the folder
        it governs in line (the scan prunes files now excluded, queues files let in)."""
        folder = "" if folder == "." else folder
        self.filter.rules.invalidate(root, folder)
        self.queue.put(Job("sync", root, folder))

    def notify(self, path: str, is_directory: bool) -> None:
        located = self.roots.locate(path)
        if located is None:
            return
        root, relpath = located
        if not relpath:
            return
        rel = PurePosixPath(relpath)
        if is_directory:
            # A folder created, moved or deleted: what was read of ignore files there is stale.
            self.filter.rules.invalidate(root, relpath)
        if self.filter.ignores_dir(rel if is_directory else rel.parent, root):
            return
        if self.filter.inside_data_dir(Path(path)):
            return
        if not is_directory and self.filter.is_ignore_file(rel.name):
            self._ignore_file_changed(root, rel.parent.as_posix())
            return
        if not is_directory and self.filter.is_temp_name(rel.name):
            return
        # Folders and files both become syncs; a file whose name the include globs reject
        # can still be a folder's old name, so only obvious non-documents are dropped here.
        self.queue.put(Job("sync", root, relpath), size=file_size(path), folder=is_directory)
