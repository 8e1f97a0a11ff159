"""The daemon's parts: those that exist from the first moment, and the loaded ones.

    Basics      the work queue, the watched roots and the disk guard: `rag status` and
                systemd's STATUS= report them while start-up is still loading
    Components  everything loading builds (stores, model, filter, writer, retriever,
                floor keeper, watcher), created in one step by `ragd.engine.loading.load` once
                every part exists: "ready" means a Components object exists, and nothing
                ever sees one half-built
    Startup     how far start-up is: its phase while loading, then the Components; ops
                that need them call `require()`, which answers "starting" until then

A running daemon's settings are one `LiveSettings` (ragd.core.config), given at
construction to the parts that read a reloadable setting (the retriever: candidates and
support_floor; the planner: the size cap and symbolic links; the parse pool: its limits),
which read it at use. A reload (SIGHUP, ragd.app.service.Daemon.reload) replaces it, then
`reconfigure(old, new)` does what a change needs done: the queue reschedules waiting
changes under a new debounce, and newly configured roots are watched.
At shutdown the lifecycle gives `Components.stop` its deadline; the order the parts stop
in (the watcher, the measurements that read the stores, then the writer) is known here.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ragd.core.config import Settings
from ragd.core.roots import Roots, configured_elsewhere
from ragd.core.roots import refusal as roots_refusal
from ragd.index.space import DiskGuard
from ragd.ingest.work_queue import Job, WorkQueue
from ragproto.errors import Busy, Starting

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder
    from ragd.index.precision import Decision
    from ragd.index.precision_task import PrecisionTask
    from ragd.index.store import Stores
    from ragd.index.writer import IndexWriter
    from ragd.ingest.chunking import ChunkParams
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.indexer import Indexer
    from ragd.ingest.watcher import Watcher
    from ragd.query.calibration import FloorKeeper
    from ragd.query.retrieval import Retriever

log = logging.getLogger("ragd")


class Stopped(Exception):
    """Raised inside start-up when shutdown began while it was still loading."""


# wait(done, deadline): poll `done` until the deadline, answering clients meanwhile
Wait = Callable[[Callable[[], bool], float], bool]


# The settings a file is read under: a file skipped under them is held back until it changes.
FILE_LIMITS = ("max_file_mb", "max_text_mb", "parse_timeout_s", "parse_memory_mb")


@dataclass(frozen=True)
class Basics:
    """The parts that exist before anything is loaded."""

    queue: WorkQueue
    roots: Roots
    guard: DiskGuard
    stopping: threading.Event  # set once shutdown begins: long start-up steps give up

    @classmethod
    def from_settings(cls, settings: Settings) -> Basics:
        stopping = threading.Event()
        return cls(
            WorkQueue(debounce_s=settings.debounce_ms / 1000),
            Roots(),
            DiskGuard(settings.data_path, stopping),
            stopping,
        )


@dataclass
class Components:
    """Every loaded part, all at once (built by ragd.engine.loading.load)."""

    queue: WorkQueue
    roots: Roots
    guard: DiskGuard
    params: ChunkParams
    stores: Stores
    writer: IndexWriter  # every write to the stores
    embedder: MiniLMEmbedder
    precision_task: PrecisionTask  # embed_precision = "auto" measured after readiness
    filter: PathFilter
    indexer: Indexer
    retriever: Retriever
    floor_keeper: FloorKeeper
    watcher: Watcher
    # `ingest` and `forget` change roots on the search pool, a reload on its thread: one at a time.
    _roots_changing: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reconfigure(self, old: Settings, settings: Settings) -> None:
        """What a reload must do beyond replacing the settings (which the parts read at
        use): bring changes already waiting in line with a new debounce, and watch
        newly configured roots."""
        self.queue.reconfigure(settings)
        self._watch_configured_roots(old, settings)
        if old.follow_symlinks != settings.follow_symlinks:
            # Which files a root holds changed: the links already there are followed now
            # (they were skipped) or no longer (their outside text must leave the index).
            # Only a new link met the new value; a sync of each root meets them all.
            for root in self.roots:
                self.queue.put(Job("sync", root, ""), debounce=False)
        if any(getattr(old, key) != getattr(settings, key) for key in FILE_LIMITS):
            # A file skipped under the old limits is held back until it changes, so a
            # raised cap reached no file already skipped, and `rag status` went on naming
            # the old cap. Each is tried again under the new limits, as `rag ingest FILE`.
            for root, relpath, _, held in self.stores.manifest.problem_rows():
                if held and root in self.roots:
                    self.queue.put(Job("sync", root, relpath, force=True), debounce=False)
        if settings.max_file_bytes < old.max_file_bytes:
            # The walk skips a file whose size and mtime are as indexed, so a file indexed
            # under the old cap stayed searchable over the new one. Each is synced: the
            # planner's size check drops it from both indexes with the reason a file over
            # the cap gets at its first index (and a raised cap retries it, as above).
            cap = settings.max_file_bytes
            for root, relpath in self.stores.manifest.files_larger_than(cap):
                if root in self.roots:
                    self.queue.put(Job("sync", root, relpath), debounce=False)

    def _watch_configured_roots(self, old: Settings, new: Settings) -> None:
        for root in new.roots:
            if root in self.roots:
                continue
            if not Path(root).is_dir():
                log.warning("root %s is not a folder; not watching it", Path(root).name)
            elif (other := self.roots.named_otherwise(root)) is not None:
                log.info(configured_elsewhere(root, other, self.roots.names()[other]))
            elif (why := roots_refusal(Path(root))) is not None:
                log.warning("%s; not watching it", why)
            else:
                self.add_root(root)
        for root in set(old.roots) - set(new.roots):
            if root in self.roots:
                name = self.roots.names()[root]
                log.info("%s left the configuration but stays watched: `rag forget %s`", name, name)

    # -- roots -------------------------------------------------------------------
    def add_root(self, root: str) -> bool:
        """Watch a new root. All or nothing: if its row cannot be stored (NoSpace on a
        full disk) the root is not kept either, so a retried `rag ingest` adds it then
        instead of finding it "already added" and never watched."""
        with self._roots_changing, self.guard.answering():
            return self._add_root(root)

    def _add_root(self, root: str) -> bool:
        outer = self.roots.locate(root)  # a root holding this folder, before it is one
        added = self.roots.add(root)
        if added:
            try:
                self.writer.remember_roots(self.roots.to_json())
            except BaseException:
                self.roots.remove(root)
                raise
            self.watcher.watch(root)
            log.info("watching new root %s", self.roots.name(root))
        self.queue.put(Job("sync", root, ""), debounce=False)
        if added and outer is not None and outer[1]:
            # The folder's files are the new (deeper) root's now: the outer root's sync of
            # it, whose filter refuses them, prunes its old copies, as a forget of an inner
            # root syncs its folder into the outer one. A reload adding `docs/sub` beside
            # `docs` otherwise left every file of sub indexed twice.
            self.queue.put(Job("sync", *outer), debounce=False, folder=True)
        return added

    def forget_root(self, root: str) -> None:
        """Stop watching a root; as with `add_root`, nothing changes if its row cannot be
        stored. Called on the search pool; it does not queue behind `ingest` adding a root
        (which may be waiting on the disk): the answer is then Busy, to try again."""
        if not self._roots_changing.acquire(blocking=False):
            raise Busy("a root is being added; try again in a moment")
        try:
            with self.guard.answering():
                self._forget_root(root)
        finally:
            self._roots_changing.release()

    def _forget_root(self, root: str) -> None:
        position = list(self.roots).index(root)
        self.roots.remove(root)
        try:
            self.writer.remember_roots(self.roots.to_json())
        except BaseException:
            self.roots.insert(position, root)
            raise
        self.watcher.unwatch(root)
        outer = self.roots.locate(root)
        if outer is not None:  # the folder stays in a root that holds it: its files are
            # that root's now, indexed before the forget prunes the old copies
            self.queue.put(Job("sync", *outer), debounce=False, folder=True)
        self.queue.put(Job("forget", root), debounce=False)
        log.info("forgetting root %s", self.roots.name(root))

    # -- stopping ------------------------------------------------------------------
    def stop(self, deadline: float, wait: Wait, writing: bool) -> bool:
        """Stop in order within the deadline: the watcher, the precision measurement and
        the floor keeper (before the stores close under their measurements), then the
        writer; `writing` is False if the writer never started (nothing to flush). False
        when the writer had to be abandoned mid-file (the next start repairs). A
        measurement still running is cut short by the process's exit."""
        self.watcher.stop()
        busy = [name for name, stops in self._measurements() if not stops(_left(deadline))]
        for name in busy:
            log.warning("the %s is still running; exiting without teardown", name)
        if not writing:
            return True
        if wait(lambda: self.indexer.stop(0.05), deadline):
            self.stores.lexical.close()
            self._mark_clean()
            self._close_vector_store(deadline, wait)
            return True
        log.warning(
            "the index writer is still busy with %s; abandoning it (the next start repairs)",
            self.indexer.current or "a file",
        )
        return False

    def _close_vector_store(self, deadline: float, wait: Wait) -> None:
        """End and reap the vector store's worker process, after the seal, rather than
        leave it to notice the daemon's exit: a restart in place (os.execv, a data dir
        replaced) keeps the pid, and nothing would ever reap it (review46). On a thread,
        waited for within the deadline while clients are answered: a worker that cannot
        answer (stopped, stuck) held the loop two CLOSE_WAIT_S before its kill (review47);
        it is left to end with the daemon then (its parent-death signal is SIGKILL)."""
        closing = threading.Thread(
            target=self.stores.dense.close, name="ragd-vector-close", daemon=True
        )
        closing.start()
        if not wait(lambda: not closing.is_alive(), time.monotonic() + _left(deadline)):
            log.warning(
                "the vector store did not close within the shutdown deadline; "
                "it ends with the daemon"
            )

    def _measurements(self) -> list[tuple[str, Callable[[float], bool]]]:
        return [
            ("precision measurement", self.precision_task.stop),
            ("gate floor measurement", self.floor_keeper.stop),
        ]

    def _mark_clean(self) -> None:
        try:
            self.writer.mark_clean(True)
        except Exception as exc:  # a full disk: the next start checks the indexes instead
            log.warning("could not record a clean stop (%s); the next start checks", exc)

    @property
    def precision(self) -> Decision:
        """What embed_precision resolved to, and why (auto: measured after readiness)."""
        return self.precision_task.decision

    def dense_down(self) -> bool:
        return self.stores.dense.unavailable() is not None


def _left(deadline: float) -> float:
    """Time a part may take to stop: what is left of the deadline, at least a second."""
    return max(1.0, deadline - time.monotonic())


class Startup:
    """Start-up's progress: the phase while loading, then the Components (ready)."""

    def __init__(
        self, stopping: threading.Event, waiting: Callable[[], str | None] = lambda: None
    ) -> None:
        self.phase = "loading"
        # What start-up may be waiting for beyond its phase (the guard's "disk full: …"):
        # a new data dir on a full disk waits for room to be created, and "ragd is
        # starting (checking and opening the indexes)" alone was all a search ever said.
        self._waiting = waiting
        self.components: Components | None = None
        self.at_shutdown: list[Callable[[], None]] = []  # e.g. stop waiting for a server
        self._stopping = stopping
        # When the current phase began, in wall and process CPU time (for the debug log).
        self._since, self._cpu = time.monotonic(), time.process_time()

    @property
    def ready(self) -> bool:
        return self.components is not None

    def step(self, phase: str) -> None:
        """Enter the next phase, unless shutdown has begun (then raise Stopped)."""
        if self._stopping.is_set():
            raise Stopped
        now, cpu = time.monotonic(), time.process_time()
        log.debug(
            "start-up: %s took %.2f s (%.2f CPU s, all threads); now %s",
            self.phase,
            now - self._since,
            cpu - self._cpu,
            phase,
        )
        self.phase, self._since, self._cpu = phase, now, cpu

    def require(self) -> Components:
        """The components, for an op that needs them; "starting" until they exist."""
        components = self.components
        if components is None:
            waiting = self._waiting()
            raise Starting(f"ragd is starting ({self.phase}{f'; {waiting}' if waiting else ''})")
        return components
