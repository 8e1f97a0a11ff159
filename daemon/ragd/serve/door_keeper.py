"""The daemon's side of the door (serve/door.py): starts it, reads what it says, and
starts another when it ends while the daemon serves.

The loop polls the door's stdout; nothing here blocks it except the first start, which
waits for `listening` (the daemon is starting and says it listens only once it does). A
door started again binds in its own process, so the socket folder's checks, the stale
name's unlink and the bind can wait on a stalled mount without holding the loop.

A door stopped by a signal (SIGSTOP) holds the socket and completes no handshake: the
loop reads its state each second and kills one stopped for STOPPED_S (`end_if_stopped`),
and another starts as after any end.
"""

from __future__ import annotations

import fcntl
import os
import resource
import secrets
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from ragd.serve import door

# The door's routing id on the server's ROUTER: fixed in length, so the server can tell it
# from the client's id that follows (serve/server.py `_envelope`).
ROUTING_ID_BYTES = 9
START_WAIT_S = 60.0  # a first start on a loaded machine: an interpreter and pyzmq
CLOSE_WAIT_S = 2.0
# A door stopped by a signal (SIGSTOP) holds the socket and answers nobody: every client's
# handshake times out. Seen stopped this long, looking each LOOK_S, it is ended.
STOPPED_S = 5.0
LOOK_S = 1.0


class EndedFromOutside(OSError):
    """The first door ended by a signal before it listened (a `kill`, libzmq's abort in a
    flood of connections the moment it bound): another may well listen."""


@dataclass(frozen=True)
class Ended:
    """The door ended while the daemon served: what it dropped, and whether it can be
    started again (`failure` is the line saying why it cannot listen)."""

    connections: int
    reserve: int
    limit: int
    why: str  # "" for the guard's drop; else how it ended ("killed by SIGABRT", …)
    failure: str = ""
    code: int = 0  # its exit status; negative: the signal that ended it

    @property
    def by_signal(self) -> bool:
        """Ended from outside (a `kill`, libzmq's abort), not by its own choice: a door
        started again may well listen."""
        return self.code < 0 and not self.failure

    @property
    def limit_reached(self) -> bool:
        """The guard's drop, or libzmq's abort (what an ipc:// listener out of
        descriptors does)."""
        return not self.why or self.code == -signal.SIGABRT


class Door:
    def __init__(
        self, public: str, inner: str, max_message_bytes: int, metadata: str, send_hwm: int
    ) -> None:
        self.public = public
        self.inner = inner  # the server's private address, where it relays
        self._args = [str(max_message_bytes), metadata, str(send_hwm)]
        self.routing_id = b""
        self.proc: subprocess.Popen[bytes] | None = None
        self.listening = False
        self._said = b""
        self._own_descriptors = 0
        self._dropped: tuple[int, int, int] | None = None
        self._failure = ""
        self._ended_why = ""  # set when the daemon ends it
        self._looked = 0.0  # (time.monotonic) when its state was last read
        self._stopped_since: float | None = None

    # -- start -------------------------------------------------------------------------
    def start(self, wait: bool) -> None:
        """Start a door; with `wait`, return once it listens, raising OSError with its
        line when it cannot (EndedFromOutside when a signal ended it first)."""
        self._spawn()
        if wait:
            self._wait_listening()

    def _spawn(self) -> None:
        self.routing_id = b"door" + secrets.token_bytes(ROUTING_ID_BYTES - 4)
        args = [self.public, self.inner, self.routing_id.hex(), *self._args]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ragd.serve.door", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )
        assert self.proc.stdout is not None
        out = self.proc.stdout.fileno()
        fcntl.fcntl(out, fcntl.F_SETFL, fcntl.fcntl(out, fcntl.F_GETFL) | os.O_NONBLOCK)
        self.listening, self._said, self._dropped, self._failure = False, b"", None, ""
        self._ended_why, self._stopped_since = "", None

    def _wait_listening(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        out = self.proc.stdout.fileno()
        deadline = time.monotonic() + START_WAIT_S
        while not self.listening:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise OSError(f"its listener did not start within {START_WAIT_S:.0f} s")
            select.select([out], [], [], left)
            ended = self.read()
            if ended is not None:
                error = EndedFromOutside if ended.by_signal else OSError
                raise error(ended.failure or f"its listener {ended.why} at start")

    def fileno(self) -> int:
        """What the loop polls: the door's stdout (pyzmq's poller reports the number)."""
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def end_if_stopped(self, now: float) -> None:
        """Kill a door stopped by a signal for STOPPED_S (its end is then read as any
        other's, and another starts). Only time the daemon ran counts: after a gap in the
        looks (Ctrl-Z stopped the whole group, and continued it together) it starts again.
        A debugger's stop ("traced") is left alone."""
        if now - self._looked < LOOK_S or self.proc is None or self.proc.returncode is not None:
            return
        gap, self._looked = now - self._looked, now
        if door.daemon_stopped(self.proc.pid) != "stopped":
            self._stopped_since = None
            return
        if self._stopped_since is None or gap > 3 * LOOK_S:
            self._stopped_since = now
        elif now - self._stopped_since >= STOPPED_S:
            self._ended_why = (
                f"(pid {self.proc.pid}) was stopped by a signal for {STOPPED_S:.0f} s, "
                "answering nobody: ragd ended it"
            )
            self.proc.kill()

    # -- what it says ------------------------------------------------------------------
    def read(self) -> Ended | None:
        """Take what the door wrote; an Ended once it has ended (its stdout closed)."""
        assert self.proc is not None and self.proc.stdout is not None
        while True:
            try:
                chunk = os.read(self.proc.stdout.fileno(), 4096)
            except BlockingIOError:
                return None
            if not chunk:
                return self._ended()
            self._said += chunk
            *lines, self._said = self._said.split(b"\n")
            for line in lines:
                self._heard(line.decode(errors="replace"))

    def _heard(self, line: str) -> None:
        word, _, rest = line.partition(" ")
        if word == "listening":
            self.listening = True
            self._own_descriptors = int(rest or 0)
        elif word == "dropped":
            connections, reserve, limit = (int(n) for n in rest.split())
            self._dropped = (connections, reserve, limit)
        elif word == "cannot-listen":
            self._failure = rest

    def _ended(self) -> Ended:
        assert self.proc is not None
        code = self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                pipe.close()
        failure = self._failure
        if self._dropped is not None:
            return Ended(*self._dropped, why="")
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        # A door that died mid-flood (libzmq's abort) held about all it could.
        guessed = max(0, limit - self._own_descriptors) if code == -signal.SIGABRT else 0
        why = self._ended_why or ended_how(code)
        return Ended(guessed, 0, limit, why=why, failure=failure, code=code)

    # -- stop --------------------------------------------------------------------------
    def close(self) -> None:
        """Close its stdin (it ends itself); killed when it does not in CLOSE_WAIT_S."""
        proc = self.proc
        if proc is None:
            return
        self.proc = None
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def ended_how(code: int) -> str:
    if code < 0:
        try:
            return f"was ended by {signal.Signals(-code).name}"
        except ValueError:
            return f"was ended by signal {-code}"
    if code == door.CANNOT_LISTEN:
        return "could not listen"
    return f"exited with status {code}"
