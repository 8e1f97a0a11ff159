"""A real `ragd serve` process for integration tests, driven through the real client.

Everything is isolated by construction: a temp data dir, a temp socket, a scrubbed
environment (no API key unless a test sets one, HOME and XDG dirs inside tmp). Waiting
is always polling with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from ragd.core import timings
from ragd.harness import private_daemon
from ragd.harness.private_daemon import PrivateDaemon, Process, ragd_command
from tests.support.fork_server import ForkServer, ForkServerGone

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 120.0

# A test's wait that runs out is a failed assertion, with the reason in the message.
wait_for = functools.partial(private_daemon.wait_for, error=AssertionError)


def base_env(tmp: Path) -> dict[str, str]:
    env = private_daemon.isolated_env(tmp)
    # `auto` would measure both precisions in every test's fresh cache folder (CPU seconds
    # per daemon); tests/component/test_precision.py, tests/daemon/test_precision_daemon.py
    # and tests/daemon/test_vector_server.py cover `auto` itself.
    env["RAG_EMBED_PRECISION"] = "float32"
    return env


def short_timings(**seconds: float) -> dict[str, str]:
    """The environment that gives a daemon (and the `ragd`/`rag` commands run beside it)
    shorter timing constants through ragd/core/timings.py's testing seam, e.g.
    `Daemon(..., env=short_timings(read_stall_s=3))`: for a test whose promise is what
    happens once a bound is reached, not the bound's value. Every other daemon runs at the
    production values, and each constant keeps a test at its production value where the
    value is the promise (docs/reliability.md, "Timing constants in the tests")."""
    unknown = set(seconds) - set(timings.NAMES)
    assert not unknown, f"no timing is called {sorted(unknown)}"
    return {timings.ENV: ",".join(f"{name}={s:g}" for name, s in seconds.items())}


LIVE: list[Daemon] = []  # every daemon a test started; conftest kills leftovers

_FORK_SERVER: list[ForkServer] = []  # this test process's, started at the first daemon


def fork_server() -> ForkServer | None:
    """This test process's fork server (tests/support/fork_server.py), or None when
    RAGD_TEST_FORK=0 asks for every daemon to be executed."""
    if os.environ.get("RAGD_TEST_FORK", "1") == "0":
        return None
    if not _FORK_SERVER:
        home = Path(tempfile.mkdtemp(prefix="ragd-fork-server-"))
        _FORK_SERVER.append(ForkServer(base_env(home), home, home / "server.log"))
        # Also at exit, for a run that ends without the session's teardown; xdist's
        # workers leave without running atexit, hence close_fork_server.
        atexit.register(close_fork_server)
    return _FORK_SERVER[0]


def close_fork_server() -> None:
    """Stop this test process's fork server and remove its folder (conftest's session
    teardown; a second call does nothing)."""
    while _FORK_SERVER:
        server = _FORK_SERVER.pop()
        server.close()
        shutil.rmtree(server.cwd, ignore_errors=True)


def kill_leftovers() -> None:
    """Stop daemons a failing test left running (a test that fails mid-way skips its stop)."""
    for daemon in LIVE:
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait(10)
    LIVE.clear()


class Daemon(PrivateDaemon):
    """A private daemon in `tmp` (data dir, socket tmp/run/t.sock, a log per start) plus
    what tests do to it: signals, other `ragd`/`rag` commands, waiting on the log."""

    error = AssertionError

    def __init__(
        self,
        tmp: Path,
        roots: list[Path],
        env: dict[str, str] | None = None,
        extra_args: list[str] | None = None,
        journal: bool = False,
        limits: dict[int, tuple[int, int]] | None = None,
    ) -> None:
        """`limits`: resource limits (soft, hard) set in the child before it runs `ragd`,
        as a shell's `ulimit` or a unit's `Limit…=` start it (in the forked child, or
        before the exec)."""
        socket = tmp / "run" / "t.sock"
        super().__init__(
            roots, tmp / "data", socket, base_env(tmp) | (env or {}), tmp, extra_args or (), journal
        )
        self.tmp = tmp
        self.socket = socket
        self.limits = dict(limits or {})
        # Killed (SIGKILL) since its last start: its vector index was not sealed, so the
        # next start probes it, and a forked daemon gets a spare for the probe's reader
        # (store_fork.py). Only then: an unused spare would outlive a restart in place.
        self.unsealed = False

    # -- process ---------------------------------------------------------------------
    def start(self, wait: bool = True) -> Daemon:
        self.log_path = self.tmp / f"ragd-{time.monotonic_ns()}.log"  # this start's log only
        self.spawn()
        # Listed once: a module's daemon that a test restarts stays the module's (conftest
        # kills only what a test started, and it was started before the test).
        if self not in LIVE:
            LIVE.append(self)
        if wait:
            self.wait_ready()
        return self

    def preexec(self) -> Callable[[], None] | None:
        inner = super().preexec()
        if not self.limits:
            return inner
        limits = self.limits

        def limited() -> None:
            if inner is not None:
                inner()
            for which, (soft, hard) in limits.items():
                resource.setrlimit(which, (soft, hard))

        return limited

    def instead_of_prefix(self) -> dict[str, Any] | None:
        """What a forked child does itself in place of `command_prefix` (fork_server's
        `ForkServer.spawn` names what it can do), or None: the prefix must be executed.
        Nothing to do when there is no prefix."""
        return None if self.command_prefix() else {}

    # True: the daemon's stdout is /dev/null and only its stderr goes to `log`.
    stdout_null = False

    def launch(self, argv: list[str], log: IO[bytes]) -> Process:
        """Forked from the fork server when nothing but the `ragd` script runs (under our
        resource limits, and with what the child can do in place of a command prefix, at
        most) and the environment reads the same at import (fork_server.py says why);
        else executed."""
        server = fork_server()
        instead = self.instead_of_prefix()
        script = argv[len(self.command_prefix()) :]
        if (
            server is not None
            and instead is not None
            and script[:1] == ragd_command()
            and super().preexec() is None
            and server.can_fork(self.env)
        ):
            try:
                fd = log.fileno()
                unsealed, self.unsealed = self.unsealed, False
                return server.spawn(
                    script,
                    self.env,
                    self.cwd,
                    fd,
                    self.limits,
                    instead,
                    self.stdout_null,
                    probe_reader=unsealed,
                )
            except ForkServerGone as gone:  # its log is in its temp folder: say, then exec
                print(f"{gone}; executing ragd instead", file=sys.stderr)
        if self.stdout_null:
            return subprocess.Popen(
                argv,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=log,
                cwd=self.cwd,
                preexec_fn=self.preexec(),
            )
        return super().launch(argv, log)

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> None:
        super().wait_ready(timeout)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        self.unsealed |= sig == signal.SIGKILL
        code = super().stop(sig, timeout)
        assert code is not None
        return code

    def kill9(self) -> None:
        assert self.proc is not None
        self.unsealed = True
        self.proc.kill()
        self.proc.wait(10)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.unsealed |= sig == signal.SIGKILL
        self.proc.send_signal(sig)

    def wait_exit(self, timeout: float = 30.0) -> int:
        assert self.proc is not None
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"ragd still running after {timeout:g} s:\n{self.log()}") from None

    def wait_log(self, text: str, timeout: float = 60.0, after: int = 0) -> int:
        """Wait until the log holds `text` (past offset `after`); returns the offset after it."""

        def found() -> int:
            log = self.log()
            at = log.find(text, after)
            return at + len(text) if at >= 0 else 0

        return wait_for(found, timeout, f"{text!r} in the ragd log", interval=0.05)

    def ragd(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Run another `ragd` command (not this daemon) in the same environment. `ragd
        check` is forked from the fork server when it can be (`forked_command`)."""
        if args[:1] == ("check",) and (done := self.forked_command(args, timeout)) is not None:
            return done
        return subprocess.run(
            [str(BIN / "ragd"), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=self.tmp,
        )

    def forked_command(
        self, args: Sequence[str], timeout: float
    ) -> subprocess.CompletedProcess[str] | None:
        """`ragd ARGS` run to its end as `ragd` above runs it, but forked from the fork
        server (tests/support/fork_server.py: the stack imported once) with its ChromaDB
        probe's reader forked too (store_fork.py): ≈ 0.5 CPU s of the command's imports
        and ≈ 0.7 of the reader's `import chromadb` not paid again. None when it cannot be
        forked (RAGD_TEST_FORK=0, an environment that reads differently at import)."""
        server, script = fork_server(), ragd_command()
        if server is None or len(script) != 1 or not server.can_fork(self.env):
            return None
        argv = [*script, *args]
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                proc = server.spawn(
                    argv,
                    self.env,
                    self.tmp,
                    err.fileno(),
                    stdout_fd=out.fileno(),
                    store_worker=False,
                )
            except ForkServerGone:
                return None
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
                raise
            out.seek(0)
            err.seek(0)
            return subprocess.CompletedProcess(argv, code, _text(out.read()), _text(err.read()))

    def rag(
        self, *args: str, timeout: float = 120.0, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "rag"), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
            cwd=self.tmp,
        )

    def answering(self) -> dict[str, Any] | None:
        """The status reply once the socket answers (the daemon may still be starting)."""
        self.assert_alive()
        try:
            return self.status()
        except Exception:
            return None

    def rag_json(self, *args: str) -> dict[str, Any]:
        result = self.rag(*args, "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    def wait_floor_settled(self, timeout: float = 60.0) -> dict[str, Any]:
        """The gate floor once it is learned (or configured): before that it is a default
        that the first idle measurement replaces, so a test comparing floors waits here."""
        return wait_for(
            lambda: (f := self.call("stats")["retrieval"]["floor"])["origin"] != "default" and f,
            timeout,
            "the gate floor to be learned",
            interval=0.2,
        )

    def search(self, query: str, top_k: int = 5, **args: Any) -> dict[str, Any]:
        return self.call("search", query=query, top_k=top_k, **args)

    def sources(self, token: str, top_k: int = 20) -> list[str]:
        """Sources whose chunks literally contain `token` (lexical match, not similarity)."""
        results = self.search(token, top_k, mode="bm25")["results"]
        return [r["source"] for r in results if token.lower() in r["text"].lower()]

    def wait_searchable(self, token: str, source: str, timeout: float = 30.0) -> dict[str, Any]:
        """Wait until `source` has a chunk containing `token`; returns that result."""

        def found() -> dict[str, Any] | None:
            for r in self.search(token, 20, mode="bm25")["results"]:
                if r["source"] == source and token.lower() in r["text"].lower():
                    return r
            return None

        return wait_for(found, timeout, f"{source} to contain {token!r}")


def in_progress(d: Daemon) -> dict[str, dict[str, Any]]:
    """The files `rag status` shows in progress, by source: each with its `stage`."""
    progress = d.status().get("progress") or {}
    return {item["source"]: item for item in progress.get("in_progress", [])}


class NotifyListener:
    """A real AF_UNIX datagram socket standing in for systemd's $NOTIFY_SOCKET.

    A thread collects every datagram, so tests can wait for READY=1 or STOPPING=1 and
    then inspect all that was said, in order.
    """

    def __init__(self, path: Path) -> None:
        import socket
        import threading

        self.path = path
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._sock.bind(str(path))
        self._sock.settimeout(0.1)
        self.messages: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="notify-listener", daemon=True)
        self._thread.start()

    def env(self, watchdog_usec: int | None = None) -> dict[str, str]:
        env = {"NOTIFY_SOCKET": str(self.path)}
        if watchdog_usec is not None:
            env["WATCHDOG_USEC"] = str(watchdog_usec)
        return env

    def _run(self) -> None:
        while not self._closed.is_set():
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            fields = dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line)
            with self._lock:
                self.messages.append(fields)

    def snapshot(self) -> list[dict[str, str]]:
        with self._lock:
            return list(self.messages)

    def wait(self, key: str, value: str | None = None, timeout: float = START_TIMEOUT_S) -> int:
        """Index of the first message with `key` (equal to `value` if given)."""

        def seen() -> int | None:
            for i, m in enumerate(self.snapshot()):
                if key in m and (value is None or m[key] == value):
                    return i + 1
            return None

        return wait_for(seen, timeout, f"{key}={value or '…'} on NOTIFY_SOCKET") - 1

    def values(self, key: str) -> list[str]:
        return [m[key] for m in self.snapshot() if key in m]

    def close(self) -> None:
        self._closed.set()
        self._thread.join(5)
        self._sock.close()


def _text(output: bytes) -> str:
    """Captured output as `subprocess.run(…, text=True)` gives it (universal newlines)."""
    return output.decode().replace("\r\n", "\n").replace("\r", "\n")
