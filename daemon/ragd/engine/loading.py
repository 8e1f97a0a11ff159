"""Start-up's slow part, on the loader thread: settings → Components, then going live.

    load       verify and open the stores (rebuilding what can be rebuilt, the vector
               index probed in a child process) while the model loads, remember the
               roots, repair the indexes if there is a reason to, build the writer, the
               retriever, the floor keeper and the watcher, queue the initial scans, warm
               the vector index: returns the Components (from then on the daemon is ready)
    before_writing   what follows readiness and comes before the index writer starts:
               wait for a vector store server that was down (then check and repair),
               relabel the texts stored with another scope than their holders give
               (on a server, or after a reason to check),
               settle `embed_precision = "auto"` (known at once, or measured in the
               background while the writer indexes: ragd.index.precision_task)

Every step goes through `Startup.step`, which raises Stopped once shutdown has begun.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragd.core.config import LiveSettings, Settings
from ragd.core.layout import VECTOR_DATABASE, DataDir
from ragd.core.no_text import own_output_paths
from ragd.core.roots import Roots, configured_elsewhere
from ragd.core.roots import refusal as roots_refusal
from ragd.engine.components import Basics, Components, Startup, Stopped
from ragd.index import vector_seal
from ragd.index.consistency import compare
from ragd.index.dense_store import DenseStore
from ragd.index.embedder import MODEL_ID, Embedder, MiniLMEmbedder
from ragd.index.locked_store import LockedStore
from ragd.index.precision_task import MEASURING, PrecisionTask, initial
from ragd.index.server_store import VectorStoreUnavailable
from ragd.index.store import Stores, fingerprint
from ragd.index.store_lock import LockWatch
from ragd.index.store_process import StoreProcess
from ragd.index.verify import open_manifest, prepare_dense, remembered_roots
from ragd.index.writer import IndexWriter
from ragd.ingest.assembly import build_indexer
from ragd.ingest.chunking import ChunkParams
from ragd.ingest.filters import PathFilter
from ragd.ingest.indexer import Indexer
from ragd.ingest.parse_pool import ParseLimits, ParsePool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.watcher import Watcher
from ragd.ingest.work_queue import Job
from ragd.query.calibration import FloorKeeper
from ragd.query.retrieval import Retriever

log = logging.getLogger("ragd")


def load(live: LiveSettings, basics: Basics, startup: Startup) -> tuple[Components, list[str]]:
    """Build every component; also returns why the indexes must be checked (for
    before_writing when the vector store server was down and the check had to wait).
    Parts that read a reloadable setting at use are given `live`."""
    writer, embedder, reasons = open_stores(live.current, basics, startup)
    if writer.stores.dense.unavailable() is None:  # else once it answers
        check_indexes(writer, embedder, reasons, startup)
    components = build(live, basics, writer, embedder, startup)
    start_watching(components)
    startup.step("warming the vector index")
    writer.stores.dense.warm()
    startup.step("ready")
    return components, reasons


def open_stores(
    settings: Settings, basics: Basics, startup: Startup
) -> tuple[IndexWriter, MiniLMEmbedder, list[str]]:
    """Verify and open the stores (their writer holds them); load the model meanwhile;
    remember the roots."""
    startup.step("checking the manifest")
    settings.data_path.mkdir(parents=True, exist_ok=True)
    # Start-up repair waits for room like the writer.
    manifest = open_manifest(settings.data_path, guard=basics.guard)
    room = basics.guard.room()
    embedded = settings.vector_target.embedded  # a server checks its own data

    def check_and_open() -> tuple[str | None, Stores]:
        # The probe (a child process) must pass before ChromaDB is opened here: a damaged
        # store is removed first, to be rebuilt. A store sealed at a clean stop and
        # unchanged since needs none; on a full disk the seal cannot be removed: probe.
        reason = None
        watch = LockWatch(DataDir(settings.data_path).vectors / VECTOR_DATABASE)
        if embedded and (pid := watch.holder()) is not None:
            # Neither probed nor opened (either would wait for the lock, the open with
            # the GIL held): searches use BM25 until it goes, then the stored vectors.
            log.warning(
                "%s: waiting for it (searches answer from BM25 until then; nothing is "
                "rebuilt or embedded again)",
                watch.phrase(pid),
            )
            locked = LockedStore(watch, pid, settings.vector_target, open_dense)
            stores = Stores.open(
                settings.data_path, manifest, settings.vector_target, basics.guard, locked
            )
            return "the vector index was locked by another process at start", stores
        if embedded:
            reason = vetted()
        dense = open_dense(vet=False) if embedded else None
        stores = Stores.open(
            settings.data_path, manifest, settings.vector_target, basics.guard, dense
        )
        return reason, stores

    def vetted() -> str | None:
        """Check the embedded store before it is opened: its seal, else the probe."""
        if room and vector_seal.take(manifest, DataDir(settings.data_path).vectors):
            log.debug("the vector index is as a clean stop sealed it: not probed")
            return None
        log.debug("probing the vector index in a child process")
        return prepare_dense(settings.data_path, manifest, MODEL_ID, room)

    def open_dense(vet: bool = True) -> DenseStore:
        """The embedded store, in its own process (index/store_process.py). Once a lock
        is gone: the usual check first (what it finds, it logs); the start-up comparison
        follows either way. A worker that dies is started again after the same check."""
        if vet:
            vetted()
        folder = DataDir(settings.data_path).vectors
        return StoreProcess(
            folder,
            settings.vector_target,
            guard=basics.guard,
            vet=lambda: prepare_dense(settings.data_path, manifest, MODEL_ID, basics.guard.room()),
        )

    # Both take seconds (importing torch and the model; importing ChromaDB, probing and
    # opening the stores) and much of it releases the GIL: side by side, not one by one.
    opening = _Background(check_and_open)
    startup.step("loading the embedding model")
    embedder = MiniLMEmbedder(precision=settings.embed_precision)  # type: ignore[arg-type]
    startup.step("checking and opening the indexes")
    reason, stores = opening.result()
    reasons = [reason] if reason else []
    # A write waiting for an unreachable server stops at shutdown.
    startup.at_shutdown.append(lambda: stores.dense.stop_waiting())  # (the one in use)
    writer = IndexWriter(stores, embedder)
    remember_roots(writer, basics, settings)
    chunker = PARAMS.fingerprint()
    writer.ensure_fingerprint(
        fingerprint(embedder.model_id, embedder.dimension, embedder.max_tokens, chunker)
    )
    if changed := stores.vector_store_changed():
        reasons.append(changed)
    if manifest.get_meta(vector_seal.CLEAN_KEY) == "0":
        reasons.append("after an unclean stop")
    if stores.lexical.rebuilt_because:
        reasons.append(stores.lexical.rebuilt_because)
    return writer, embedder, reasons


PARAMS = ChunkParams()  # the chunking every index of this version is built with


def remember_roots(writer: IndexWriter, basics: Basics, settings: Settings) -> None:
    """Watch the roots the manifest remembers and the configured ones; store the union."""
    remembered, note = remembered_roots(writer.stores.manifest)
    if note:
        log.warning("%s", note)
    for root in [*remembered, *settings.roots]:
        if (why := roots_refusal(Path(root))) is not None:
            # Added before such roots were refused: dropped, its files pruned at start.
            log.warning("%s; forgetting it", why)
            continue
        if root not in remembered and (other := basics.roots.named_otherwise(root)):
            # A configured name for a root's folder (a remembered root that has become a
            # link stays: the watcher leaves it unwatched until it is a folder again).
            log.info(configured_elsewhere(root, other, basics.roots.names()[other]))
            continue
        basics.roots.add(root)
    # On a full disk the write waits for the first index write (`remember_roots`), so the
    # daemon becomes ready and answers from what is indexed.
    roots_json = basics.roots.to_json()
    room = basics.guard.room()
    writer.remember_roots(roots_json, wait=room)
    if not room and writer.stores.manifest.get_meta("roots") != roots_json:
        log.warning(
            "the roots are remembered once the data dir has room: %s", basics.guard.describe()
        )


def check_indexes(
    writer: IndexWriter, embedder: MiniLMEmbedder, reasons: list[str], startup: Startup
) -> None:
    """Compare the indexes with the manifest if there is a reason to; repair."""
    repair_indexes(writer, embedder, reasons, lambda: startup.step("checking the indexes"))
    writer.stores.remember_vector_store()


class VectorAudit:
    """When the writer compares a vector store server's collection with the manifest
    although no call failed. A server put back to an older copy of its data (a backup
    restored, a snapshot) while the daemon was idle keeps the same collection, so no
    request fails and no reconnection asks for a refill: vector search then missed every
    file changed since, for as long as the daemon ran. The count is one request, asked
    as often as an unwatched root is rescanned (the other change nothing announces)."""

    def __init__(self, stores: Stores, every_s: float) -> None:
        self._stores = stores
        self._every_s = every_s
        self._next = time.monotonic() + every_s

    def due(self) -> bool:
        if not self._stores.on_server or self._stores.dense.unavailable() is not None:
            return False
        if time.monotonic() < self._next:
            return False
        self._next = time.monotonic() + self._every_s
        return True


def upkeep(writer: IndexWriter, embedder: MiniLMEmbedder, audit: VectorAudit) -> None:
    """On the writer thread, between jobs: a lexical index a read found damaged is
    rebuilt from the manifest, then the vector store refilled if it needs it."""
    if writer.stores.lexical.damaged is not None:
        writer.rebuild_lexical()
    refill_vector_store(writer, embedder, audit)


def refill_vector_store(writer: IndexWriter, embedder: MiniLMEmbedder, audit: VectorAudit) -> None:
    """On the writer thread, between jobs: a vector store server that answers again
    (after being down, hung, emptied, or losing its collection), the embedded store's
    worker process started again after it died, or a server whose size no longer
    matches the manifest, is compared with the manifest and refilled from the embedding
    cache — nothing is embedded again."""
    came_back = writer.stores.dense.take_refill()
    if came_back or audit.due():
        # Gone again: the store said so once, and its reconnection asks for a refill.
        # One that came back is compared id by id: a worker killed mid-write (or a
        # server restarted) may hold other vectors than the manifest with the same count.
        with contextlib.suppress(VectorStoreUnavailable):
            writer.stores.dense.recount()
            agree = counts_agree(writer.stores)  # else repair says the sizes disagree
            repair_indexes(
                writer, embedder, ["the vector store came back"] if came_back and agree else []
            )
            if came_back or not agree:
                # Ids are not all: an older copy holds a text still held with the scope
                # it had then, too narrow for a file that gained it since.
                writer.rescope()


def repair_indexes(
    writer: IndexWriter,
    embedder: Embedder,
    reasons: list[str],
    announce: Callable[[], None] = lambda: None,
) -> None:
    """`check_indexes` without the start-up phase: with no reason given, only when the
    index sizes disagree with the manifest."""
    stores = writer.stores
    if not reasons and not counts_agree(stores):
        reasons.append("the index sizes disagree with the manifest")
    if not reasons:
        return
    announce()
    report = compare(stores)
    if not report.consistent:
        log.warning(
            "repairing the indexes (%s): %d dense orphans, %d dense missing, "
            "%d lexical orphans, %d lexical missing",
            "; ".join(reasons),
            len(report.dense_orphans),
            len(report.dense_missing),
            len(report.lexical_orphans),
            len(report.lexical_missing),
        )
        writer.repair(report, Planner(embedder, PARAMS).window_text)


def counts_agree(stores: Stores) -> bool:
    """A cheap sanity check after a clean stop: do the index sizes match the manifest?

    Catches an index folder that was emptied or lost while the daemon was down, which
    the clean-shutdown flag alone would hide (searches would silently find nothing).
    """
    chunks, windows = stores.manifest.chunk_totals()
    return stores.dense.count() == windows and stores.lexical.num_docs() == chunks


def build(
    live: LiveSettings,
    basics: Basics,
    writer: IndexWriter,
    embedder: MiniLMEmbedder,
    startup: Startup,
) -> Components:
    """The writer, the retriever, the floor keeper and the watcher over the open stores."""
    settings = live.current
    stores, manifest = writer.stores, writer.stores.manifest
    # From now on a crash must not pass for a clean stop. On a full disk the writer
    # clears the flag itself before its first write, once space returns.
    if basics.guard.room():
        writer.mark_unclean()
    startup.step("starting the watcher")
    path_filter = PathFilter.from_settings(settings, basics.roots)
    watcher = Watcher(
        basics.roots,
        path_filter,
        basics.queue,
        settings.unwatched_rescan_s,
        own_output=own_output_paths(),
    )
    audit = VectorAudit(stores, settings.unwatched_rescan_s)
    indexer = build_indexer(
        writer,
        Planner(embedder, PARAMS, lambda: FileRules.from_settings(live.current)),
        ParsePool(lambda: ParseLimits.from_settings(live.current)),
        basics.roots,
        path_filter,
        basics.queue,
        owns_parser=True,
        on_folder_readable=watcher.refresh,
        between_jobs=lambda: upkeep(writer, embedder, audit),
    )
    retriever = Retriever(stores, embedder, basics.roots, live)
    keeper = FloorKeeper(
        retriever,
        embedder,
        manifest,
        signature=lambda: index_signature(indexer, basics.roots),
        busy=lambda: basics.queue.pending() > 0,
        save=writer.remember,
    )
    return Components(
        queue=basics.queue,
        roots=basics.roots,
        guard=basics.guard,
        params=PARAMS,
        stores=stores,
        writer=writer,
        embedder=embedder,
        precision_task=PrecisionTask(
            embedder, initial(settings.embed_precision, embedder), basics.stopping.is_set
        ),
        filter=path_filter,
        indexer=indexer,
        retriever=retriever,
        floor_keeper=keeper,
        watcher=watcher,
    )


def index_signature(indexer: Indexer, roots: Roots) -> tuple[int, int, int]:
    """Changes whenever the writer changes the index (the floor is re-learned then)."""
    c = indexer.counters
    return (c.files_indexed, c.files_removed, len(roots))


def start_watching(c: Components) -> None:
    """Start the watcher, then queue a scan of every root (and drop forgotten ones)."""
    c.watcher.start()  # before the walk, so nothing changed during it is missed
    for root in {f.root for f in c.stores.manifest.files()} - set(c.roots):
        c.queue.put(Job("forget", root), debounce=False)
    for root in c.roots:
        if not Path(root).is_dir():
            log.warning("root %s is not a folder (yet); watching nothing there", Path(root).name)
            continue
        c.queue.put(Job("sync", root, ""), debounce=False)


def before_writing(
    c: Components, reasons: list[str], startup: Startup, stopping: Callable[[], bool]
) -> None:
    """After readiness, before the writer starts: catch up with a vector store server
    that was down, and settle the precision. Searches are answered meanwhile."""
    if c.dense_down():  # searches answer from BM25 meanwhile; the writer starts after
        catch_up_with_the_vector_store(c, reasons, startup, stopping)
    rescope_at_start(c.writer, reasons, stopping)
    if c.precision.reason == MEASURING:  # never waited for: it runs beside the writer
        c.precision_task.start()


def rescope_at_start(writer: IndexWriter, reasons: list[str], stopping: Callable[[], bool]) -> None:
    """Relabel every text the vector store holds with another scope than its holders give
    it, on a server or when start-up had a reason to check. Why: a server put back to an
    older copy of its data while ragd was stopped holds the very ids and count the
    manifest expects, so neither start-up's comparison nor the audit sees it, and a text a
    file gained since keeps the narrower scope it had then: a `--in` of that file missed
    it for as long as ragd ran (`ragd check` counts these as dense_misscoped). An embedded
    store lives in the data dir, put back with its manifest; after an unclean stop a scope
    may be left wider than its holders' (harmless, and relabelled here too). After
    readiness: comparing 72,576 texts took 5.5 s (nu23), searches are answered meanwhile."""
    if not (writer.stores.on_server or reasons):
        return
    try:
        writer.rescope(stopping)
    except VectorStoreUnavailable:  # once it is back, the refill rescopes
        pass
    except Exception as exc:  # the store's own trouble is its status's: start-up goes on
        log.warning("vector index: could not compare the stored scopes (%s)", exc)


def catch_up_with_the_vector_store(
    c: Components, reasons: list[str], startup: Startup, stopping: Callable[[], bool]
) -> None:
    """The server was down at start: wait for it, then check and repair as usual.

    Vectors missing on the server come back from the embedding cache (no re-embedding);
    files changed meanwhile are queued and indexed once the writer starts.
    """
    dense = c.stores.dense
    if not dense.wait_until_available(stopping):
        raise Stopped
    if isinstance(dense, LockedStore):  # the other process let go: open what is stored
        log.info("the other process let go of the vector index: using its stored vectors")
        dense = c.stores.opened_after_lock(dense.open())
    check_indexes(c.writer, c.embedder, reasons, startup)
    dense.warm()


class _Background:
    """Run `work` on a thread now; `result()` waits for its value (or re-raises)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ragd-open", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:
            self._error = exc

    def result(self) -> Any:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value
