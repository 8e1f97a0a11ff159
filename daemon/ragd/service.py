"""The daemon's lifecycle: startup → main loop → shutdown.

    startup    claim the data-dir and socket locks (a second daemon stops here, naming
               the first), install the signal handlers, bind the socket, and start the
               slow part (model, indexes, watcher, initial reconcile) on a loader thread
    main loop  serve requests in 100 ms polls; between polls act on the flags, ping the
               watchdog, and keep systemd's STATUS= current (recomputed at most once a
               second); READY=1 goes out once queries can be answered, while the initial
               reconcile may still be indexing
    shutdown   one deadline (`shutdown_timeout_s`) for everything: stop taking requests
               (clients get a typed "shutting down" reply meanwhile), stop the watcher,
               let the index writer finish its current file or abandon it, flush, close
               the socket, release the locks, exit 0

Signal handlers only set flags and the loop acts on them: SIGTERM and SIGINT stop, SIGHUP
reloads the configuration. The one exception is a second SIGINT, which exits at once
(status 130) whatever the main thread is doing: the user means it. If shutdown had to
abandon work (the writer mid-file, start-up still loading), the process leaves with
`os._exit` so no interpreter teardown races a thread that is still running; the
manifest was not marked clean, so the next start repairs.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragd.config import FIELDS, RESTART_ONLY, Settings, load_settings
from ragd.index.space import DiskGuard
from ragd.ingest.chunking import ChunkParams
from ragd.ingest.filters import PathFilter
from ragd.ingest.work_queue import Job, WorkQueue
from ragd.instance import Instance
from ragd.logs import error_line, set_level
from ragd.notify import Notifier, StatusReporter
from ragd.roots import Roots
from ragd.server import Server
from ragproto.errors import CannotListen, RagError, Starting

if TYPE_CHECKING:
    from ragd.index.embedder import MiniLMEmbedder
    from ragd.index.precision import Decision
    from ragd.index.store import Stores
    from ragd.ingest.indexer import Indexer
    from ragd.ingest.parse_pool import ParseLimits
    from ragd.ingest.watcher import Watcher
    from ragd.query.calibration import FloorKeeper
    from ragd.query.retrieval import Retriever

log = logging.getLogger("ragd")

LOOP_POLL_MS = 100
STATUS_INTERVAL_S = 1.0

# `ragd serve` exit codes (main.py; the unit's RestartPreventExitStatus names 2 and 3).
EXIT_FAILED = 1  # restarting may help
EXIT_DAMAGED = 2  # a store that cannot be rebuilt is damaged: the logged line says the fix
EXIT_BUSY = 3  # another process holds the data dir


class _Stopped(Exception):
    """Raised inside the loader when shutdown began while it was still starting."""


@dataclass
class Flags:
    stop: bool = False
    reload: bool = False
    interrupts: int = 0
    signal_name: str = ""


@dataclass
class ReloadSource:
    """What SIGHUP re-reads: the same config file and flags as at start-up."""

    config_path: Path | None = None
    flags: dict[str, Any] = field(default_factory=dict)


class Daemon:
    # Set by the loader thread; handlers only touch them once `ready` is True.
    stores: Stores
    embedder: MiniLMEmbedder
    precision: Decision  # what embed_precision resolved to, and why
    filter: PathFilter
    indexer: Indexer
    retriever: Retriever
    floor_keeper: FloorKeeper
    watcher: Watcher

    def __init__(self, settings: Settings, reload_source: ReloadSource | None = None) -> None:
        self.settings = settings
        self.reload_source = reload_source or ReloadSource()
        self.flags = Flags()
        self.started = time.monotonic()
        self.ready = False
        self.failed: str | None = None
        self.exit_code = 0
        self.phase = "loading"
        self.params = ChunkParams()
        self.api_key = os.environ.get("ANTHROPIC_API_KEY", "")
        self.queue = WorkQueue(debounce_s=settings.debounce_ms / 1000)
        self.notifier = Notifier()
        self.reporter = StatusReporter(self.notifier, self.status_line, STATUS_INTERVAL_S)
        self.instance = Instance(settings.data_path, settings.socket)
        self.server = Server(settings.socket, self.queue.pending, settings.max_message_bytes)
        self.roots = Roots()
        self._loader: threading.Thread | None = None
        self._stopping = threading.Event()
        self.guard = DiskGuard(settings.data_path, self._stopping)
        self.reopen = False  # restart in place once shut down (a wedged vector index)
        self._writer_started = False
        self._startup_reasons: list[str] = []  # why start-up must check the indexes

    # -- public lifecycle --------------------------------------------------------
    def run(self) -> int:
        self.startup()
        complete = False
        try:
            self.main_loop()
        finally:
            complete = self.shutdown()
        code = 0 if self.failed is None else (self.exit_code or EXIT_FAILED)
        if self.reopen and complete:
            logging.shutdown()
            os.execv(sys.executable, [sys.executable, *sys.argv])
        if not complete or _busy_threads():
            logging.shutdown()
            os._exit(code)
        return code

    def startup(self) -> None:
        self.instance.claim()  # raises AlreadyRunning, naming the running daemon
        try:
            self._install_signal_handlers()
            self.server.bind()
        except Exception as exc:
            self.instance.release()
            raise CannotListen(f"cannot listen on {self.settings.socket}: {exc}") from exc
        except BaseException:
            self.instance.release()
            raise
        from ragd.handlers import Handlers

        handlers = Handlers(self)
        self.server.handlers.update(handlers.table())
        self.server.search_handlers.update(handlers.search_table())
        self.server.owner_only.update(handlers.owner_only())
        from ragd.ask import AskService

        self.asker = AskService(self)
        self.server.slow_handlers["ask"] = self.asker.ask
        self.server.handlers["chat_reset"] = self.asker.chat_reset
        log.info("listening on %s (pid %d); loading", self.settings.socket, os.getpid())
        self.reporter.report(self.status_line())
        self._loader = threading.Thread(target=self._load, name="ragd-loader", daemon=True)
        self._loader.start()

    def _step(self, phase: str) -> None:
        if self._stopping.is_set():
            raise _Stopped
        self.phase = phase

    def _load(self) -> None:
        """The slow part of start-up, off the loop thread; gives up early on shutdown."""
        from ragd.index.lexical import LexicalBusy
        from ragd.index.verify import DataDamaged
        from ragd.ingest.indexer import Interrupted

        try:
            self._open_stores()
            self._start_indexing()
        except (_Stopped, Interrupted):
            log.info("start-up interrupted by shutdown (%s)", self.phase)
        except DataDamaged as exc:  # one line saying what to do: no traceback, no restart
            self._fail_start(str(exc), EXIT_DAMAGED)
        except LexicalBusy as exc:
            self._fail_start(str(exc), EXIT_BUSY)
        except Exception as exc:
            log.exception("start-up failed while %s", self.phase)
            self._fail_start(f"start-up failed: {exc}", EXIT_FAILED, logged=True)

    def _fail_start(self, message: str, code: int, logged: bool = False) -> None:
        if not logged:
            log.error("%s", message)
        self.failed = message
        self.exit_code = code
        self.flags.stop = True

    def _open_stores(self) -> None:
        """Verify and open the stores (rebuilding what can be rebuilt), then repair."""
        from ragd.index.embedder import MODEL_ID, MiniLMEmbedder
        from ragd.index.precision import Decision
        from ragd.index.store import Stores, fingerprint
        from ragd.index.verify import open_manifest, prepare_dense, remembered_roots

        settings = self.settings
        self._step("checking the manifest")
        settings.data_path.mkdir(parents=True, exist_ok=True)
        manifest = open_manifest(settings.data_path)
        manifest.guard = self.guard  # start-up repair waits for room like the writer
        # The vector index is probed in a child process while the model loads.
        room = self.guard.room()
        embedded = settings.vector_target.embedded  # a server checks its own data

        def check_dense() -> str | None:
            return prepare_dense(settings.data_path, manifest, MODEL_ID, room) if embedded else None

        dense_check = _Background(check_dense)
        self._step("loading the embedding model")
        self.embedder = MiniLMEmbedder(precision=settings.embed_precision)  # type: ignore[arg-type]
        self.precision = Decision(self.embedder.precision, "set by embed_precision")
        self._step("checking the vector index")
        reasons = [r for r in [dense_check.result()] if r]
        self._step("opening the indexes")
        self.stores = Stores.open(settings.data_path, manifest, settings.vector_target)
        self.stores.attach(self.guard)
        remembered, note = remembered_roots(manifest)
        if note:
            log.warning("%s", note)
        for root in [*remembered, *settings.roots]:
            self.roots.add(root)
        if self.roots.to_json() != manifest.get_meta("roots"):
            manifest.set_meta("roots", self.roots.to_json())  # (no write on a full disk)
        wanted = fingerprint(
            self.embedder.model_id,
            self.embedder.dimension,
            self.embedder.max_tokens,
            self.params,
        )
        self.stores.ensure_fingerprint(wanted)
        if manifest.get_meta("clean_shutdown") == "0":
            reasons.append("after an unclean stop")
        if self.stores.lexical.rebuilt_because:
            reasons.append(self.stores.lexical.rebuilt_because)
        self._startup_reasons = reasons
        if not self._dense_down():  # else once the server answers (_catch_up_…)
            self._check_indexes(reasons)

    def _dense_down(self) -> bool:
        return getattr(self.stores.dense, "unreachable", None) is not None

    def _check_indexes(self, reasons: list[str]) -> None:
        """Compare the indexes with the manifest if there is a reason to; repair."""
        from ragd.index.consistency import compare, repair

        if not reasons and not self._counts_agree():
            reasons.append("the index sizes disagree with the manifest")
        if reasons:
            self._step("checking the indexes")
            report = compare(self.stores)
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
                repair(self.stores, self.embedder, report)

    def _start_indexing(self) -> None:
        from ragd.ingest.indexer import Indexer
        from ragd.ingest.parse_pool import ParsePool
        from ragd.ingest.watcher import Watcher
        from ragd.query.calibration import FloorKeeper
        from ragd.query.retrieval import Retriever

        settings, manifest = self.settings, self.stores.manifest
        # From the first write on, a crash must not pass for a clean stop. On a full disk
        # nothing is written until space returns, so the flag is set then.
        self.guard.first_write = lambda: manifest.set_meta("clean_shutdown", "0")
        if self.guard.room():
            self.guard.run_first_write()
        self._step("starting the watcher")
        self.filter = PathFilter.from_settings(settings)
        self.indexer = Indexer(
            self.stores,
            self.embedder,
            self.roots,
            self.filter,
            self.queue,
            settings.max_file_bytes,
            settings.follow_symlinks,
            self.params,
            ParsePool(parse_limits(settings)),
        )
        self.retriever = Retriever(
            self.stores,
            self.embedder,
            self.roots,
            settings.candidates,
            settings.support_floor or None,
        )
        self.floor_keeper = FloorKeeper(
            self.retriever,
            self.embedder,
            manifest,
            signature=self._index_signature,
            busy=lambda: self.queue.pending() > 0,
        )
        self.watcher = Watcher(self.roots, self.filter, self.queue)
        self.watcher.start()  # before the walk, so nothing changed during it is missed
        for root in {f.root for f in manifest.files()} - set(self.roots):
            self.queue.put(Job("forget", root), debounce=False)
        for root in self.roots:
            if not Path(root).is_dir():
                log.warning(
                    "root %s is not a folder (yet); watching nothing there", Path(root).name
                )
                continue
            self.queue.put(Job("sync", root, ""), debounce=False)
        dense_down = self._dense_down()
        self._step("warming the vector index")
        self.stores.dense.warm()
        self._step("ready")
        self.ready = True
        if dense_down:  # searches answer from BM25 meanwhile; the writer starts after
            self._catch_up_with_the_vector_store()
        self._choose_precision()  # searches are served meanwhile; the writer waits
        self.indexer.start()
        self._writer_started = True
        self.floor_keeper.start()

    def _choose_precision(self) -> None:
        """`auto`: the cached per-machine decision, or measured now (first start, seconds).

        Runs after READY, before the index writer starts: searches are answered during
        the measurement and the writer's batches do not skew its timings.
        """
        from ragd.index.precision import Cancelled, Decision, choose

        if self.settings.embed_precision != "auto":
            return
        self.precision = Decision("float32", "measuring float32 against bfloat16 (first start)")
        try:
            decision = choose(
                self.embedder, self.settings.data_path, cancelled=self._stopping.is_set
            )
        except Cancelled:
            raise _Stopped from None
        self.embedder.precision = decision.precision  # type: ignore[assignment]
        self.precision = decision

    def _catch_up_with_the_vector_store(self) -> None:
        """The server was down at start: wait for it, then check and repair as usual.

        Vectors missing on the server come back from the embedding cache (no re-embedding);
        files changed meanwhile are queued and indexed once the writer starts.
        """
        from ragd.index.server_store import ServerStore

        dense = self.stores.dense
        assert isinstance(dense, ServerStore)
        if not dense.wait_until_reachable(self._stopping.is_set):
            raise _Stopped
        self._check_indexes(self._startup_reasons)
        dense.warm()

    def _index_signature(self) -> tuple[int, int, int]:
        """Changes whenever the writer changes the index (the floor is re-learned then)."""
        c = self.indexer.counters
        return (c.files_indexed, c.files_removed, len(self.roots))

    def _counts_agree(self) -> bool:
        """A cheap sanity check after a clean stop: do the index sizes match the manifest?

        Catches an index folder that was emptied or lost while the daemon was down, which
        the clean-shutdown flag alone would hide (searches would silently find nothing).
        """
        windows = self.stores.manifest.all_chunk_windows()
        return self.stores.dense.count() == sum(
            windows.values()
        ) and self.stores.lexical.num_docs() == len(windows)

    def main_loop(self) -> None:
        announced = False
        while not self.flags.stop:
            self.server.poll_once(timeout_ms=LOOP_POLL_MS)
            if self.ready and not announced:
                announced = True
                line = self.status_line()
                self.reporter.last_text = line
                self.notifier.ready(line)
                log.info(
                    'ready: %d root(s), socket %s — try: rag ask "your question"',
                    len(self.roots),
                    self.settings.socket,
                )
            if self.flags.reload and self.ready:
                self.flags.reload = False
                self.reload()
            if self.ready and self.stores.dense.wedged and self.guard.room():
                log.warning("space is back: restarting to reopen the vector index")
                self.reopen = self.flags.stop = True
            self.notifier.keepalive()
            self.reporter.tick()

    def shutdown(self) -> bool:
        """Stop everything within one deadline; False if some work had to be abandoned."""
        timeout = self.settings.shutdown_timeout_s
        deadline = time.monotonic() + timeout
        why = f" ({self.flags.signal_name})" if self.flags.signal_name else ""
        log.info("shutting down%s", why)
        self.notifier.stopping(self.failed or "stopping")
        self.server.accepting = False  # requests now get a "shutting down" reply
        self._stopping.set()
        dense = getattr(getattr(self, "stores", None), "dense", None)
        if dense is not None and hasattr(dense, "give_up"):
            dense.give_up.set()  # a write waiting for an unreachable server stops waiting
        complete = True
        loader = self._loader
        if loader is not None and not self._wait(lambda: not loader.is_alive(), deadline):
            log.warning("start-up still busy (%s) after %g s; abandoning it", self.phase, timeout)
            complete = False
        watcher = getattr(self, "watcher", None)
        if watcher is not None:
            watcher.stop()
        keeper = getattr(self, "floor_keeper", None)
        if keeper is not None:
            keeper.stop()  # before the stores close under its measurement
        # A writer that never started (start-up still waiting for the vector store or
        # measuring precision) has not checked the indexes: the stop is not "clean".
        indexer = getattr(self, "indexer", None) if self._writer_started else None
        if indexer is not None and complete:
            if self._wait(lambda: indexer.stop(0.05), deadline):
                self.stores.lexical.close()
                self._mark_clean()
            else:
                log.warning(
                    "the index writer is still busy with %s after %g s; abandoning it "
                    "(the next start repairs)",
                    indexer.current or "a file",
                    timeout,
                )
                complete = False
        self.server.close()
        self.notifier.close()
        self.instance.release()
        log.info("stopped")
        return complete

    def _mark_clean(self) -> None:
        try:
            self.stores.manifest.set_meta("clean_shutdown", "1")
        except Exception as exc:  # a full disk: the next start checks the indexes instead
            log.warning("could not record a clean stop (%s); the next start checks", exc)

    def _wait(self, done: Callable[[], bool], deadline: float) -> bool:
        """Poll `done` until the deadline, answering clients and the watchdog meanwhile."""
        while True:
            if done():
                return True
            if time.monotonic() >= deadline:
                return False
            self.server.poll_once(timeout_ms=50)
            self.notifier.keepalive()

    # -- flags and signals -------------------------------------------------------
    def _install_signal_handlers(self) -> None:
        forced = (error_line("ragd: second interrupt, exiting now") + "\n").encode()

        def stop(signum: int, _frame: object) -> None:
            if signum == signal.SIGINT:
                self.flags.interrupts += 1
                if self.flags.interrupts > 1:
                    os.write(2, forced)  # async-signal-safe, unlike logging
                    os._exit(130)
            self.flags.signal_name = signal.Signals(signum).name
            self.flags.stop = True

        def reload(_signum: int, _frame: object) -> None:
            self.flags.reload = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, reload)

    def reload(self) -> None:
        """SIGHUP: re-read the config file and flags; the index and the socket stay."""
        try:
            fresh, _ = load_settings(self.reload_source.config_path, self.reload_source.flags)
        except RagError as exc:
            log.error("reload refused, keeping the running configuration: %s", exc)
            return
        old = self.settings
        for key in RESTART_ONLY:
            if getattr(fresh, key) != getattr(old, key):
                log.warning("%s changed; it takes effect at the next restart", key)
        fresh = dataclasses.replace(fresh, **{key: getattr(old, key) for key in RESTART_ONLY})
        changed = [key for key in FIELDS if getattr(fresh, key) != getattr(old, key)]
        set_level(fresh.log_level)
        self.settings = fresh
        self.retriever.override = fresh.support_floor or None
        self.retriever.candidates = fresh.candidates
        self.indexer.max_file_bytes = fresh.max_file_bytes
        self.indexer.follow_symlinks = fresh.follow_symlinks
        self.indexer.parser.limits = parse_limits(fresh)
        self.queue.debounce_s = fresh.debounce_ms / 1000
        self.asker.reset_settings()  # model, API timeout/retries, context budget
        for root in fresh.roots:
            if root in self.roots:
                continue
            if Path(root).is_dir():
                self.add_root(root)
            else:
                log.warning("root %s is not a folder; not watching it", Path(root).name)
        for root in set(old.roots) - set(fresh.roots):
            if root in self.roots:
                name = self.roots.names()[root]
                log.info("%s left the configuration but stays watched: `rag forget %s`", name, name)
        log.info("configuration reloaded (changed: %s)", ", ".join(changed) or "nothing")
        log.debug("effective configuration: %s", fresh.public())

    # -- roots -------------------------------------------------------------------
    def add_root(self, root: str) -> bool:
        added = self.roots.add(root)
        if added:
            self.stores.manifest.set_meta("roots", self.roots.to_json())
            self.watcher.watch(root)
            log.info("watching new root %s", Path(root).name)
        self.queue.put(Job("sync", root, ""), debounce=False)
        return added

    def forget_root(self, root: str) -> None:
        self.watcher.unwatch(root)
        self.roots.remove(root)
        self.stores.manifest.set_meta("roots", self.roots.to_json())
        self.queue.put(Job("forget", root), debounce=False)
        log.info("forgetting root %s", Path(root).name)

    # -- state -------------------------------------------------------------------
    def require_ready(self) -> None:
        if not self.ready:
            raise Starting(f"ragd is starting ({self.phase})")

    def state(self) -> str:
        if not self.ready:
            return "starting"
        if self.guard.short:
            return "paused"  # writes wait for disk space; searches are answered
        if self.store_problems():
            return "degraded"  # writes fail: what is searchable no longer follows the files
        return "indexing" if self.queue.pending() else "idle"

    def store_problems(self, where: str | None = None) -> list[tuple[str, str]]:
        """(store, why) for each index that cannot be written now (shown by `rag status`);
        `where` stands for the data dir's path (a reply names no absolute path)."""
        found = [("disk", self.guard.describe(where))] if self.guard.short else []
        return found + (self.stores.problems() if self.ready else [])

    def progress(self) -> dict[str, Any]:
        p = self.queue.progress
        pending = max(0, p.total - p.done)  # files only: a root's scan job is not one
        elapsed = max(1e-6, time.monotonic() - p.started)
        rate = p.done / elapsed
        return {
            "done": p.done,
            "total": p.total,
            "chunks": p.chunks,
            "chunks_per_s": round(p.chunks / elapsed, 1),
            "files_per_s": round(rate, 2),
            "eta_s": round(pending / rate, 1) if pending and rate > 0 else None,
            "current": getattr(getattr(self, "indexer", None), "current", None),
        }

    def vector_store_state(self) -> str:
        """`embedded (…)`, `http://… (…)`, or `vector store unreachable: <why>`."""
        dense = getattr(getattr(self, "stores", None), "dense", None)
        if dense is None:
            return self.settings.vector_target.describe()
        down = getattr(dense, "unreachable", None)
        if down:
            return f"vector store unreachable: {down} (searches use BM25 only; indexing waits)"
        return dense.where.describe()

    def status_line(self) -> str:
        """systemd's STATUS=: "indexing 412/1200 files" or "idle: 1,200 files, 9,845 chunks"."""
        if not self.ready:
            paused = f" (paused: {self.guard.short})" if self.guard.short else ""
            return f"starting: {self.phase}{paused}"
        problems = self.store_problems()
        if problems:
            return f"{self.state()}: " + "; ".join(f"{name}: {why}" for name, why in problems)
        if self.queue.pending():
            p = self.progress()
            eta = f", ETA {p['eta_s']:.0f} s" if p["eta_s"] is not None else ""
            return (
                f"indexing {p['done']}/{p['total']} files ({p['chunks_per_s']:.1f} chunks/s{eta})"
            )
        files, chunks = self.stores.manifest.counts()
        return f"idle: {files:,} files, {chunks:,} chunks"


class _Background:
    """Run `work` on a thread now; `result()` waits for its value (or re-raises)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work = work
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ragd-verify", daemon=True)
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


def parse_limits(settings: Settings) -> ParseLimits:
    from ragd.ingest.parse_pool import ParseLimits

    return ParseLimits(settings.parse_timeout_s, settings.parse_memory_mb, settings.max_text_chars)


def _busy_threads() -> list[str]:
    """Non-daemon threads still alive: interpreter exit would wait for them."""
    main = threading.main_thread()
    return [t.name for t in threading.enumerate() if t is not main and not t.daemon]
