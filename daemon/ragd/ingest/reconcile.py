"""Bring a path in line with the disk: what the index holds for it must match what is there.

A job names a path, never an event (`ingest/work_queue.py`), so this module looks:

    gone        a file or a folder vanished → its chunks go (everything under a folder)
    replaced    a file became a folder of the same name, or a folder a file → what was
                indexed under the old kind goes
    folder      scanned: every document under it that changed is queued, and what
                vanished from it too (`scan`; also the start-up reconcile of each root)
    unwanted    a file the include/exclude patterns no longer accept → removed
    file        planned (`ingest/planner.py` `FilePlanner.plan`): the plan joins the
                caller's batch, a slow file is set aside (`ingest/slow_files.py`), and
                any other outcome is carried out by the writer (`IndexWriter.settle`)
    forget      a root left the watched set → everything of it goes

Anything that removes files first applies the batch planned so far, so a removal is
never overtaken by an older plan. Every change to the stores goes through the writer.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath
from typing import Protocol

from ragd.core.kernel_fs import refusal as kernel_refusal
from ragd.core.names import disk_path
from ragd.core.roots import Roots
from ragd.index.manifest import FileRow
from ragd.index.plan import Outcome, Skip
from ragd.index.space import Interrupted
from ragd.index.writer import IndexWriter
from ragd.ingest.away_drives import MountedRoots
from ragd.ingest.dependents import Dependents
from ragd.ingest.filters import PathFilter
from ragd.ingest.parse_pool import out_of_descriptors
from ragd.ingest.planner import (
    FilePlanner,
    InFlight,
    OutOfDescriptors,
    Staged,
    quarantined,
    version,
)
from ragd.ingest.rewrites import Mark
from ragd.ingest.slow_files import MOVE_GRACE_S, SlowFiles
from ragd.ingest.walking import walk
from ragd.ingest.work_queue import Job, WorkQueue

log = logging.getLogger("ragd.indexer")  # (the writer's log: one story per file)

FOLDER_UNREADABLE = "cannot read folder"  # a scan's problem for a folder it may not list
CLASH = " (undecodable name)"  # after the key of a name whose escaped form is taken
MAX_LINKS_SOUGHT = 4096  # inodes whose other names a scan looked for, remembered


def _inside_any(relpath: str, folders: set[str]) -> bool:
    """Whether a root-relative path is under one of these folders ("" is the root)."""
    parts = relpath.split("/")
    return any("/".join(parts[:n]) in folders for n in range(len(parts)))


class Batch(Protocol):
    """The plans the caller is gathering to apply together (`ingest/indexer.py`)."""

    defer: bool  # slow files may be set aside (the background writer only)

    def holds(self, root: str, relpath: str) -> bool: ...
    def holds_under(self, root: str, relpath: str) -> bool: ...
    def add(self, staged: Staged) -> None: ...
    def flush(self) -> None: ...


class Reconciler:
    def __init__(
        self,
        roots: Roots,
        path_filter: PathFilter,
        queue: WorkQueue,
        writer: IndexWriter,
        files: FilePlanner,
        slow: SlowFiles,
        # Called with a root when a folder there became readable: its inotify watches
        # were refused while it was not, so the watcher must set them again.
        on_folder_readable: Callable[[str], None],
    ) -> None:
        self.roots = roots
        self.filter = path_filter
        self.queue = queue
        self.writer = writer
        self.manifest = writer.stores.manifest  # read here; every write goes through the writer
        self.files = files
        self.slow = slow
        self.on_folder_readable = on_folder_readable
        self.mounted = MountedRoots(self.manifest, writer.remember)
        # The files whose text depends on others beside them (DocBook's, Mallard's).
        self.dependents = Dependents(self.manifest, queue)
        self._looked_at: set[tuple[str, str]] = set()  # vanished folders seen once
        # Inodes whose unknown names a scan of the roots was queued to find (bounded).
        self._links_sought: set[tuple[int, int]] = set()
        # Of those, the ones whose scans have not all run yet, with the roots still to
        # scan: their names are read there whatever their stat (bounded as above).
        self._seeking: dict[tuple[int, int], set[str]] = {}

    def sync(self, root: str, relpath: str, batch: Batch, force: bool = False) -> int:
        """Bring one path (file or folder) in line with the disk; returns chunks staged."""
        mark = self.queue.rewrites.take((root, relpath))  # taken here, whatever follows
        self.dependents.changed(root, relpath)  # (a chapter, a DTD: what others read)
        if batch.holds(root, relpath):
            batch.flush()  # the same file changed again after it was planned: apply that first
        path = disk_path(root, relpath)
        try:
            st = root_folder(path) if not relpath else os.stat(path, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):  # gone, or a folder above it is a file
            if mark is not None and not os.path.isdir(root):
                # Written, yet not there: the root itself is gone (moved with its parent,
                # unmounted) and its watch still names paths under the old one. The file
                # is somewhere, so it stays indexed until the root is back (the watcher
                # syncs it then); pruned, a save in the moved folder dropped the file.
                # (A deletion is no mark: `rm -rf` of a root still prunes its files.)
                return 0
            if mark is Mark.WRITTEN:
                # Written, then moved out or deleted before it was looked at: its other
                # names hold the new bytes, and no event named them (found by
                # bench/staleness_fuzz.py: a hard link appended to, its folder moved out).
                self._sync_other_names(root, relpath)
            row = self.manifest.file(root, relpath)  # None: a folder, or nothing indexed
            if row is not None and self._waits_for_its_move(row):
                return 0
            if batch.defer and row is None and self._first_look_at_vanished_folder(root, relpath):
                return 0
            if batch.holds_under(root, relpath) or self.manifest.holds_files_under(root, relpath):
                # A plan staged for a file under this path must not outlive it, and what
                # is indexed there goes only after the plans before it (a rename's new
                # name). A path with neither (`sed -i`'s `sedXXXXXX`, gone once renamed
                # over the file) leaves the batch whole: cutting it there applied a
                # folder of such saves one file per batch.
                batch.flush()
            self.slow.cancel(root, relpath)
            self._remove_under(root, relpath)
            return 0
        except OSError as exc:
            self._settle(root, relpath, Skip(f"cannot stat ({exc.strerror})"))
            return 0
        self._looked_at.discard((root, relpath))  # back before its second look
        follow = self.files.planner.follow_symlinks
        if follow and relpath and self.filter.linked_into_a_root(path):  # (a root: its own)
            batch.flush()  # what a root holds under its own name, reached through a link
            self.slow.cancel(root, relpath)
            self._remove(root, [row.relpath for row in self.manifest.files_under(root, relpath)])
            return 0
        folder = stat.S_ISDIR(st.st_mode) or (follow and leads_to_a_folder(path, st))
        self._drop_replaced(root, relpath, folder=folder, batch=batch)
        if folder:
            self.scan(root, relpath)
            return 0
        if not self.filter.accepts(PurePosixPath(relpath), path, root, follow):
            self.slow.cancel(root, relpath)
            if mark is Mark.WRITTEN and stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
                self._written_through_another_name((st.st_dev, st.st_ino))
            if self.manifest.file(root, relpath) is not None:
                # Indexed before the include/exclude patterns changed: no longer wanted.
                batch.flush()
                self._remove(root, [relpath])
            return 0
        if not force and self._carried_in_flight(root, relpath, st, mark):
            self.queue.covered(root, relpath)  # the file is counted once, by the slow job
            return 0  # already being worked on, unchanged since
        if force:
            self.slow.cancel(root, relpath)
        elif not self.slow.supersede(root, relpath, st.st_mtime_ns):
            self._after_the_version_in_flight(root, relpath, st, mark)
            return 0
        return self._file(root, relpath, st, batch, force, mark)

    def _after_the_version_in_flight(
        self, root: str, relpath: str, st: os.stat_result, mark: Mark | None
    ) -> None:
        """A file that keeps changing while it is parsed or chunked: this version is
        planned once the one in flight is applied (`SlowFiles.supersede`). The job goes
        back to the queue (asked again after the debounce), with the event's mark, and
        the file stays counted once, by the newest job."""
        if mark is not None:
            self.queue.rewrites.mark((root, relpath), mark)
        self.queue.covered(root, relpath)
        self.queue.put(Job("sync", root, relpath), size=st.st_size)

    def _waits_for_its_move(self, row: FileRow) -> bool:
        """A vanished file whose new name is still queued or being parsed keeps its old
        name searchable until then: asked again after the debounce (pruned at once, a
        rename would vanish from search for as long as the parse takes). Alone or under
        a vanished folder, the same rule."""
        if not self._moving(row):
            return False
        self.queue.put(Job("sync", row.root, row.relpath))
        return True

    def _moving(self, row: FileRow) -> bool:
        """Is a vanished file's content in flight under a new name, or still queued under
        the name a chain of renames gave it (a rename storm)?"""
        if self.slow.carries(row.sha256, MOVE_GRACE_S):
            return True
        final = self.queue.moves.final((row.root, row.relpath), MOVE_GRACE_S)
        if final is None:
            return False
        # Queued itself, or under a folder whose scan is queued (a folder renamed onto a
        # name: its files are queued by that scan, still to come).
        root, relpath = final
        parts = relpath.split("/")
        folders = ["/".join(parts[:cut]) for cut in range(len(parts) - 1, -1, -1)]
        return any(self.queue.waiting(Job("sync", root, path)) for path in [relpath, *folders])

    def _first_look_at_vanished_folder(self, root: str, relpath: str) -> bool:
        """A folder that vanished is looked at twice by the background writer, a debounce
        apart (a direct sync prunes at once; a file is not asked: its new name is due
        first): if it was moved within the roots, its files' new names (queued by the same
        events) are planned first, and a new name still being parsed holds its old name
        (`_remove_under`). Pruning at the first look left every file of a renamed folder
        unsearchable until its new name was indexed."""
        key = (root, relpath)
        if key in self._looked_at:
            self._looked_at.discard(key)
            return False
        if not self.manifest.holds_files_under(root, relpath):
            return False  # nothing indexed under it
        self._looked_at.add(key)
        self.queue.put(Job("sync", root, relpath))
        return True

    def _file(
        self,
        root: str,
        relpath: str,
        st: os.stat_result,
        batch: Batch,
        force: bool,
        mark: Mark | None = None,
    ) -> int:
        reread = mark is not None
        stale = self.queue.rewrites.take_stale((root, relpath))
        planned = self.files.plan(
            root, relpath, st, force, patient=batch.defer, reread=reread, stale=stale
        )
        known = self.queue.links.inode_of((root, relpath)) == (st.st_dev, st.st_ino)
        self.queue.links.note((root, relpath), st)
        if isinstance(planned, Staged) and st.st_nlink > 1:
            self._note_names_linked_before(root, relpath, st, planned.plan.row.sha256, known)
        if mark is Mark.WRITTEN and isinstance(planned, Staged | InFlight | Skip):
            # (A Skip too: emptied through this name, `truncate -s 0`, the others are empty
            # as well, and their old text must go with this one's.)
            self._sync_other_names(root, relpath)
        if isinstance(planned, Staged | InFlight):
            if batch.defer and self.slow.set_aside(planned, self._replaces_moving(planned)):
                return 0  # worked on between other jobs; the queue counts it at release
            assert isinstance(planned, Staged)  # (in flight only when the batch defers)
            batch.add(planned)
            return len(planned.plan.chunks)
        self._settle(root, relpath, planned)
        return 0

    def _carried_in_flight(
        self, root: str, relpath: str, st: os.stat_result, mark: Mark | None
    ) -> bool:
        """Is this version of the file the one a parse set aside is working on? Its stat
        tells, unless an event said the file was written: a save that keeps size and mtime
        looks the same (`ingest/rewrites.py`), so then its bytes tell. Told by the stat
        alone, such a save during a slow parse was skipped, its mark spent, and the version
        in flight indexed for good. A file queued `stale` (a DTD it read changed) is never
        the version in flight: that parse may have read the DTD's old bytes."""
        if not self.slow.covers(root, relpath, st):
            return False
        if self.queue.rewrites.is_stale((root, relpath)):
            return False  # what it read beside it changed: the version in flight read the old
        if mark is None:
            return True
        digest = self.files.digest(root, relpath, st)
        return digest is not None and self.slow.covers(root, relpath, st, digest)

    def _note_names_linked_before(
        self, root: str, relpath: str, st: os.stat_result, sha256: str, known: bool
    ) -> None:
        """A new name of an inode whose other names are not all known: `ln` of a file
        already indexed. A link count change is told to no folder's watch (IN_ATTRIB
        goes to the inode's own watches only), so the names already there were never
        looked at again, and a later save through the new name left them with the old
        text until a restart. They hold the same bytes as this name now: the indexed
        files of that content are looked at, and those on this inode remembered."""
        if len(self.queue.links.others((root, relpath))) + 1 >= st.st_nlink:
            return  # every name is known
        inode = (st.st_dev, st.st_ino)
        for key in self.manifest.names_of_content(sha256):
            if key == (root, relpath):
                continue
            try:
                other = os.stat(disk_path(*key), follow_symlinks=False)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == inode:
                self.queue.links.note(key, other)
        if len(self.queue.links.others((root, relpath))) + 1 < st.st_nlink:
            if known and self.manifest.file(root, relpath) is not None:
                # An indexed name edited in place, on the inode a walk or plan saw it on:
                # the names in the roots were noted then, so the rest are outside (a
                # `cp -al` backup, a pnpm store). Sought again, each first save of each
                # such file cost a walk of every root (0.6 s a save at 5,000 files).
                return
            self._seek_names_changed(inode)

    def _seek_names_changed(self, inode: tuple[int, int]) -> None:
        """Names of the inode the content did not find: `ln a b` and a save through `b`
        before `b` was looked at (or a link made outside the roots, written, and moved
        in) — `a` already holds the new bytes, so no indexed file has them, and no event
        ever named `a`: it kept its old text for good (found by bench/staleness_fuzz.py).
        Its size and mtime changed with the save, so a scan of the roots plans it (and
        notes it on this inode) — and a save that kept them (`cp --preserve=timestamps`
        over the link) by the inode itself: the scan reads its names whatever their stat
        (`_sought_in`). Once per inode: names outside the roots count in the link count
        too, and are never found (bounded, forgotten when full)."""
        if inode in self._links_sought:
            return
        if len(self._links_sought) >= MAX_LINKS_SOUGHT:
            self._links_sought.clear()
            self._seeking.clear()
        self._links_sought.add(inode)
        self._seeking[inode] = set(self.roots)
        for root in self.roots:
            self.queue.put(Job("sync", root, ""))

    def _written_through_another_name(self, inode: tuple[int, int]) -> None:
        """A file that is no document (`notes.TXT`, `notes.orig`) was written, and it is a
        hard link: the notes of its inode hold the new bytes too, and no event named
        them (found by bench/staleness_fuzz.py: `.txt` renamed to `.TXT`, then appended
        to). The names known on it are read; none known (linked since they were last
        stat'ed), the roots are scanned for them once per inode."""
        names = self.queue.links.names_on(inode)
        self._read_as_linked(names)
        if not names:
            self._seek_names_changed(inode)

    def _sought_in(self, root: str) -> set[tuple[int, int]]:
        """The inodes whose names this scan of the whole root is to read whatever their
        stat, taken: this scan is the one `_seek_names_changed` queued (or a later one)."""
        sought = set()
        for inode, roots in list(self._seeking.items()):
            if root in roots:
                sought.add(inode)
                roots.discard(root)
            if not roots:
                del self._seeking[inode]
        return sought

    def _sync_other_names(self, root: str, relpath: str) -> None:
        """New content written through one name of a hard-linked file is under its other
        names too, though no event named them: each is synced and read."""
        self._read_as_linked(self.queue.links.others((root, relpath)))

    def _read_as_linked(self, names: list[tuple[str, str]]) -> None:
        """Each of `names` synced and read whatever its stat (a `LINKED` mark queues no one
        further, so two names never queue each other for ever)."""
        for name in names:
            self.queue.rewrites.mark(name, Mark.LINKED)
            self.queue.put(Job("sync", *name), debounce=False)

    def _replaces_moving(self, planned: Staged | InFlight) -> bool:
        """Would applying this plan remove content that another name is still parsing?
        Two files swapped by renames (a → tmp, b → a, tmp → b): the quick one's plan waits
        for the slow one, and both are applied together (`SlowFiles`)."""
        if isinstance(planned, InFlight):
            return False  # set aside anyway; `SlowFiles` asks again once it is embedded
        row = planned.plan.row
        return self.slow.replaces_moving(row.root, row.relpath, row.sha256)

    def _settle(self, root: str, relpath: str, outcome: Outcome) -> None:
        self.writer.settle(root, relpath, outcome, self.files.label(root, relpath))

    def _drop_replaced(self, root: str, relpath: str, folder: bool, batch: Batch) -> None:
        """A file replaced by a folder of the same name, or a folder by a file: what was
        indexed under the old kind goes (a scan would otherwise queue the file for ever)."""
        if not relpath:
            return
        stale = [
            row.relpath
            for row in self.manifest.files_under(root, relpath)
            if (row.relpath == relpath) == folder
        ]
        if stale:
            batch.flush()
            self.slow.cancel(root, relpath)
        self._remove(root, stale)

    def scan(self, root: str, relpath: str = "") -> int:
        """Queue every document under a folder and prune what vanished; returns files queued."""
        manifest = self.manifest
        base = disk_path(root, relpath)
        if not relpath and kernel_refusal(Path(os.path.realpath(base))) is not None:
            # The root is now the kernel's (a link to /proc made in its place): nothing
            # there is a document, and the walk would meet processes ending under it. Its
            # documents stay indexed, as for a root that is gone (the watcher says why).
            return 0
        if not relpath and self.roots.indexed_by_another(root) is not None:
            return 0  # a link to another root's folder: indexed there (the watcher says)
        if not relpath and self.mounted.away(root):
            # The empty folder a drive not mounted (yet) leaves: not the root's contents,
            # so nothing is pruned; its mount is watched afresh and synced by the watcher.
            return 0
        seen: set[str] = set()
        queued = 0
        self.filter.tally.clear_under(root, relpath)  # the walk counts what it leaves out
        unreadable: set[str] = set()
        hidden: set[str] = set()

        def clash(key: str) -> None:
            reason = "its name, with undecodable bytes escaped, is another file's name"
            seen.add(key + CLASH)
            self._problem(root, key + CLASH, reason)

        def cannot_read(key: str, error: OSError) -> None:
            if out_of_descriptors(error):
                # The process's state, not the folder's (a flood of connections holds every
                # descriptor): the scan is queued again whole (Indexer._again_later), never
                # recorded as an unreadable folder that no later event would clear.
                raise OutOfDescriptors(error.strerror or str(error))
            unreadable.add(key)
            self._problem(root, key, f"{FOLDER_UNREADABLE} ({error.strerror})")
            if not isinstance(error, FileNotFoundError | NotADirectoryError):
                hidden.add(key)  # there, but not to be listed: its files are not gone

        follow = self.files.planner.follow_symlinks
        # Files whose problem is retried at each scan (not held back by their size and
        # mtime: one that could not be read): an indexed row of the same stat says
        # nothing of whether they can be read now.
        retried = {rel for r, rel, _, held in manifest.problem_rows() if r == root and not held}
        sought = self._sought_in(root) if not relpath else set()
        for rel, st in walk(base, root, self.filter, follow, clash, cannot_read):
            if self.queue.closed:
                # Shutdown: a walk of a large tree would outlast its deadline and the stop
                # would not be clean. It only queues work, and the next start scans again.
                raise Interrupted
            seen.add(rel)
            self.queue.links.note((root, rel), st)
            row = manifest.file(root, rel)
            if row is not None and (row.size, row.mtime_ns) == version(st):
                if (st.st_dev, st.st_ino) in sought:
                    # A name of an inode written through another, unseen name: read it,
                    # though its stat is as indexed (tell no one: the scan finds the rest).
                    self.queue.rewrites.mark((root, rel), Mark.LINKED)
                elif rel not in retried:
                    continue
                else:
                    self.queue.rewrites.mark((root, rel))  # read it, though its stat is as indexed
            if quarantined(manifest.problem(root, rel), st):
                continue  # known bad and unchanged: reported once already
            self.queue.put(Job("sync", root, rel), debounce=False, size=st.st_size)
            queued += 1
        for row in manifest.files_under(root, relpath):
            if row.relpath in seen or _inside_any(row.relpath, hidden):
                # Not vanished: a folder it may not list hides its files, whose stats are
                # refused too, so syncing each recorded one `cannot stat` per file (a
                # closed folder of 1,000 notes, 1,000 lines). They stay indexed, as under
                # a root that is gone, and the folder's one line says why.
                continue
            self.queue.put(Job("sync", root, row.relpath), debounce=False)  # vanished
            queued += 1
        self._clear_resolved_problems(root, relpath, unreadable, seen)
        self.dependents.recheck(root, relpath)  # (a DTD edited while nothing watched)
        # What a scan cost, in entries looked at: a save must not cost its folder's size
        # (`tests/daemon/test_save_in_a_big_folder.py` counts these lines).
        log.debug(
            "scanned %s: %d entries, %d queued", self.files.label(root, relpath), len(seen), queued
        )
        return queued

    def _clear_resolved_problems(
        self, root: str, relpath: str, unreadable: set[str], seen: set[str]
    ) -> None:
        """The reasons recorded under the folder this walk covered that no longer hold, in
        one pass over them: a folder reported unreadable that the walk could read (or that
        is gone), and a file the walk did not find — deleted while the daemon was down, or
        no longer a document by name (the `include` globs changed). A file that is not
        indexed has no row for the walk to find missing, so its line in `rag status`
        errors stayed for ever. A path the walk missed that is there now (made after the
        walk passed its folder) keeps its reason."""
        for problem_root, rel, reason, _ in self.manifest.problem_rows():
            below = not relpath or rel == relpath or rel.startswith(relpath + "/")
            if problem_root != root or not below:
                continue
            if reason.startswith(FOLDER_UNREADABLE):
                if rel not in unreadable:
                    self.writer.remove(root, rel)  # holds no chunks: only the problem goes
                    self.on_folder_readable(root)
            elif rel not in seen and (rel.endswith(CLASH) or not self._still_a_document(root, rel)):
                self.writer.remove(root, rel)

    def _still_a_document(self, root: str, relpath: str) -> bool:
        """Is `relpath` on disk and, by the walk's own filter, a document?"""
        path = disk_path(root, relpath)
        try:
            os.lstat(path)
        except OSError:
            return False  # gone (or a folder above it is)
        follow = self.files.planner.follow_symlinks
        return self.filter.accepts(PurePosixPath(relpath), path, root, follow)

    def _remove_under(self, root: str, relpath: str) -> None:
        """A path vanished: it was a file, or a folder (moved out / deleted whole)."""
        self._remove(root, [relpath])
        gone = []
        for row in self.manifest.files_under(root, relpath):
            if disk_path(root, row.relpath).exists():
                continue
            if self._waits_for_its_move(row):  # moved with its folder
                continue
            gone.append(row.relpath)
        self._remove(root, gone)

    def _remove(self, root: str, relpaths: list[str]) -> None:
        """Drop these files' chunks from both indexes, then their manifest rows."""
        for rel in relpaths:
            self.queue.links.forget((root, rel))
        for rel, chunks in self.writer.remove_files(root, relpaths).items():
            self.writer.removed(self.files.label(root, rel), chunks)

    def forget(self, root: str) -> None:
        """A root left the watched set: everything indexed from it goes."""
        self.slow.cancel(root, "")
        self.mounted.forget(root)
        self.writer.forget_root(
            root,
            lambda relpath, chunks: self.writer.removed(self.files.label(root, relpath), chunks),
        )
        log.info("forgot root %s", self.roots.name(root))

    def _problem(self, root: str, relpath: str, reason: str) -> None:
        self.writer.record_problem(root, relpath, reason, self.files.label(root, relpath))


def leads_to_a_folder(path: Path, st: os.stat_result) -> bool:
    """Is this a link to a folder? Followed (`follow_symlinks`), one made while the
    daemon runs is scanned like a folder moved in; it was planned as a file, "not a
    regular file", and its files were not indexed until the next start's walk."""
    if not stat.S_ISLNK(st.st_mode):
        return False
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return False


def root_folder(path: Path) -> os.stat_result:
    """A root's stat: the folder a root named through a symbolic link leads to (`ragd
    serve ~/notes`, ~/notes a link to /data/notes), as the watcher and `--in` take it.
    Its own lstat said "not a folder", so such a root was never walked: nothing in it
    was indexed, without a word. A link that leads nowhere stays a link (not a folder,
    nothing removed)."""
    st = os.stat(path, follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        try:
            return os.stat(path)
        except OSError:
            return st
    return st
