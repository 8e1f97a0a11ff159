"""Another process's lock on the embedded vector store's SQLite database (chroma.sqlite3).

ChromaDB's native code waits for such a lock with the GIL held: a store opened, or a
write made, while `sqlite3 chroma.sqlite3 'BEGIN EXCLUSIVE; …'`, a backup tool or a
`chroma` CLI holds it froze the whole daemon (no `rag status`, no search) until the lock
went. So ragd looks first, without taking any lock (fcntl F_GETLK on SQLite's lock
bytes), and waits in Python instead: at start-up `locked_store.LockedStore` stands in for
the store (searches answer from BM25 and say why; `rag status` says it waits) and opens the
stored vectors once the lock goes; a write waits before it calls ChromaDB. Nothing is
discarded or rebuilt for a lock.
"""

from __future__ import annotations

import fcntl
import logging
import os
import struct
import threading
from collections.abc import Callable
from pathlib import Path

# SQLite's lock bytes (os_unix.c): PENDING, RESERVED, then the SHARED range. A writer
# (RESERVED), one about to write (PENDING) or one writing (EXCLUSIVE) holds a write lock
# on some of them; readers hold read locks only, which a read lock never conflicts with.
LOCK_BYTES_START = 0x40000000
LOCK_BYTES = 2 + 510
FLOCK = "hhqqi4x"  # struct flock on Linux: type, whence, start, len, pid (+ padding)
RETRY_S = 1.0

log = logging.getLogger(__name__)


class LockWatch:
    """Asks who else holds a write lock on `database`. Its descriptor stays open for the
    process's life: closing any descriptor on a file drops every POSIX lock this process
    holds on it, ChromaDB's own included."""

    def __init__(self, database: Path, ours: Callable[[], int | None] = lambda: None) -> None:
        self.database = database
        # A process of ours whose locks are not another's: the store's worker process
        # (F_GETLK never reports this process's own locks, but it does report a child's).
        self._ours = ours
        self._fd: int | None = None
        self.write_waits: str | None = None  # the lock's phrase while a write waits for it

    def holder(self, anyone: bool = False) -> int | None:
        """The id of another process holding a write lock on the database (`anyone`: any
        lock, a reader's too, which a write of ours waits for), else None: 0 for one in
        another PID namespace (a container's), -1 for an open file description lock
        (`fcntl(2)`), whose holder the kernel does not name."""
        if self._fd is None:
            try:
                self._fd = os.open(self.database, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                return None  # not there (yet), or not ours to read: ChromaDB will say
        # F_GETLK reports a lock that would conflict with the one asked for: a read lock
        # conflicts with write locks only, a write lock with any.
        kind = fcntl.F_WRLCK if anyone else fcntl.F_RDLCK
        asked = struct.pack(FLOCK, kind, os.SEEK_SET, LOCK_BYTES_START, LOCK_BYTES, 0)
        try:
            kind, _, _, _, pid = struct.unpack(FLOCK, fcntl.fcntl(self._fd, fcntl.F_GETLK, asked))
        except OSError:
            return None
        return None if kind == fcntl.F_UNLCK or pid == self._ours() else pid

    def phrase(self, pid: int) -> str:
        """What a search's note and `rag status` say while it is held."""
        who = f"process {pid}" if pid > 0 else "a process the kernel does not name"
        return (
            f"vector store locked by another process ({who} holds "
            f"{self.database.name} in {self.database.parent})"
        )

    def wait(self, stop: threading.Event, waiting: Callable[[str | None], None]) -> bool:
        """Block while another process holds the lock (False if `stop` is set first);
        `waiting(phrase)` is told while it waits and `waiting(None)` once it is let go."""
        while (pid := self.holder()) is not None:
            waiting(self.phrase(pid))
            if stop.wait(RETRY_S):
                return False
        waiting(None)
        return True

    def problem(self) -> str | None:
        """What a store's `unavailable()` says of the lock: the one a write waits for, or
        one held now."""
        if self.write_waits:
            return self.write_waits
        pid = self.holder()
        return None if pid is None else self.phrase(pid)

    def wait_to_write(self, stop: threading.Event) -> bool:
        """`wait` before a write: said once in the log as the wait starts and as it ends,
        its phrase in `write_waits` meanwhile."""
        return self.wait(stop, self._write_said)

    def _write_said(self, phrase: str | None) -> None:
        if phrase and not self.write_waits:
            log.warning("%s: vector writes wait for it; searches answer from BM25", phrase)
        elif self.write_waits and not phrase:
            log.info("the other process let go of the vector index: writing")
        self.write_waits = phrase
