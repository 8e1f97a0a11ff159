"""A private `ragd serve`: its own data dir and socket, a scrubbed environment, stopped after.

The eval, the bench and the tests each need the same thing — start a daemon on a temp
data dir and socket, wait until it answers, talk to it through the real client, stop it
— so they share this one class (tests/support/daemon.py and bench/harness.py add only
what is theirs). Isolation is by construction: no `RAG_*`, `ANTHROPIC_*` or systemd
variable leaks in from the caller, and HOME and the XDG folders live in the temp folder.
Waiting is polling with a deadline (`wait_for`), never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from ragd.core import environment

# Never passed on: a user's ragd settings and key, and systemd's hooks (a private daemon
# must not tell the user's service manager it is ready, or feed its watchdog).
SCRUBBED_PREFIXES = (
    "RAG_",
    "ANTHROPIC_",
    "OPENAI_",
    "NOTIFY_SOCKET",
    "JOURNAL_STREAM",
    "WATCHDOG_",
)


class Process(Protocol):
    """What is used of the started daemon: `subprocess.Popen`'s names."""

    pid: int

    @property
    def returncode(self) -> int | Any: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


class PrivateDaemonError(RuntimeError):
    """The daemon exited, or did not reach the awaited state in time."""


def wait_for(
    predicate: Callable[[], Any],
    timeout: float,
    what: str,
    interval: float = 0.05,
    error: type[Exception] = PrivateDaemonError,
) -> Any:
    """Poll `predicate` until it returns something true (returned), else raise `error`."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise error(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def isolated_env(tmp: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (the caller's environment) minus ours and systemd's, homed in `tmp`."""
    env = {
        k: v
        for k, v in (os.environ if base is None else base).items()
        if not k.startswith(SCRUBBED_PREFIXES)
    }
    # A user's Python caches bytecode; without it every `rag` run recompiles the client.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    home = tmp / "home"
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_RUNTIME_DIR=str(tmp / "run"),
        PYTHONUNBUFFERED="1",
    )
    env.update(environment.DEFAULTS)
    for folder in (home / ".config", home / ".local" / "share", home / ".cache"):
        folder.mkdir(parents=True, exist_ok=True)
    (tmp / "run").mkdir(parents=True, exist_ok=True, mode=0o700)
    return env


def ragd_command() -> list[str]:
    """The `ragd` of this Python environment (its script, else `python -m ragd`)."""
    script = Path(sys.executable).parent / "ragd"
    return [str(script)] if script.exists() else [sys.executable, "-m", "ragd"]


class PrivateDaemon:
    """`ragd serve ROOTS --data-dir DATA --socket SOCKET …`, run from `cwd`, logging to
    `log_path`. `error` is what a failed wait raises (the tests make it AssertionError)."""

    error: type[Exception] = PrivateDaemonError

    def __init__(
        self,
        roots: Sequence[Path],
        data_dir: Path,
        socket: str | Path,
        env: Mapping[str, str],
        cwd: Path,
        extra_args: Sequence[str] = (),
        journal: bool = False,
    ) -> None:
        self.roots = list(roots)
        self.data_dir = data_dir
        self.socket = socket
        self.env = dict(env, RAG_SOCKET=str(socket))
        self.cwd = cwd
        self.extra_args = list(extra_args)
        self.journal = journal  # stderr "is" the journal: JOURNAL_STREAM names the log file
        self.log_path = cwd / "ragd.log"
        self.label = "ragd"  # how messages name it (the bench runs several)
        self.proc: Process | None = None
        self.persistent = False  # keep one connection open between calls
        self._conn: Any = None

    @classmethod
    def in_folder(
        cls, roots: Sequence[Path], folder: Path, extra_args: Sequence[str] = ()
    ) -> PrivateDaemon:
        """One whose data dir, socket, HOME and log all live in `folder`."""
        env = isolated_env(folder)
        return cls(roots, folder / "data", folder / "ragd.sock", env, folder, extra_args)

    # -- process ---------------------------------------------------------------------------
    def command_prefix(self) -> list[str]:
        """Words put before `ragd serve …` (a subclass may run it through setpriv)."""
        return []

    def preexec(self) -> Callable[[], None] | None:
        """Run in the child before exec (the bench asks to die with its parent)."""
        return None

    def serve_argv(self) -> list[str]:
        """The `ragd serve …` command line this daemon runs."""
        return [
            *self.command_prefix(),
            *ragd_command(),
            "serve",
            *map(str, self.roots),
            "--data-dir",
            str(self.data_dir),
            "--socket",
            str(self.socket),
            *self.extra_args,
        ]

    def spawn(self) -> None:
        """Start the process (appending to `log_path`) without waiting for it."""
        self._drop_connection()
        with open(self.log_path, "ab") as log:
            self._point_journal_at(log)
            self.proc = self.launch(self.serve_argv(), log)

    def launch(self, argv: list[str], log: IO[bytes]) -> Process:
        """Run `argv` in `cwd` with `env`, its output appended to `log` (the tests fork
        their daemons from a process that has the heavy stack imported already)."""
        return subprocess.Popen(
            argv,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.cwd,
            preexec_fn=self.preexec(),
        )

    def _point_journal_at(self, log: IO[bytes]) -> None:
        if self.journal:
            st = os.fstat(log.fileno())
            self.env["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}"

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Until the daemon answers and is past loading (it may still be indexing)."""

        def ready() -> bool:
            self.assert_alive()
            try:
                return self.call("status", timeout=5.0)["state"] != "starting"
            except Exception:
                return False

        wait_for(ready, timeout, f"{self.label} to become ready", 0.1, self.error)

    def wait_idle(self, timeout: float = 120.0, interval: float = 0.05) -> dict[str, Any]:
        """The status once nothing is pending (start-up indexing included)."""

        def idle() -> dict[str, Any] | None:
            self.assert_alive()
            status = self.status()
            return status if status["state"] == "idle" else None

        what = f"{self.label} to become idle"
        return wait_for(idle, timeout, what, interval, self.error)  # type: ignore[no-any-return]

    @contextlib.contextmanager
    def indexed(self, timeout: float = 300.0, interval: float = 0.2) -> Iterator[dict[str, Any]]:
        """Start it, yield its status once it has indexed its roots, and stop it after."""
        self.spawn()
        try:
            self.wait_ready(timeout)
            yield self.wait_idle(timeout, interval)
        finally:
            self.stop()

    def assert_alive(self) -> None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            code = self.proc.returncode
            raise self.error(f"{self.label} exited with {code}; log tail:\n{self.log_tail()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def log_tail(self, lines: int = 60) -> str:
        return "\n".join(self.log().splitlines()[-lines:])

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int | None:
        """Signal it, then SIGKILL after `timeout`; safe to call twice."""
        self._drop_connection()
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        return self.proc.returncode

    # -- talking to it (the client's own transport) ------------------------------------------
    def call(self, op: str, timeout: float = 30.0, **args: Any) -> dict[str, Any]:
        from ragcli.transport import Connection

        if not self.persistent:
            conn = Connection(str(self.socket))
            try:
                return conn.call(op, args, timeout_s=timeout)
            finally:
                conn.close()
        try:
            if self._conn is None:
                self._conn = Connection(str(self.socket))
            return self._conn.call(op, args, timeout_s=timeout)  # type: ignore[no-any-return]
        except Exception:
            self._drop_connection()  # a timed-out DEALER may hold a late reply: start fresh
            raise

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def status(self) -> dict[str, Any]:
        return self.call("status")
