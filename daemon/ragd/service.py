"""The daemon's lifecycle: startup → main loop → shutdown.

Signal handlers only set flags; the main loop acts on them between polls. The socket is
bound first (so `rag status` can say "starting" while the ~7 s model load runs on a
background thread); READY=1 goes to systemd once queries can be answered, while the
initial reconcile may still be indexing.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragproto.errors import RagError
from ragd.config import Settings, load_settings
from ragd.instance import AlreadyRunning, InstanceLock, socket_in_use
from ragd.ingest.chunking import ChunkParams
from ragd.ingest.filters import PathFilter
from ragd.ingest.work_queue import Job, WorkQueue
from ragd.notify import Notifier
from ragd.roots import Roots
from ragd.server import Server

log = logging.getLogger("ragd")


class NotReady(RagError):
    type_name = "starting"


@dataclass
class Flags:
    stop: bool = False
    reload: bool = False
    interrupts: int = 0


@dataclass
class ReloadSource:
    """What SIGHUP re-reads: the same config file and flags as at start-up."""

    config_path: Path | None = None
    flags: dict[str, Any] = field(default_factory=dict)


class Daemon:
    def __init__(self, settings: Settings, reload_source: ReloadSource | None = None) -> None:
        self.settings = settings
        self.reload_source = reload_source or ReloadSource()
        self.flags = Flags()
        self.started = time.monotonic()
        self.ready = False
        self.failed: str | None = None
        self.params = ChunkParams()
        self.api_key = os.environ.get("ANTHROPIC_API_KEY", "")
        self.queue = WorkQueue(debounce_s=settings.debounce_ms / 1000)
        self.notifier = Notifier()
        self.lock = InstanceLock(settings.data_path)
        self.server = Server(settings.socket, self.queue.pending, settings.max_message_bytes)
        self.roots = Roots()
        self._loader: threading.Thread | None = None
        self._last_status = ""
        self._last_watchdog = 0.0
        self._rates: list[tuple[float, int]] = []

    # -- public lifecycle --------------------------------------------------------
    def run(self) -> int:
        self.startup()
        try:
            self.main_loop()
        finally:
            self.shutdown()
        return 0 if self.failed is None else 1

    def startup(self) -> None:
        settings = self.settings
        self.lock.acquire(settings.socket)
        if socket_in_use(settings.socket):
            self.lock.release()
            raise AlreadyRunning(
                f"another ragd is already answering on {settings.socket}; "
                "stop it first or pass a different --socket"
            )
        self._install_signal_handlers()
        self.server.bind()
        from ragd.handlers import Handlers

        self.server.handlers.update(Handlers(self).table())
        self._loader = threading.Thread(target=self._load, name="ragd-loader", daemon=True)
        self._loader.start()

    def _load(self) -> None:
        """The slow part of start-up, off the loop thread."""
        try:
            from ragd.index.consistency import compare, repair
            from ragd.index.embedder import MiniLMEmbedder
            from ragd.index.store import Stores, fingerprint
            from ragd.ingest.indexer import Indexer
            from ragd.ingest.watcher import Watcher
            from ragd.query.retrieval import Retriever

            settings = self.settings
            self.stores = Stores.open(settings.data_path)
            manifest = self.stores.manifest
            remembered = Roots.from_json(manifest.get_meta("roots"))
            for root in [*remembered, *settings.roots]:
                self.roots.add(root)
            manifest.set_meta("roots", self.roots.to_json())
            self.embedder = MiniLMEmbedder(precision=settings.embed_precision)  # type: ignore[arg-type]
            wanted = fingerprint(
                self.embedder.model_id, self.embedder.dimension, self.embedder.max_tokens,
                self.params,
            )
            self.stores.ensure_fingerprint(wanted)
            clean = manifest.get_meta("clean_shutdown") == "1"
            if not clean or self.stores.lexical.rebuilt:
                report = compare(self.stores)
                if not report.consistent:
                    log.warning(
                        "repairing indexes after an unclean stop: %d dense orphans, %d dense "
                        "missing, %d lexical orphans, %d lexical missing",
                        len(report.dense_orphans), len(report.dense_missing),
                        len(report.lexical_orphans), len(report.lexical_missing),
                    )
                    repair(self.stores, self.embedder, report)
            manifest.set_meta("clean_shutdown", "0")
            self.filter = PathFilter(settings.include, settings.exclude, settings.data_path)
            self.indexer = Indexer(
                self.stores, self.embedder, self.roots, self.filter, self.queue,
                settings.max_file_bytes, settings.follow_symlinks, self.params,
            )
            self.retriever = Retriever(
                self.stores, self.embedder, self.roots, settings.candidates, settings.support_floor
            )
            self.watcher = Watcher(self.roots, self.filter, self.queue)
            self.watcher.start()  # before the walk, so nothing changed during it is missed
            for root in {f.root for f in manifest.files()} - set(self.roots):
                self.queue.put(Job("forget", root), debounce=False)
            for root in self.roots:
                if not Path(root).is_dir():
                    log.warning("root %s is not a folder (yet); watching nothing there", Path(root).name)
                    continue
                self.queue.put(Job("sync", root, ""), debounce=False)
            self.indexer.start()
            self.stores.dense.warm()
            self.ready = True
        except Exception as exc:
            log.exception("start-up failed")
            self.failed = f"start-up failed: {exc}"
            self.flags.stop = True

    def main_loop(self) -> None:
        ready_announced = False
        while not self.flags.stop:
            self.server.poll_once(timeout_ms=100)
            if self.ready and not ready_announced:
                ready_announced = True
                self.notifier.ready(self.status_line())
                log.info(
                    "ready: %d root(s), socket %s — try: rag search \"your question\"",
                    len(self.roots), self.settings.socket,
                )
            if self.flags.reload:
                self.flags.reload = False
                self.reload()
            self._tick()

    def shutdown(self) -> None:
        log.info("shutting down")
        self.notifier.stopping()
        self.server.accepting = False
        if self._loader is not None:
            self._loader.join(timeout=self.settings.shutdown_timeout_s)
        if self.ready:
            self.watcher.stop()
            if not self.indexer.stop(self.settings.shutdown_timeout_s):
                log.warning("index writer did not finish in time; the next start repairs")
            else:
                self.stores.lexical.close()
                self.stores.manifest.set_meta("clean_shutdown", "1")
        self.server.close()
        self.notifier.close()
        self.lock.release()
        log.info("stopped")

    # -- flags and signals -------------------------------------------------------
    def _install_signal_handlers(self) -> None:
        def stop(signum: int, _frame: object) -> None:
            if signum == signal.SIGINT:
                self.flags.interrupts += 1
                if self.flags.interrupts > 1:
                    os._exit(130)  # second Ctrl-C: the user means it
            self.flags.stop = True

        def reload(_signum: int, _frame: object) -> None:
            self.flags.reload = True

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGHUP, reload)

    def reload(self) -> None:
        try:
            fresh, _ = load_settings(self.reload_source.config_path, self.reload_source.flags)
        except RagError as exc:
            log.error("reload refused: %s", exc)
            return
        logging.getLogger().setLevel(fresh.log_level.upper())
        self.settings = fresh
        if self.ready:
            self.retriever.floor = fresh.support_floor
            self.retriever.candidates = fresh.candidates
            for root in fresh.roots:
                self.add_root(root)
        log.info("configuration reloaded")

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

    # -- state -------------------------------------------------------------------
    def require_ready(self) -> None:
        if not self.ready:
            raise NotReady("ragd is starting (loading the model and opening the indexes)")

    def state(self) -> str:
        if not self.ready:
            return "starting"
        return "indexing" if self.queue.pending() else "idle"

    def progress(self) -> dict[str, Any]:
        p = self.queue.progress
        pending = self.queue.pending()
        elapsed = max(1e-6, time.monotonic() - p.started)
        rate = p.done / elapsed
        return {
            "done": p.done,
            "total": p.done + pending,
            "chunks": p.chunks,
            "chunks_per_s": round(p.chunks / elapsed, 1),
            "files_per_s": round(rate, 2),
            "eta_s": round(pending / rate, 1) if pending and rate > 0 else None,
        }

    def status_line(self) -> str:
        if not self.ready:
            return "starting"
        pending = self.queue.pending()
        files, chunks = self.stores.manifest.counts()
        if pending:
            p = self.progress()
            return f"indexing {p['done']}/{p['total']} files"
        return f"idle: {files:,} files, {chunks:,} chunks"

    def _tick(self) -> None:
        now = time.monotonic()
        interval = self.notifier.watchdog_interval_s
        if interval and now - self._last_watchdog >= interval:
            self._last_watchdog = now
            self.notifier.watchdog()
        if self.notifier.enabled and self.ready:
            line = self.status_line()
            if line != self._last_status:
                self._last_status = line
                self.notifier.status(line)
