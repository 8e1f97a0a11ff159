"""A lock on the vector store whose holder the kernel does not name is still a lock.

F_GETLK reports pid 0 for a holder in another PID namespace (a container's) and -1 for an
open file description lock. `LockWatch.problem()` had read a pid of 0 as "no lock", so
`rag status` said nothing while writes waited; and the phrase named "process -1"."""

from __future__ import annotations

import fcntl
import os
import struct
from pathlib import Path

from ragd.index.store_lock import FLOCK, LOCK_BYTES, LOCK_BYTES_START, LockWatch


def test_an_open_file_description_lock_is_reported_without_a_pid(tmp_path: Path) -> None:
    database = tmp_path / "chroma.sqlite3"
    database.write_bytes(b"")
    watch = LockWatch(database)
    assert watch.holder() is None and watch.problem() is None
    fd = os.open(database, os.O_RDWR)
    try:
        # An OFD lock conflicts across descriptions, even within one process.
        held = struct.pack(FLOCK, fcntl.F_WRLCK, os.SEEK_SET, LOCK_BYTES_START, LOCK_BYTES, 0)
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, held)
        assert watch.holder() == -1
        problem = watch.problem()
        assert problem is not None
        assert "a process the kernel does not name holds chroma.sqlite3" in problem
        assert "process -1" not in problem
    finally:
        os.close(fd)
    assert watch.holder() is None and watch.problem() is None
