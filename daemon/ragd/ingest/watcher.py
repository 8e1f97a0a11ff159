"""watchdog events → `sync` jobs on the index queue.

Events are only hints: every path an event names (both ends of a move) is queued as
"bring this path in line with the disk", and the indexer looks at the disk to decide.
That one rule covers the awkward cases watchdog reports: an editor's atomic save is a
move from a temp name onto the original (the temp end is filtered, the target is
synced), a folder moved out of a root arrives as a single `deleted` for the folder (the
sync prunes everything under it), a folder moved in arrives as `created` (the sync
scans it).
"""

from __future__ import annotations

import logging
from pathlib import Path, PurePosixPath

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from ragd.ingest.filters import PathFilter
from ragd.ingest.work_queue import Job, WorkQueue
from ragd.roots import Roots

log = logging.getLogger("ragd.watcher")

IGNORED_EVENTS = {"opened", "closed_no_write"}


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
            raw = path.decode() if isinstance(path, bytes) else str(path)
            self.watcher.notify(raw, event.is_directory)


class Watcher:
    def __init__(self, roots: Roots, path_filter: PathFilter, queue: WorkQueue) -> None:
        self.roots = roots
        self.filter = path_filter
        self.queue = queue
        self._observer = Observer()
        self._watches: dict[str, object] = {}
        self._handler = _Handler(self)

    def start(self) -> None:
        for root in self.roots:
            self.watch(root)
        self._observer.start()

    def watch(self, root: str) -> None:
        if root not in self._watches and Path(root).is_dir():
            self._watches[root] = self._observer.schedule(self._handler, root, recursive=True)

    def unwatch(self, root: str) -> None:
        watch = self._watches.pop(root, None)
        if watch is not None:
            self._observer.unschedule(watch)  # type: ignore[arg-type]

    def stop(self) -> None:
        self._observer.stop()
        self._observer.join(timeout=5)

    def notify(self, path: str, is_directory: bool) -> None:
        located = self.roots.locate(path)
        if located is None:
            return
        root, relpath = located
        if not relpath:
            return
        rel = PurePosixPath(relpath)
        if self.filter.ignores_dir(rel if is_directory else rel.parent):
            return
        if self.filter.inside_data_dir(Path(path)):
            return
        if not is_directory and self.filter.is_temp_name(rel.name):
            return
        # Folders and files both become syncs; a file whose name the include globs reject
        # can still be a folder's old name, so only obvious non-documents are dropped here.
        self.queue.put(Job("sync", root, relpath))
