"""The daemon's lifecycle: startup → main loop → shutdown (uvicorn's shape).

The parts it runs live elsewhere: ragd/engine/components.py (what exists, and `reconfigure`),
ragd/engine/loading.py (settings → components), ragd/serve/routes.py (the ops the server answers),
ragd/engine/health.py (what `status` and STATUS= say).

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
(status 130) whatever the main thread is doing: the user means it. The process always
leaves with `os._exit`, after shutdown has flushed what must be kept: the interpreter's
teardown would only free memory (≈ 1.7 CPU s with torch loaded) and could race a thread
still running. If shutdown had to abandon work (the writer mid-file, start-up still
loading), the manifest was not marked clean, so the next start repairs.
"""

from __future__ import annotations

import contextlib
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
from typing import Any, NoReturn

from ragd.app import early_reload
from ragd.app.instance import Instance
from ragd.core import layout
from ragd.core.config import FIELDS, RESTART_ONLY, LiveSettings, Settings, load_settings
from ragd.core.connection_drops import ConnectionDrops
from ragd.core.exit_codes import ServeExit
from ragd.core.file_size_limit import raise_file_size_limit
from ragd.core.inherited_children import mark_for_exec, reap_inherited
from ragd.core.logs import error_line, process_clock, set_level
from ragd.core.no_text import remember_own_output
from ragd.core.notify import Notifier, StatusReporter
from ragd.core.open_files import raise_open_file_limit
from ragd.engine import loading
from ragd.engine.components import Basics, Components, Startup, Stopped
from ragd.engine.health import Health
from ragd.index.lexical import LexicalBusy
from ragd.index.space import Interrupted
from ragd.index.verify import DataDamaged
from ragd.serve import routes
from ragd.serve.ask import AskService
from ragd.serve.handlers import Handlers
from ragd.serve.server import Server
from ragd.serve.socket_dir import secure_socket_dir
from ragproto.errors import CannotListen, RagError
from ragproto.paths import ipc_path
from ragproto.sizes import counted

log = logging.getLogger("ragd")

LOOP_POLL_MS = 100
STATUS_INTERVAL_S = 1.0
LOCK_LOOK_S = 1.0  # how often the data dir's lock file is looked at (one lstat)


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
    def __init__(self, settings: Settings, reload_source: ReloadSource | None = None) -> None:
        # The one settings reference every part reads; a reload replaces it (`reload`).
        self.live = LiveSettings(settings)
        self.reload_source = reload_source or ReloadSource()
        self.flags = Flags()
        self.failed: str | None = None
        self.exit_code = 0
        self.basics = Basics.from_settings(settings)
        guard = self.basics.guard  # replies name no absolute path: "the data dir"
        self.startup = Startup(
            self.basics.stopping, lambda: guard.short and guard.describe("the data dir")
        )
        drops = ConnectionDrops()  # the server's guard notes them; status says them
        self.health = Health(self.basics, self.startup, settings.vector_target, drops)
        self.notifier = Notifier()
        self.reporter = StatusReporter(self.notifier, self.health.status_line, STATUS_INTERVAL_S)
        self.instance = Instance(settings.data_path, settings.socket)
        self.asker = AskService(self.startup, self.live)
        self.handlers = Handlers(self.startup, self.health, self.live)
        pending = self.basics.queue.pending_files  # every reply's `pending`: files
        self.server = Server(settings.socket, pending, settings.max_message_bytes, drops=drops)
        self.server.serve(routes.table(self.handlers, self.asker, self.server.running))
        self._loader: threading.Thread | None = None
        self._reloader: threading.Thread | None = None
        self.replaced = False  # the data dir's path leads elsewhere: restart once shut down
        self._moved = threading.Event()  # set by the data-dir watch (`_watch_data_dir`)
        self._writer_started = False

    # -- public lifecycle --------------------------------------------------------
    def run(self) -> NoReturn:
        self.start()
        try:
            self.main_loop()
        finally:
            self.shutdown()
        code = ServeExit.OK if self.failed is None else (self.exit_code or ServeExit.FAILED)
        logging.shutdown()
        if self.replaced:
            mark_for_exec()  # what the new image is left to reap (core/inherited_children)
            os.execv(sys.executable, [sys.executable, *sys.argv])
        _leave(code)

    def start(self) -> None:
        # A restart in place: wait for what the old image left, before any child of ours.
        reap_inherited()
        remember_own_output()  # before any file is opened (a closed fd 1 or 2 is reused)
        raise_open_file_limit()  # before the socket accepts anyone (libzmq aborts at it)
        raise_file_size_limit()  # before the first index write; a cap left is said once
        try:
            self._claim_and_bind()
        except BaseException:
            # Refused before it served: the locks go, and with them every file and folder
            # this start made (`Instance.abandon`); the error is the one line it exits with.
            self.instance.abandon()
            raise
        log.info("listening on %s (pid %d); loading", self.live.current.socket, os.getpid())
        log.debug("start-up: %.2f s (%.2f CPU s) from exec to listening", *process_clock())
        self.reporter.report(self.health.status_line())
        self._loader = threading.Thread(target=self._load, name="ragd-loader", daemon=True)
        self._loader.start()
        threading.Thread(target=self._watch_data_dir, name="ragd-data-dir", daemon=True).start()

    def _claim_and_bind(self) -> None:
        path = ipc_path(self.live.current.socket)
        if path is not None:  # before the lock file is made in it: ConfigError if not ours
            with self.instance.folders.making(path.parent):
                secure_socket_dir(path.parent)
        self.instance.claim()  # raises AlreadyRunning, naming the running daemon
        try:
            self._install_signal_handlers()
            self.server.bind()
        except Exception as exc:
            raise CannotListen(f"cannot listen on {self.live.current.socket}: {exc}") from exc

    def _load(self) -> None:
        """The slow part of start-up, off the loop thread; gives up early on shutdown."""
        try:
            components, reasons = loading.load(self.live, self.basics, self.startup)
            self.startup.components = components  # ready: queries are answered from now
            stopping = self.basics.stopping.is_set
            loading.before_writing(components, reasons, self.startup, stopping)
            components.indexer.start()
            self._writer_started = True
            components.floor_keeper.start()
        except (Stopped, Interrupted):
            log.info("start-up interrupted by shutdown (%s)", self.startup.phase)
        except DataDamaged as exc:  # one line saying what to do: no traceback, no restart
            self._fail_start(str(exc), ServeExit.NEEDS_FIX)
        except LexicalBusy as exc:
            self._fail_start(str(exc), ServeExit.HELD)
        except Exception as exc:
            log.exception("start-up failed while %s", self.startup.phase)
            self._fail_start(f"start-up failed: {exc}", ServeExit.FAILED, logged=True)

    def _fail_start(self, message: str, code: int, logged: bool = False) -> None:
        if not logged:
            log.error("%s", message)
        self.failed = message
        self.exit_code = code
        self.flags.stop = True

    def main_loop(self) -> None:
        announced = False
        while not self.flags.stop:
            self.server.poll_once(timeout_ms=LOOP_POLL_MS)
            components = self.startup.components
            if components is not None and not announced:
                announced = True
                self._announce_ready(components)
            if self.flags.reload and components is not None and not self._reloading():
                self.flags.reload = False
                self._start_reload()
            if self._moved.is_set():
                self.replaced = self.flags.stop = True
            self.notifier.keepalive()
            self.reporter.tick()

    def _watch_data_dir(self) -> None:
        """Once a second: does the data dir's path still lead to the lock this daemon holds?
        A data dir moved away and copied back (a backup restored) left the lock on the old
        file: a second `ragd serve` took the copy's, served beside this one, and when this
        one next restarted it found the data dir held and exited. So the loop restarts it,
        on whatever the path holds (the copy's unclean flag has its indexes checked). On
        its own thread: an lstat on a stalled network mount must not hold the loop."""
        while not self.flags.stop:
            time.sleep(LOCK_LOOK_S)
            if self.instance.data_lock.still_named():
                continue
            log.warning(
                "the data dir %s was moved or replaced while ragd ran (%s is not the file "
                "it locked); restarting to open what is there now",
                self.instance.data_dir,
                layout.DATA_LOCK,
            )
            self._moved.set()
            return

    def _reloading(self) -> bool:
        return self._reloader is not None and self._reloader.is_alive()

    def _start_reload(self) -> None:
        """A reload reads the config file, stats new roots and stores them: file-system
        work that may wait (a slow mount, the writer's database lock), so it runs on its own
        thread and the loop goes on answering. A SIGHUP during a reload is kept for after."""
        self._reloader = threading.Thread(target=self.reload, name="ragd-reload", daemon=True)
        self._reloader.start()

    def _announce_ready(self, components: Components) -> None:
        line = self.health.status_line()
        self.reporter.last_text = line
        self.notifier.ready(line)
        log.info("ready: %s", ready_words(components, self.live.current.socket))
        log.debug("start-up: ready %.2f s (%.2f CPU s) after exec", *process_clock())

    def shutdown(self) -> bool:
        """Stop everything within one deadline; False if some work had to be abandoned."""
        timeout = self.live.current.shutdown_timeout_s
        deadline = time.monotonic() + timeout
        why = f" ({self.flags.signal_name})" if self.flags.signal_name else ""
        log.info("shutting down%s within %g s", why, timeout)
        self.notifier.stopping(self.failed or "stopping")
        self.server.accepting = False  # requests now get a "shutting down" reply
        self.basics.stopping.set()
        for stop_waiting in self.startup.at_shutdown:
            stop_waiting()
        loaded = True
        loader = self._loader
        if loader is not None and not self._wait(lambda: not loader.is_alive(), deadline):
            log.warning(
                "start-up still busy (%s) after %g s; abandoning it", self.startup.phase, timeout
            )
            loaded = False
        complete = loaded
        reloader = self._reloader
        if reloader is not None and not self._wait(lambda: not reloader.is_alive(), deadline):
            # Stuck reading the config file (a slow mount) or adding a root (its row, its
            # watch): nothing the writer needs, so the writer still stops and flushes.
            log.warning("a configuration reload is still running; abandoning it")
            complete = False
        components = self.startup.components
        if components is not None:
            # A writer that never started (start-up still waiting for the vector store)
            # has not checked the indexes: its stop is not "clean".
            writing = self._writer_started and loaded
            complete = components.stop(deadline, self._wait, writing) and complete
        self.server.close()
        self.notifier.close()
        self.instance.release()
        log.info("stopped")
        return complete

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
        if early_reload.asked():  # a SIGHUP during start-up, before this handler
            self.flags.reload = True

    def reload(self) -> None:
        """SIGHUP: re-read the config file and flags and replace the one settings
        reference (the parts read it at use); `Components.reconfigure` does what a change
        needs done (a new debounce, new roots). The index and the socket stay."""
        try:
            fresh, _ = load_settings(self.reload_source.config_path, self.reload_source.flags)
        except RagError as exc:
            log.error("reload refused, keeping the running configuration: %s", exc)
            return
        fresh = keep_restart_only(self.live.current, fresh)
        set_level(fresh.log_level)
        old = self.live.replace(fresh)
        changed = [key for key in FIELDS if getattr(fresh, key) != getattr(old, key)]
        if self.startup.components is not None:
            self.startup.components.reconfigure(old, fresh)
        log.info("configuration reloaded (changed: %s)", ", ".join(changed) or "nothing")
        log.debug("effective configuration: %s", fresh.public())


def keep_restart_only(old: Settings, fresh: Settings) -> Settings:
    """`fresh` with the running values of the keys a reload cannot change (each changed one
    is logged: it takes effect at the next restart)."""
    for key in RESTART_ONLY:
        if getattr(fresh, key) != getattr(old, key):
            log.warning("%s changed; it takes effect at the next restart", key)
    return dataclasses.replace(fresh, **{key: getattr(old, key) for key in RESTART_ONLY})


def _leave(code: int) -> NoReturn:
    """Exit without the interpreter's teardown. By now the stores are flushed (or, if
    work was abandoned, not marked clean), so the teardown would only free memory: with
    torch and the model loaded it cost ≈ 1.7 CPU s, a sixth of a restart (docs/performance.md),
    and it would also race a thread still inside native code."""
    # Not stderr: the log's writer thread writes it line by line, and `logging.shutdown`
    # has waited for what was queued (a bounded wait); flushing it here would wait on a
    # pipe nobody reads, behind that thread's blocked write, for ever.
    with contextlib.suppress(OSError, ValueError):  # closed or broken: nothing to say
        sys.stdout.flush()
    os._exit(code)


def ready_words(c: Components, socket: str) -> str:
    """The "ready" log line's words: what can be asked now. An index being filled for the
    first time answers nothing yet, so it says indexing is under way instead of "try"."""
    files, _ = c.stores.manifest.counts()
    where = f"{counted(len(c.roots), 'root')}, socket {socket}"
    if files == 0 and c.queue.pending():
        return f"{where} — first index under way (`rag status` shows progress)"
    indexed = f"{where}, {counted(files, 'file')} indexed"
    if c.queue.pending():
        return f"{indexed} — checking for changes; try: rag ask"
    return f'{indexed} — try: rag ask "your question"'
