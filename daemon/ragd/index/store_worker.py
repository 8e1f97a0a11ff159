"""The embedded vector store's own process: ChromaDB is opened here, and only here.

Run by index/store_process.py (the daemon's side, whose docstring says why) as
`python -m ragd.index.store_worker FD PARENT_PID PATH [--again]`: FD is this end of a socket pair
private to the two processes. It opens `ChromaStore(PATH)` exactly as the daemon did,
says "ready", then answers one request at a time, in the order they came:

    request  (id, op, args, deadline)   deadline: time.monotonic() past which nobody waits
                                        for the answer (a search's read), else None
    reply    (id, "ok", value, count) or (id, "error", (class name, text), count)
    log      ("log", level, logger name, message): this process's log lines, which the
             daemon writes with its own (one stream, its format, never blocked on a
             stderr nobody reads)

Values and arguments cross as pickles (numpy arrays as their bytes); an exception
crosses as its class name and text, so the daemon never needs ChromaDB's classes.

It ends when the daemon does, however the daemon ends: the kernel kills it when the
daemon's thread that started it ends (`parent_death`, SIGKILL included), and it exits on
its own when its pipe closes. SIGINT and SIGTERM are ignored (a Ctrl-C or systemd's
SIGTERM reaches the whole process group): the daemon stops it in order.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ragd.core import parent_death

# For tests only: "op=seconds[,op=seconds]" delays the answer of each such call (a read
# that answers, with its value, after the daemon stopped waiting for it).
DELAY_ENV = "RAGD_TEST_STORE_DELAY"
# For tests only: a worker started again after one died waits while this file exists
# before it opens the store (the daemon is seen serving without it, for as long as needed).
HOLD_ENV = "RAGD_TEST_STORE_HOLD"
AGAIN = "--again"  # argv: this worker replaces one that died
# For tests only: the first worker (not one started again) computes for ever, never
# answering, on this call ("open": before it opens the store), as a livelock would.
SPIN_ENV = "RAGD_TEST_STORE_SPIN"
# What the daemon may ask; nothing else is called.
OPS = frozenset(
    {
        "space",
        "hnsw_settings",
        "all_ids",
        "vectors",
        "query_many",
        "sample",
        "unfindable",
        "warm",
        "upsert",
        "relabel",
        "scopes",
        "delete",
        "reset",
        "recount",
    }
)
EXPIRED = "expired"  # a reply's status: nobody waited for it any more, so it was not run
CLOSE = "close"


def delays(text: str) -> dict[str, float]:
    """DELAY_ENV's value as {op: seconds}."""
    found: dict[str, float] = {}
    for item in text.split(","):
        op, _, seconds = item.partition("=")
        if op.strip() and seconds.strip():
            found[op.strip()] = float(seconds)
    return found


class _Sender:
    """The pipe's writing end, shared by the serving loop and the log handler (ChromaDB
    may log from a thread of its own)."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._lock = threading.Lock()

    def send(self, message: tuple[Any, ...]) -> None:
        with self._lock:
            self.conn.send(message)


class _PipeLog(logging.Handler):
    def __init__(self, sender: _Sender) -> None:
        super().__init__()
        self._sender = sender

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self._sender.send(("log", record.levelno, record.name, record.getMessage()))
        except Exception:  # the daemon is gone: nobody to tell
            return


def _spun(op: str, spin: str | None) -> None:
    """A test's livelock (SPIN_ENV): busy, and never done."""
    while op == spin:
        pass


def serve(sender: _Sender, store: Any, slow: dict[str, float], spin: str | None = None) -> None:
    """Answer requests until the pipe closes or the daemon says close."""
    conn = sender.conn
    while True:
        try:
            rid, op, args, deadline = conn.recv()
        except (EOFError, OSError):
            return
        if op == CLOSE:
            sender.send((rid, "ok", None, store.count()))
            return
        if deadline is not None and time.monotonic() > deadline:
            sender.send((rid, EXPIRED, None, store.count()))
            continue
        try:
            if op not in OPS:
                raise ValueError(f"no such call: {op!r}")
            _spun(op, spin)
            value = getattr(store, op)(*args)
        except Exception as exc:
            sender.send((rid, "error", (type(exc).__name__, str(exc)), store.count()))
        else:
            time.sleep(slow.get(op, 0.0))  # a test's late answer (DELAY_ENV)
            sender.send((rid, "ok", value, store.count()))


def _held() -> None:
    hold = os.environ.get(HOLD_ENV)
    while hold and os.path.exists(hold):
        time.sleep(0.1)


def main(argv: list[str]) -> int:
    fd, parent, path = int(argv[0]), int(argv[1]), Path(argv[2])
    parent_death.die_with_parent(parent)
    spin = None if AGAIN in argv[3:] else os.environ.get(SPIN_ENV)
    if AGAIN in argv[3:]:
        _held()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sender = _Sender(Connection(fd))
    root = logging.getLogger()
    root.handlers[:] = [_PipeLog(sender)]
    root.setLevel(logging.INFO)
    logging.getLogger("chromadb").setLevel(logging.WARNING)  # it chatters at INFO
    from ragd.index.dense import ChromaStore  # after the pipe is set up: its errors go there

    _spun("open", spin)
    try:
        store = ChromaStore(path)
    except Exception as exc:
        sender.send((0, "error", (type(exc).__name__, str(exc)), 0))
        return 1
    sender.send((0, "ok", os.getpid(), store.count()))
    serve(sender, store, delays(os.environ.get(DELAY_ENV, "")), spin)
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    # No interpreter teardown: nothing is left to flush (ChromaDB commits each write),
    # and tearing its native threads down only costs time.
    sys.stdout.flush()
    os._exit(code)
