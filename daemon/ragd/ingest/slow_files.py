"""Slow files, set aside so that small edits are not held behind them.

A file is *slow* when the planner hands it back in flight (`ingest/planner.py`: its
parse still running after PARSE_PATIENCE_S, or its text too large to chunk on the writer
thread) or its plan has more windows than LARGE_WINDOWS. The writer sets it aside
(`SlowFiles.set_aside`) and moves it along one step at a time between other jobs
(`advance`): take up a finished parse, take up a plan built on the planner thread, or
embed one slice of EMBED_SLICE windows; the last slice is followed by the apply.

While set aside the file stays pending in the queue (`WorkQueue.hold`): it is counted
once, its bytes credited as its windows are embedded (`bytes_underway`), and it is
released when it is applied, fails, or is superseded by a newer job, a delete or a
forget (`cancel`).
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass, field

from ragd.index.writer import EMBED_SLICE, IndexWriter
from ragd.ingest.parse_pool import OutOfDescriptors
from ragd.ingest.planner import FilePlanner, InFlight, Staged, version
from ragd.ingest.progress import Flight
from ragd.ingest.work_queue import Job, WorkQueue

log = logging.getLogger("ragd.indexer")  # (the writer's log: one story per file)

# A plan with more windows than this is embedded a slice at a time between other jobs.
LARGE_WINDOWS = 2 * EMBED_SLICE
# How long a renamed file's old name, or a file whose old content moved to another name,
# waits for that name's parse (then it is pruned or replaced anyway).
MOVE_GRACE_S = 10.0
# A file that keeps changing and has not been written for this long is taken to have
# stopped: its rest ends and the version on disk is planned now (`SlowFiles.supersede`).
QUIET_S = 1.0
# Slices in a row given to files with fewer windows left before the file set aside
# longest gets one: fewest-left-first alone starved a large file for as long as smaller
# ones kept being set aside (a folder where files keep changing), and this costs a small
# file at most one slice of a large one.
PASSED_OVER = 4


@dataclass
class Deferred:
    """A file set aside: its parse is still running (`file.ticket`), it is being chunked
    on the planner thread (`file.planning`), or its windows are being embedded a slice at
    a time (`staged`). It stays pending in the queue until it is released."""

    file: InFlight
    staged: Staged | None = None
    windows: dict[str, str] = field(default_factory=dict)  # window hash → text, to embed
    missing: list[str] = field(default_factory=list)  # hashes not cached when it was planned
    embedded: int = 0  # how many of `missing` are embedded (or were found cached since)
    flight: Flight | None = None  # its place in the queue's progress, until released
    # When it was planned and when its first slice was embedded (monotonic): a file
    # waits while one with fewer windows left is embedded (`advance`).
    staged_at: float | None = None
    embedding_since: float | None = None

    @property
    def ready(self) -> bool:
        """Planned and embedded: only its apply is left."""
        return self.staged is not None and self.embedded >= len(self.missing)

    def bytes_done(self) -> int:
        """Progress credit while it is embedded: its queued bytes times the share of its
        windows done (the embedding is nearly all of a large file's time)."""
        flight, missing, embedded = self.flight, len(self.missing), self.embedded
        if flight is None or self.staged is None or not missing:
            return 0
        return flight.size * min(embedded, missing) // missing

    def describe(self) -> dict[str, object]:
        """For `rag status`: the step this file is on (or `queued`, with the step it
        waits for as `next`) and the seconds of that step alone. Counted from when the
        file was picked up, two small files waiting behind a large one's embedding read
        "embedding 0/3 windows (303 s)" (newuser43). (Read on a request thread while the
        writer moves it along: each field is read once.)"""
        ticket, staged, file = self.file.ticket, self.staged, self.file
        now = time.monotonic()
        if staged is not None:
            begun, total = self.embedding_since, len(self.missing)
            waiting = begun is None and self.embedded < total
            return {
                "source": file.label,
                "stage": "queued" if waiting else "embedding",
                **({"next": "embedding"} if waiting else {}),
                "done": self.embedded,
                "total": total,
                "elapsed_s": round(now - (begun or self.staged_at or file.started), 1),
            }
        waits: str | None = None
        if ticket is None:
            running = file.chunking_since
            waits = None if running is not None else "chunking"
            since = running or file.chunk_queued or file.started
        elif ticket.started is None:
            waits, since = "parsing", file.started  # for a parse worker: not parsing yet
        else:
            since = ticket.started
        described: dict[str, object] = {
            "source": file.label,
            "stage": "queued" if waits else ("parsing" if ticket is not None else "chunking"),
            "elapsed_s": round(now - since, 1),
        }
        if waits:
            described["next"] = waits
        progress = ticket.progress if ticket is not None else None
        if progress is not None:  # a scanned PDF being read by OCR, page by page
            described.update(done=progress[0], total=progress[1], unit="pages")
        return described


@dataclass(frozen=True)
class Rest:
    """A file that keeps changing, applied just now: its next version waits `until`."""

    until: float  # monotonic
    label: str


def _under(key: tuple[str, str], root: str, relpath: str) -> bool:
    """Is the file `key` at `relpath` of `root` or under it (all of a root for "")?"""
    return key[0] == root and (not relpath or key[1] == relpath or key[1].startswith(relpath + "/"))


class SlowFiles:
    """The files set aside, the queue's hold/release rules for them, and their steps."""

    def __init__(self, queue: WorkQueue, writer: IndexWriter, files: FilePlanner) -> None:
        self.queue = queue
        self.writer = writer
        self.files = files
        self._items: list[Deferred] = []
        self.current: str | None = None  # label of the file whose slice is being embedded
        # Files whose version in flight superseded an earlier one in flight: a newer
        # version waits for it rather than cancel it too (`supersede`).
        self._superseded: set[tuple[str, str]] = set()
        # Such files just applied, and the version after waits until then (`_settled`).
        self._resting: dict[tuple[str, str], Rest] = {}
        # How long such a file must go unwritten for its rest to end early (QUIET_S, twice
        # as long each time a quiet turned out to be a pause), and the files whose version
        # in flight was planned that way.
        self._quiet_s: dict[tuple[str, str], float] = {}
        self._hastened: set[tuple[str, str]] = set()
        self._passed_over = 0  # slices in a row not given to the file set aside longest

    def __bool__(self) -> bool:
        return bool(self._items)

    # -- the queue's rules ----------------------------------------------------------
    def set_aside(self, planned: Staged | InFlight, hold: bool = False) -> bool:
        """Hold a file in flight, or a plan too large to embed at once (or any plan, with
        `hold`); False for a plan to apply now. (Held: no chunks yet, the queue counts
        them at release.)"""
        if isinstance(planned, InFlight):
            self._hold(Deferred(planned))
            return True
        if planned.plan.window_count() <= LARGE_WINDOWS and not hold:
            return False
        row = planned.plan.row
        file = InFlight(
            row.root,
            row.relpath,
            planned.label,
            row.size,
            row.mtime_ns,
            row.sha256,
            planned.started,
        )
        item = Deferred(file)
        if self._embed_later(item, planned):
            self._hold(item)
        return True  # held, or left out for the file size limit (the writer said so)

    def _hold(self, item: Deferred) -> Deferred:
        item.flight = self.queue.hold(item.file.root, item.file.relpath)
        self._items.append(item)
        return item

    def release(self, item: Deferred, chunks: int = 0, superseded: bool = False) -> None:
        if not superseded:
            self._settled(item.file)
        if item in self._items:
            self._items.remove(item)
            assert item.flight is not None  # set by `_hold`
            self.queue.release(item.flight, chunks, superseded)

    def supersede(self, root: str, relpath: str, mtime_ns: int) -> bool:
        """A newer version of a file (last written at `mtime_ns`) is to be planned: cancel
        the version in flight, unless that one already superseded another, then False: the
        newer version waits until it is applied. A file written faster than it is parsed
        and chunked (a log appended every 100 ms, an editor's autosave of a long file) was
        otherwise cancelled at every write and never indexed while the writes went on; now
        at most one plan is thrown away, and the index follows the file version after
        version. A file resting (`_settled`) waits out its rest unless its writes stopped."""
        key = (root, relpath)
        rest = self._resting.get(key)
        if rest is not None:
            if time.monotonic() < rest.until and not self._stopped(key, mtime_ns):
                return False
            del self._resting[key]
        if not any((i.file.root, i.file.relpath) == key for i in self._items):
            return True  # nothing in flight (the common path)
        if key in self._superseded:
            return False
        self.cancel(root, relpath)
        self._superseded.add(key)
        return True

    def _stopped(self, key: tuple[str, str], mtime_ns: int) -> bool:
        """Has a resting file gone unwritten long enough to end its rest? Its last version
        is then indexed about QUIET_S after the last write, not at the end of a rest as
        long as a plan took (4.7 s for a 4 MB log: its final lines were ≈ 3 s staler than
        any other file's). The quiet is read from the file's mtime (a write with no event
        counts too), against the wall clock that stamps it."""
        quiet_s = time.time() - mtime_ns / 1e9
        if quiet_s < self._quiet_s.get(key, QUIET_S):
            return False
        self._hastened.add(key)
        return True

    def _settled(self, file: InFlight) -> None:
        """A version set aside was applied or given up. While a newer one waits in the
        queue the file still keeps changing: the version planned next is not cancelled
        either (cleared here, every other plan was thrown away), and it is planned only
        once as long again has passed as this version took, from its read to its apply.
        So a file written non-stop costs at most about half of one core however large
        it is (back to back, a 4 MB log kept one core 65 % busy; at ≈ 1 CPU s per MB of
        text to chunk, a larger one would take all of it), and its index is at most
        about three of its plans behind the disk. A version planned because the writes
        seemed to have stopped (`_stopped`), after which the file changed again, was
        planned in a pause: the next rest ends early only after a quiet twice as long, so
        a file written every few seconds is still held to its rests."""
        key = (file.root, file.relpath)
        hastened = key in self._hastened
        self._hastened.discard(key)
        if not self.queue.waiting(Job("sync", *key)):
            self._superseded.discard(key)
            self._quiet_s.pop(key, None)
        elif key in self._superseded:
            if hastened:
                self._quiet_s[key] = 2 * self._quiet_s.get(key, QUIET_S)
            now = time.monotonic()
            self._resting[key] = Rest(now + (now - file.started), file.label)

    def cancel(self, root: str, relpath: str) -> None:
        """A delete, a forget or an exclusion (or a newer version: `supersede`) ends slow
        work on a path or under it."""
        self._superseded = {key for key in self._superseded if not _under(key, root, relpath)}
        self._hastened = {key for key in self._hastened if not _under(key, root, relpath)}
        for key in [key for key in self._resting if _under(key, root, relpath)]:
            del self._resting[key]
        for key in [key for key in self._quiet_s if _under(key, root, relpath)]:
            del self._quiet_s[key]
        for item in list(self._items):
            file = item.file
            if _under((file.root, file.relpath), root, relpath):
                if file.ticket is not None:
                    file.ticket.cancel()
                if file.planning is not None:
                    file.planning.cancel()  # a plan already running is simply dropped
                self.release(item, superseded=True)  # the newer job carries the file

    def covers(
        self, root: str, relpath: str, st: os.stat_result, digest: str | None = None
    ) -> bool:
        """Is this version of the file already being worked on? Told by its stat, and by
        its bytes' `digest` too when given (a save that keeps size and mtime looks the
        same to a stat: `ingest/rewrites.py`)."""
        return any(
            i.file.root == root
            and i.file.relpath == relpath
            and (i.file.size, i.file.mtime_ns) == version(st)
            and digest in (None, i.file.digest)
            for i in self._items
        )

    def carries(self, digest: str, within_s: float, unready: bool = False) -> bool:
        """Is a file with this content in flight, set aside less than `within_s` ago (a
        renamed file's new name: its old name waits for it, but not for ever)?
        `unready`: only one whose apply is not ready yet."""
        now = time.monotonic()
        return any(
            i.file.digest == digest
            and now - i.file.started < within_s
            and not (unready and i.ready)
            for i in list(self._items)
        )

    def replaces_moving(self, root: str, relpath: str, digest: str, unready: bool = False) -> bool:
        """Would giving this path the content `digest` remove content that a file in flight
        (`unready`: one not yet ready to apply) is to hold? Two files swapped by renames
        (a → tmp, b → a, tmp → b): each name's new plan replaces the other's content, so
        the first one ready waits (MOVE_GRACE_S at most) and both are applied together;
        applied alone, the other file was in no index until its own parse ended."""
        if not self._items:
            return False  # nothing in flight: no manifest read on the common path
        indexed = self.writer.stores.manifest.file(root, relpath)
        if indexed is None or indexed.sha256 == digest:
            return False
        return self.carries(indexed.sha256, MOVE_GRACE_S, unready)

    def _waiting(self, item: Deferred) -> bool:
        """Is this ready file to wait for another in flight (`replaces_moving`)?"""
        file = item.file
        return self.replaces_moving(file.root, file.relpath, file.digest, unready=True)

    # -- for status and the cache ---------------------------------------------------
    def describe(self) -> list[dict[str, object]]:
        """The slow files being worked on between other jobs, and those that keep
        changing waiting for their next version, for `rag status`."""
        now = time.monotonic()
        resting = [
            {"source": rest.label, "stage": "changing", "wait_s": round(rest.until - now, 1)}
            for rest in dict(self._resting).values()
            if rest.until > now
        ]
        return [item.describe() for item in list(self._items)] + resting

    def bytes_underway(self) -> int:
        """Bytes of the slow files being embedded, in proportion to the windows done."""
        return sum(item.bytes_done() for item in list(self._items))

    def windows_kept(self) -> set[str]:
        """Window hashes of files still being worked on (a cache prune keeps them)."""
        return {h for item in list(self._items) for h in item.windows}

    # -- the steps ------------------------------------------------------------------
    def advance(self) -> None:
        """One step of slow work: a finished parse or plan first, else one slice of the
        file with the fewest windows left. A small file is set aside too when its parse
        outlasts PARSE_PATIENCE_S (a loaded machine, a fresh parse worker); taken in the
        order set aside, it then waited for every slice of a large file set aside before
        it (a 20 MB file: minutes), where its own one slice costs the large file one."""
        for item in list(self._items):
            if item.file.ticket is not None and item.file.ticket.done():
                return self._parsed(item)
            if item.file.planning is not None and item.file.planning.done():
                return self._planned(item)
        movable = [
            item
            for item in list(self._items)
            if item.staged is not None and not (item.ready and self._waiting(item))
        ]
        if not movable:
            return None
        oldest = movable[0]  # (set aside first: `_items` keeps that order)
        shortest = min(movable, key=lambda i: len(i.missing) - i.embedded)
        if shortest is oldest or self._passed_over >= PASSED_OVER:
            self._passed_over = 0
            return self._embed_slice(oldest)
        self._passed_over += 1
        return self._embed_slice(shortest)

    def _parsed(self, item: Deferred) -> None:
        file = item.file
        try:  # a large text is then chunked on the planner thread, a small one here
            planned = self.files.parsed(file)
        except OutOfDescriptors:
            raise  # the process's state, not the file's: as before, the writer's to say
        except Exception as exc:
            self.writer.file_failed(file.root, file.relpath, file.label, exc, "planning")
            return self.release(item)
        if planned is None:  # cancelled
            self.release(item)
        elif isinstance(planned, Staged):
            if not self._embed_later(item, planned):
                self.release(item)
        elif not isinstance(planned, InFlight):
            self.writer.settle(file.root, file.relpath, planned, file.label)
            self.release(item)

    def _planned(self, item: Deferred) -> None:
        file = item.file
        assert file.planning is not None
        planning, file.planning = file.planning, None
        try:
            queued = self._embed_later(item, planning.result())
        except Exception as exc:
            self.writer.file_failed(file.root, file.relpath, file.label, exc, "planning")
            queued = False
        if not queued:
            self.release(item)

    def _embed_later(self, item: Deferred, staged: Staged) -> bool:
        """Queue a planned file's windows for embedding a slice at a time; False when the
        file size limit leaves it out anyway (a file as large did not fit)."""
        item.staged = staged
        item.staged_at = time.monotonic()
        item.windows = staged.plan.windows()
        file = item.file
        if self.writer.cannot_fit(file.root, file.relpath, file.label, item.windows):
            return False
        item.missing = self.writer.to_embed(item.windows)
        return True

    def _embed_slice(self, item: Deferred) -> None:
        """Embed the next slice of a file's windows; after the last, apply it."""
        staged, file = item.staged, item.file
        assert staged is not None
        part = item.missing[item.embedded : item.embedded + EMBED_SLICE]
        left = item.missing[item.embedded :]
        if left and self.writer.cannot_fit(file.root, file.relpath, file.label, left):
            return self.release(item)  # planned before a file as large was stopped
        try:
            if part:
                if item.embedding_since is None:
                    item.embedding_since = time.monotonic()
                self.current = file.label
                self.writer.embed_slice(item.windows, part)
                item.embedded += len(part)
            if item.ready and not self._waiting(item):
                waited = [i for i in self._items if i.ready and i is not item]
                self._apply([item, *(i for i in waited if not self._waiting(i))])
        except Exception as exc:
            # What was stored before this slice filled the room the limit left: a later
            # file needing as many new vectors as this slice cannot be stored either.
            needed = len(part) or None
            plan = staged.plan  # kept for its retry if the manifest's lock stopped it
            self.writer.file_failed(
                file.root, file.relpath, file.label, exc, needed=needed, plan=plan
            )
            self.release(item)
        finally:
            self.current = None

    def _apply(self, items: list[Deferred]) -> None:
        """Apply ready files in one step (a file waiting for this one among them: the
        content it gives up and the content it gets land in the same commit)."""
        done = [(item, item.staged) for item in items if item.staged is not None]
        try:
            self.writer.index_embedded([staged.plan for _, staged in done])
        except Exception as exc:  # shown in `rag status` until the file is indexed
            for item, staged in done:
                row = staged.plan.row
                self.writer.file_failed(
                    row.root, row.relpath, staged.label, exc, trace=False, plan=staged.plan
                )
                self.release(item)
            return
        for item, staged in done:
            staged.log_indexed(len(done), set_aside=True)
            self.release(item, len(staged.plan.chunks))
