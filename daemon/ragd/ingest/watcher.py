"""watchdog events → `sync` jobs on the index queue.

Events are only hints: every path an event names (both ends of a move) is queued as
"bring this path in line with the disk", and the indexer looks at the disk to decide.
That one rule covers the awkward cases watchdog reports: an editor's atomic save is a
move from a temp name onto the original (the temp end is filtered, the target is
synced), a folder moved out of a root arrives as a single `deleted` for the folder (the
sync prunes everything under it), a folder moved in arrives as `created` (the sync
scans it).

A folder's "modified" that echoes the event before it is dropped (`_Handler.echo`):
watchdog makes one up for the folder holding each file created, written, deleted or
moved, and as a sync of that folder it scanned every file beside the one saved. The
event it echoes names the path that changed, and that path is synced.

When more events arrive than the kernel's inotify queue holds (`max_queued_events`,
16,384 by default: 10,000 new files are ≈ 30,000 events), the kernel drops them and
watchdog only says so in a log record. That record is turned into a rescan of every
root (`_OverflowRescan`), so a burst never loses a file, and it is kept out of our log
because it names the root by its absolute path.

A root folder itself can go and come back while the daemon runs (`rm -rf notes` and a
fresh clone, a build that replaces its output folder, a drive unmounted and mounted
again). inotify watches an inode, not a path: watchdog ends the watch when the folder is
deleted, and a watch on a folder moved away keeps reporting that folder's changes under
the root's path. So a thread (`ragd-roots`) looks at each root once a second; when its
folder is not the one being watched (a new inode, gone, or its watch ended), the old
watch is dropped and, once a folder is there again, a new one is set and the root is
synced. While a root is gone its documents stay indexed, as at start-up (a drive that
is not mounted yet must not cost a re-embedding of everything).

A file system mounted on a folder inside a root (a USB stick on `notes/usb`, a bind
mount) hides the folder whose inode is watched: nothing written on it was reported, and
an unmount made its files vanish without an event, so the index went stale until the
next start. The same thread asks the mount table (`core/mount_points.py`, which the
kernel says has changed, so it costs nothing while mounts stay put); a root inside which
a mount point came or went has its watches set afresh and is synced; a root whose own
file system is unmounted is a root that is gone until one is mounted there again (the
empty folder the mount hid is no new contents to prune everything for). A root folder
made readable again after a `chmod 000` is watched afresh and synced too (a chmod of the
root is no change to a path inside it, so no event says it); while it cannot be read,
its scan says so once.

A root whose watch cannot be set (the user's inotify watches are used up:
`fs.inotify.max_user_watches`, which other programs share; or no inotify instance can be
had at all: `fs.inotify.max_user_instances`) is said once in the log and in
`rag status`, and the same thread syncs it every `unwatched_rescan_s` (30 s by default)
and tries its watch again, so its changes still reach the index. Before, the first such
root at start-up ended the daemon (watchdog raised from the observer's start, which set
every watch).
The period is a setting because the right staleness is the user's call: one who cannot
raise the sysctl (no root on a shared machine) may want a small root seen within seconds,
and a root of many thousands of files rescanned less often (each rescan stats every file).

A root whose own watch is set but some folders' watches are not (the watches ran out
partway down its tree, or when a folder was made later) is "partly watched": watchdog
says nothing of those folders (`ingest/watch_refusals.py` notes each refusal), so the
root is said once in the log and in `rag status` (how many folders, the first), and it
gets the same treatment as a root without a watch: every `unwatched_rescan_s` its
watches are set afresh (any freed by then are taken) and it is synced.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from ragd.core.config import default
from ragd.core.kernel_fs import refusal as kernel_refusal
from ragd.core.mount_points import MountTable
from ragd.core.roots import Roots
from ragd.ingest.away_drives import empty
from ragd.ingest.filters import PathFilter
from ragd.ingest.watch_refusals import NotingObserver, Refusals
from ragd.ingest.work_queue import Job, WorkQueue, file_size

log = logging.getLogger("ragd.watcher")

IGNORED_EVENTS = {"opened", "closed_no_write"}
# The events watchdog's inotify emitter follows with a "modified" of the parent folder.
ECHOED_EVENTS = {"created", "deleted", "moved", "closed"}
RESCAN_LOG_INTERVAL_S = 5.0
ROOT_CHECK_INTERVAL_S = 1.0
# Why a root is away, as `rag status --json` names it (`absent`).
GONE = "gone"  # its folder is not there (deleted, moved, a folder above it unmounted)
UNMOUNTED = "unmounted"  # its own file system was unmounted while the daemon ran
# The modules that report an inotify queue overflow (watchdog 6–7).
WATCHDOG_LOGGERS = ("watchdog.observers.inotify", "watchdog.observers.inotify_c")


# What to do about a watch the kernel refused, by its reason.
_FIX = {
    "inotify watch limit reached": " (raise the sysctl fs.inotify.max_user_watches)",
    "inotify instance limit reached": " (raise the sysctl fs.inotify.max_user_instances)",
}


def _folders(count: int) -> str:
    return f"{count} folder" if count == 1 else f"{count} folders"


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
    """One root's events, named under the root as it is spelled. A root reached through
    a link is watched at the folder the link leads to: watchdog sets a root's watch with
    IN_DONT_FOLLOW, so scheduled on the link it watched the link itself, and saves in the
    root's own folder were never reported (those below it were: their paths are looked
    up through the link). Its events name that folder, and are named under the root."""

    def __init__(self, watcher: Watcher, root: str, watched: str) -> None:
        self.watcher = watcher
        self.root = root
        self.watched = watched
        # The folders holding the path(s) of the last event handed on: a "modified" of
        # one of them next is that event's echo (`echo`).
        self._parents: tuple[str, ...] = ()

    def spelled(self, path: bytes | str) -> str:
        raw = os.fsdecode(path)  # bytes that are not UTF-8 become surrogates, not a crash
        if self.watched == self.root:
            return raw
        if raw == self.watched:
            return self.root
        if raw.startswith(self.watched.rstrip("/") + "/"):
            return self.root.rstrip("/") + raw[len(self.watched.rstrip("/")) :]
        return raw

    def echo(self, event: FileSystemEvent) -> bool:
        """Is `event` a folder's "modified" that only echoes the event before it?

        watchdog's inotify emitter follows a file's or folder's create, close after
        writing, delete and both ends of a move with a "modified" of the folder holding
        it, made up by itself (inotify says nothing of the folder; a folder's own change
        of mode or owner is an "attrib", which is synced). The event it echoes is handed
        on itself and synced; synced too, the echo scanned the whole folder: a save cost
        a walk and a stat of every file beside it (1.5 CPU s a save in a folder of 20,000
        files; hostile70). A root's own echo was already dropped (`notify`: no path).
        A "modified" of a folder that follows no event inside it is synced as before."""
        if event.event_type == "modified" and event.is_directory:
            return os.fsdecode(event.src_path) in self._parents
        paths = [event.src_path] if event.event_type in ECHOED_EVENTS else []
        if event.event_type == "moved":
            paths.append(event.dest_path)
        self._parents = tuple(os.path.dirname(os.fsdecode(path)) for path in paths)
        return False

    def on_any_event(self, event: FileSystemEvent) -> None:
        if self.echo(event):
            return
        if event.event_type in IGNORED_EVENTS or self.watcher.writes_own_output(event):
            return
        if event.event_type == "moved":
            # The new name first: its job is due first, so a rename is indexed under it
            # before the old name is pruned, never missing from search in between.
            paths = [(event.dest_path, False), (event.src_path, True)]
            self.watcher.moved(self.spelled(event.src_path), self.spelled(event.dest_path))
        else:
            paths = [(event.src_path, event.event_type == "deleted")]
        for path, gone in paths:
            raw = self.spelled(path)
            if event.event_type == "deleted" and event.is_directory:
                self.watcher.folder_deleted(raw)
            self.watcher.notify(raw, event.is_directory, gone)


def folder_identity(path: str) -> tuple[int, int] | None:
    """Which folder a path names now (device, inode), or None if it is not a folder."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def unreadable(path: str) -> str | None:
    """Why a folder cannot be listed or looked into (`Permission denied`), or None when it
    can (or is not there: the root check says that)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    try:
        os.stat(".", dir_fd=fd)  # a look-up inside it: needs search (x) permission
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        os.close(fd)
    return None


class Watcher:
    def __init__(
        self,
        roots: Roots,
        path_filter: PathFilter,
        queue: WorkQueue,
        rescan_s: float = default("unwatched_rescan_s"),
        own_output: Iterable[str] = (),
    ) -> None:
        self.roots = roots
        # Where the daemon's own standard output and error are, when they are files
        # (`no_text.own_output_paths`, links resolved: as events name a root's files).
        # Every line logged wrote the log; under a root, each write queued a sync the
        # planner then skipped (`no_text.is_own_output`, kept as the second check).
        # Changed only on the observer's thread, which calls every handler.
        self._own_output = set(own_output)
        self.rescan_s = rescan_s  # how stale a root without (every) watch can get
        self.filter = path_filter
        self.queue = queue
        self._refusals = Refusals()
        # Made when the first watch is set (`_observing`): it needs an inotify instance.
        self._observer: NotingObserver | None = None
        self._watches: dict[str, object] = {}
        # root → the folder its watch is scheduled on (the link's target for a link).
        self._scheduled: dict[str, str] = {}
        self._overflow = _OverflowRescan(self)
        self._rescan_lock = threading.Lock()
        self._rescan_logged = -RESCAN_LOG_INTERVAL_S
        # root → the folder being watched there (None: none yet); roots whose watch ended.
        self._watched: dict[str, tuple[int, int] | None] = {}
        self._ended: set[str] = set()
        # root → why its watch could not be set, and when it was last tried.
        self._unwatched: dict[str, tuple[str, float]] = {}
        # root → when its watches were last set, for roots with folders left unwatched.
        self._partly: dict[str, float] = {}
        # root → why its folder cannot be read (`chmod 000`), while it cannot.
        self._closed: dict[str, str] = {}
        # root → the folder found at its path once its file system was unmounted.
        self._unmounted: dict[str, tuple[int, int] | None] = {}
        # root → (why, since: the wall clock) while its folder is gone or its file system
        # unmounted: `rag status` says so (its documents are kept, and answer).
        self._absent: dict[str, tuple[str, float]] = {}
        self._roots_lock = threading.Lock()
        self._mounts = MountTable()
        self._stopping = threading.Event()
        self._checker = threading.Thread(target=self._check_roots, name="ragd-roots", daemon=True)

    def start(self) -> None:
        for name in WATCHDOG_LOGGERS:
            logger = logging.getLogger(name)
            logger.addFilter(self._overflow)
            # A logger's filters only see records at or above its level.
            logger.setLevel(logging.WARNING)
        for root in self.roots:
            self.watch(root)
        self._checker.start()

    def problems(self) -> list[tuple[str, str]]:
        """(root, why) for each root whose changes are found by rescans, not events.
        Without the roots' lock: `status` asks, and the lock is held while a watch is set,
        which walks the root's folders."""
        unwatched = dict(self._unwatched)  # one copy, made while holding the GIL
        found = [
            (
                root,
                f"not watched ({why}): changes are found by a rescan every "
                f"{self.rescan_s:g} s{_FIX.get(why, '')}",
            )
            for root, (why, _) in unwatched.items()
        ]
        for root in list(self._partly):
            if (refused := self._refusals.of(self._scheduled.get(root, root))) is not None:
                found.append(
                    (
                        root,
                        f"partly watched ({refused.why}): {_folders(refused.folders)} "
                        f"unwatched, the first {refused.first}; changes there are found by "
                        f"a rescan every {self.rescan_s:g} s{_FIX.get(refused.why, '')}",
                    )
                )
        return sorted(found)

    def absent(self) -> dict[str, tuple[str, float]]:
        """root → (GONE or UNMOUNTED, since when: `time.time()`) for each root whose folder
        is gone or whose file system was unmounted; its documents are kept meanwhile.
        Without the roots' lock, as `problems`."""
        return dict(self._absent)  # one copy, made while holding the GIL

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
        """Watch a root's folder (a root that is not a folder yet is watched once it is)."""
        with self._roots_lock:
            self._watch(root, folder_identity(root))

    def _watch(self, root: str, identity: tuple[int, int] | None) -> None:
        self._watched[root] = identity
        if identity is None:
            self._absent.setdefault(root, (GONE, time.time()))
        else:
            self._absent.pop(root, None)
        if root in self._watches or identity is None:
            return
        if (why := kernel_refusal(Path(os.path.realpath(root)))) is not None:
            # A root made again as a link to /proc or /: the watches would go into every
            # process's folders (watchdog printing a raw warning for each clash). Said
            # once per change of the folder; watched again once it is a folder of
            # documents. `rag ingest` refuses such a folder as a new root the same way.
            # Only the kernel's rule: the UTF-8 one is for the root's own path (its key),
            # and a link may lead to a folder of any name.
            log.warning("not watching root %s: %s", Path(root).name, why)
            return
        if (other := self.roots.indexed_by_another(root)) is not None:
            # Watched, a root that became a link to another root's folder indexed that
            # folder's files a second time under its name. Said once per change of the
            # folder; watched again once it is a folder of its own.
            log.warning(
                "not watching root %s: it now leads to the folder of root %s, indexed there",
                Path(root).name,
                Path(other).name,
            )
            return
        watched = os.path.realpath(root)
        self._refusals.clear(watched)
        try:
            observer = self._observing()
            handler = _Handler(self, root, watched)
            self._watches[root] = observer.schedule(handler, watched, recursive=True)
            self._scheduled[root] = watched
        except OSError as exc:  # no watches left, no permission: tried again, rescanned
            why = str(exc.strerror or exc)
            if root not in self._unwatched:
                log.warning("cannot watch root %s (%s)", Path(root).name, why)
            self._unwatched[root] = (why, time.monotonic())
            self._partly.pop(root, None)  # not watched at all: said as such
        else:
            self._unwatched.pop(root, None)
            self._note_refusals(root, set_now=True)

    def _observing(self) -> NotingObserver:
        """The observer, made and started at the first watch, or the OSError saying why
        it cannot be: its inotify instance is refused when the user's instances are used
        up (`fs.inotify.max_user_instances`, 128 by default, one per program watching).
        Before, that ended `ragd serve` at start-up ("start-up failed while starting the
        watcher"); now every root is unwatched, rescanned, and tried again like one whose
        watch was refused. Started before any watch is set, so each watch fails on its
        own (the observer's start sets every scheduled watch at once)."""
        if self._observer is None:
            observer = NotingObserver(self._refusals)
            observer.start()
            self._observer = observer
        return self._observer

    def _note_refusals(self, root: str, set_now: bool) -> None:
        """Say once that a watched root has folders without a watch (noted as watchdog
        set them), and say when it has none again. `set_now`: its watches were just set,
        which is when the next retry is counted from."""
        refused = self._refusals.of(self._scheduled.get(root, root))
        name = Path(root).name
        if refused is None:
            if self._partly.pop(root, None) is not None:
                log.info("watching every folder of root %s again", name)
            return
        if root not in self._partly:
            log.warning(
                "cannot watch %s of root %s (%s; the first: %s): changes there are found "
                "by a rescan every %g s",
                _folders(refused.folders),
                name,
                refused.why,
                refused.first,
                self.rescan_s,
            )
        if set_now or root not in self._partly:
            self._partly[root] = time.monotonic()

    def unwatch(self, root: str) -> None:
        self.filter.rules.invalidate(root)
        self.filter.tally.clear_under(root)
        with self._roots_lock:
            self._watched.pop(root, None)
            self._ended.discard(root)
            self._unwatched.pop(root, None)
            self._partly.pop(root, None)
            self._closed.pop(root, None)
            self._unmounted.pop(root, None)
            self._absent.pop(root, None)
            self._drop_watch(root)

    def _drop_watch(self, root: str) -> None:
        watch = self._watches.pop(root, None)
        if watch is not None and self._observer is not None:
            self._observer.unschedule(watch)  # type: ignore[arg-type]
        # What was refused to that watch is no longer asked.
        self._refusals.clear(self._scheduled.pop(root, root))

    def folder_deleted(self, path: str) -> None:
        """A deleted folder that is a root: watchdog has ended its watch."""
        with self._roots_lock:
            if path in self._watched:
                self._ended.add(path)

    def refresh(self, root: str) -> None:
        """Set a root's watches again at the next check (a folder in it became readable:
        watchdog skipped it when it was not, and adds no watch later)."""
        with self._roots_lock:
            if root in self._watched:
                self._ended.add(root)

    def _check_roots(self) -> None:
        while not self._stopping.wait(ROOT_CHECK_INTERVAL_S):
            self.check_roots()

    def check_roots(self) -> None:
        """Re-watch and sync each root whose folder is not the one being watched (or
        whose watches were asked to be set again)."""
        with self._roots_lock:
            roots = list(self._watched)
        # Looked at without the lock: on a stalled mount a root's stat never returns, and
        # it held the lock `rag forget` (of that very root) and `rag ingest` wait for, so
        # each held a search worker for as long as the mount hung.
        # The mount table first: the folders stat'ed after it are at least as new.
        changed = self._mounts.changes()
        identities = {root: folder_identity(root) for root in roots}
        reals = {root: os.path.realpath(root) for root in roots} if changed else {}
        remounted = self._mounted_inside(reals, changed)
        gone = {real for real in changed if not self._mounts.holds(real)}  # unmounted
        unmounted = [root for root, real in reals.items() if real in gone and empty(root)]
        closed = {
            root: unreadable(root)
            for root, now in identities.items()
            if now is not None and root not in self._unmounted and root not in unmounted
        }
        with self._roots_lock:
            for root in remounted:
                if self._watched.get(root) is not None:
                    self._ended.add(root)  # its watches are set again below, and it is synced
            for root in unmounted:
                if self._watched.get(root) is not None and root not in self._unmounted:
                    self._note_unmounted(root, identities[root])
            for root, why in closed.items():
                if root in self._watched:
                    self._note_closed(root, why)
            for root, watched in list(self._watched.items()):
                if root not in identities:
                    continue  # added while the roots were looked at: `watch` looked
                now = identities[root]
                if root in self._unmounted:
                    if now == self._unmounted[root]:
                        continue  # still the folder under the mount: its drive is away
                    del self._unmounted[root]  # mounted again (or gone): looked at afresh
                if now is not None and self._retry_due(root):
                    # No watch, or not on every folder, could be set: set them afresh
                    # (watches freed since are taken), and sync what they missed.
                    self._drop_watch(root)
                    self._watch(root, now)
                    if root not in self._watches:
                        self._partly.pop(root, None)  # not watched at all now: said so
                    self.queue.put(Job("sync", root, ""), debounce=False)
                    continue
                if now == watched and root not in self._ended:
                    continue
                self._ended.discard(root)
                self._drop_watch(root)
                name = Path(root).name
                if now is None:
                    self._watched[root] = None
                    self._absent[root] = (GONE, time.time())
                    self._closed.pop(root, None)  # looked at afresh when it is back
                    self._partly.pop(root, None)
                    log.warning(
                        "root %s is gone; its documents stay indexed until it is back", name
                    )
                    continue
                self.filter.rules.invalidate(root)
                self._watch(root, now)
                if root in self._watches:
                    log.info("watching root %s afresh and syncing it", name)
                    self.queue.put(Job("sync", root, ""), debounce=False)
                else:
                    self._partly.pop(root, None)
            # A folder made (or moved in) since, whose watch was refused.
            for root in list(self._watches):
                if root not in self._partly:
                    self._note_refusals(root, set_now=False)

    def _note_closed(self, root: str, why: str | None) -> None:
        """A root's folder made unreadable (`chmod 000`) or readable again. A chmod of the
        root folder is no change to a path inside it, so no event says either: closed,
        the root is synced, whose scan says in one line that it cannot read the folder
        (its documents stay indexed, as for a root that is gone); readable again, its
        watches are set afresh and it is synced, which brings back what was saved while
        it was closed (before, such a note stayed `cannot stat (Permission denied)`, and
        unindexed, until a restart; and nothing said the root could not be read)."""
        if why is not None and root not in self._closed:
            self.queue.put(Job("sync", root, ""), debounce=False)
        elif why is None and self._closed.pop(root, None) is not None:
            log.info("root %s can be read again", Path(root).name)
            self._ended.add(root)  # its watches are set again below, and it is synced
        if why is not None:
            self._closed[root] = why

    def _note_unmounted(self, root: str, underneath: tuple[int, int] | None) -> None:
        """The root's own file system was unmounted (a drive, a share, a bind mount) and
        the folder left at its path is the empty one the mount hid. Its documents stay
        indexed until a file system is mounted there again, as for a root that is gone;
        taken for a new folder, the sync pruned every document, and the next mount
        indexed them all again (embedded again once the cache had been pruned)."""
        self._drop_watch(root)
        self._ended.discard(root)
        self._watched[root] = None
        self._unmounted[root] = underneath
        self._absent[root] = (UNMOUNTED, time.time())
        log.warning(
            "root %s: its file system was unmounted; its documents stay indexed until it "
            "is mounted again",
            Path(root).name,
        )

    def _mounted_inside(self, reals: dict[str, str], changed: frozenset[str]) -> list[str]:
        """Roots inside which a file system was mounted or unmounted since the last look.

        The watch on a mount point stays on the folder the mount hides, so nothing
        written on the mounted file system was reported, and an unmount made its files
        vanish without an event: the root's watches must be set again (watchdog then
        walks into the mount) and the root synced. A mount on the root itself, or above
        it, changes the root's folder, which `check_roots` already notices (an unmount
        of the root's own file system is `_note_unmounted`)."""
        found = []
        for root, real in reals.items():
            inside = sorted(os.path.relpath(p, real) for p in changed if p.startswith(real + "/"))
            if inside:
                more = f" and {len(inside) - 1} more" if len(inside) > 1 else ""
                log.info(
                    "a file system was mounted or unmounted at %s in root %s%s",
                    inside[0],
                    Path(root).name,
                    more,
                )
                found.append(root)
        return found

    def _retry_due(self, root: str) -> bool:
        unwatched = self._unwatched.get(root)
        tried = unwatched[1] if unwatched is not None else self._partly.get(root)
        return tried is not None and time.monotonic() - tried >= self.rescan_s

    def stop(self) -> None:
        self._stopping.set()
        if self._checker.is_alive():
            self._checker.join(timeout=5)
        if not self._checker.is_alive():
            self._mounts.close()  # the only reader has ended
        observer = self._observer  # the root check that could make it has ended
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
        for name in WATCHDOG_LOGGERS:
            logging.getLogger(name).removeFilter(self._overflow)

    def _ignore_file_changed(self, root: str, folder: str) -> None:
        """An ignore file was saved, created or removed: re-read it, and bring the folder
        it governs in line (the scan prunes files now excluded, queues files let in)."""
        folder = "" if folder == "." else folder
        self.filter.rules.invalidate(root, folder)
        self.queue.put(Job("sync", root, folder))

    def writes_own_output(self, event: FileSystemEvent) -> bool:
        """Is `event` a write to the daemon's own output (nothing to sync)? A set look-up
        per event, no stat. The name is let go when it may stop naming that file: deleted,
        made afresh, or another file moved onto it; renamed (rotated), the new name is
        watched instead. Those events are synced like any other (the planner skips the log
        by its inode), so a document later saved under the old name is indexed."""
        own = self._own_output
        if not own:
            return False
        src = os.fsdecode(event.src_path)
        if event.event_type == "moved":
            dest = os.fsdecode(event.dest_path)
            own.discard(dest)
            if src in own:
                own.discard(src)
                own.add(dest)
            return False
        if src not in own:
            return False
        if event.event_type in ("created", "deleted"):
            own.discard(src)
            return False
        return True  # modified, closed after writing, its mode changed

    def moved(self, src: str, dest: str) -> None:
        """A rename inside the roots: remembered, so its old name can wait for its new one."""
        located = self.roots.locate(src), self.roots.locate(dest)
        if located[0] is not None and located[1] is not None:
            self.queue.moves.moved(located[0], located[1])

    def notify(self, path: str, is_directory: bool, gone: bool = False) -> None:
        located = self.roots.locate(path)
        if located is None:
            return
        root, relpath = located
        if not relpath:
            return
        if gone:  # what `rag status` tallies under it is gone too (it never asks the disk)
            self.filter.tally.gone(root, relpath)
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
        # A temporary's name on a note's inode (`ln notes.md notes.md~`) is synced: the
        # note holds what was written, and only this name was told. Its sync reads the
        # names known on the inode (`Reconciler._written_through_another_name`).
        temp = not is_directory and self.filter.is_temp_name(rel.name)
        if temp and (gone or not _hard_linked(path)):
            return
        if not is_directory and not gone:
            # Written: read it even if its size and mtime are as indexed (`ingest/rewrites.py`).
            self.queue.rewrites.mark((root, relpath))
        # Folders and files both become syncs; a file whose name the include globs reject
        # can still be a folder's old name, so only obvious non-documents are dropped here.
        self.queue.put(Job("sync", root, relpath), size=file_size(path), folder=is_directory)


def _hard_linked(path: str) -> bool:
    """Is `path` a regular file with other names (one stat, as `file_size`)?"""
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink > 1
