"""Files whose text depends on other files beside them, read again when those change.

A DocBook chapter shows the title of the chapter beside it that a cross reference points
to, and the words of the entities a DTD beside it defines; a Mallard page shows the title
of the page a link names (`formats/docbook_siblings.py`). The index is keyed by each
file's own bytes, so a retitled chapter left the chapters that refer to it with the old
title until they changed themselves. Each parse therefore says what it depended on
(`Document.reads`, `wants`, `holds`; kept as the manifest's `reads` and `wants` rows),
and the writer acts on it:

- a path synced whose bytes are not those a file's parse read (`changed`: a chapter
  saved, a DTD edited, either deleted) has that file read again;
- a file applied that holds an id a file in its folder looked for in vain (`applied`: a
  chapter added, an id given to a section) has that file read again.

Bounded: a change reads again only the files that read the changed one or wanted one of
its ids, never the whole folder (a chapter that all 1,000 others refer to does read them
all again: their text names it). The files are queued like any sync, marked `stale` so
they are parsed even though their own bytes are as indexed (`Rewrites.mark_stale`).
A file read beside that is not itself indexed (a DTD) is looked at when an event names it,
and by each walk of its folder (`recheck`: the start-up walk looks only at documents, and
one changed while the daemon was stopped, or whose event an overflow lost, went unnoticed
until its readers changed): one read of each such file, the documents are not read.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from ragd.core.names import disk_path
from ragd.index.manifest import Manifest
from ragd.index.plan import FilePlan
from ragd.ingest.formats.xml_confined import ABSENT, MAX_COMPANION_BYTES
from ragd.ingest.planner import FileTooLarge, NotRegularFile, read_file, sha256_hex
from ragd.ingest.work_queue import Job, WorkQueue, file_size

MAX_READ_BYTES = 64 * 1024 * 1024  # a file read beside others larger than this: changed
NOT_READ = ABSENT.hex()  # what a parse records for a file it looked for and did not read


class Dependents:
    def __init__(self, manifest: Manifest, queue: WorkQueue) -> None:
        self.manifest = manifest
        self.queue = queue

    def changed(self, root: str, relpath: str) -> None:
        """`relpath` is being synced: the files whose parse read other bytes there are
        queued (one query when none did; one read of it when some did)."""
        readers = self.manifest.readers_of(root, relpath) if relpath else []
        if not readers:
            return
        path = disk_path(root, relpath)
        now = _digest(path) if any(read != NOT_READ for _, read in readers) else NOT_READ
        came = any(read == NOT_READ for _, read in readers) and _readable_beside(path)
        self._again(root, (r for r, read in readers if (came if read == NOT_READ else read != now)))

    def recheck(self, root: str, prefix: str) -> None:
        """A walk of the folder `prefix`: the files read beside others there that are not
        documents (which the walk looks at itself) are compared with what was read, and
        so are those indexed, by the bytes indexed (no read): a reader queued in memory
        when its chapter was applied is lost with the process, and the walk skips that
        chapter, indexed as it is on disk."""
        for name in self.manifest.read_not_indexed(root, prefix):
            self.changed(root, name)
        self._again(root, self.manifest.read_other_than_indexed(root, prefix))

    def applied(self, plans: Sequence[FilePlan]) -> None:
        """Files just applied with new bytes: those in their folders that wanted an id
        they hold are queued, and so is any file whose parse read them before or after
        the bytes now indexed; and a file is queued again if what it read beside it
        changed while it was parsed. A change is met at its sync by the readers the
        manifest names, but a parse under way is not named yet (a new chapter, one
        edited to read a DTD or show another chapter's title): a DTD edited, or a
        chapter applied, between that parse's read and its commit left its old words
        for good."""
        for plan in plans:
            root, relpath = plan.row.root, plan.row.relpath
            if plan.beside.holds:
                folder = posixpath.dirname(relpath)
                wanting = self.manifest.wanting(root, folder, plan.beside.holds)
                self._again(root, wanting - {relpath})
            readers = self.manifest.readers_of(root, relpath)
            moved = [r for r, read in readers if read not in (plan.row.sha256, NOT_READ)]
            self._again(root, set(moved) - {relpath})
            if any(self._moved_on(root, name, read) for name, read in plan.beside.reads):
                self._again(root, [relpath])

    def _moved_on(self, root: str, name: str, read: str) -> bool:
        """Whether the file `name` now holds other bytes than `read`: an indexed one's
        are known (a newer version still to be applied queues its readers then); any
        other (a DTD) is read."""
        if read == NOT_READ:  # (looked for and not read: has it come?)
            return _readable_beside(disk_path(root, name))
        indexed = self.manifest.file(root, name)
        if indexed is not None:
            return indexed.sha256 != read
        return _digest(disk_path(root, name)) != read

    def _again(self, root: str, relpaths: Iterable[str]) -> None:
        for relpath in sorted(set(relpaths)):
            self.queue.rewrites.mark_stale((root, relpath))
            self.queue.put(Job("sync", root, relpath), size=file_size(disk_path(root, relpath)))


def _readable_beside(path: Path) -> bool:
    """Whether a parse looking for this file beside it would now read it (a regular file,
    no link, within `MAX_COMPANION_BYTES`): one `lstat`."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size <= MAX_COMPANION_BYTES


def _digest(path: Path) -> str:
    """The sha256 of a regular file's bytes (no link followed, no FIFO waited on), or
    the mark a parse notes for a file it looked for and could not read (`ABSENT`)."""
    try:
        return sha256_hex(read_file(path, follow_symlinks=False, limit=MAX_READ_BYTES))
    except (OSError, NotRegularFile, FileTooLarge):
        return NOT_READ
