"""The data dir's layout, named once: every module that builds one of these paths asks here.

<data dir>/manifest.sqlite3   the manifest (files, chunks, roots, meta), and its -wal/-shm
<data dir>/chroma/            the embedded vector index (ChromaDB); on a server, unused
<data dir>/tantivy/           the lexical index
<data dir>/ragd.lock          held by the running daemon (`ragd check` and `ragd reset` look)
<socket>.lock                 beside an ipc:// socket: one daemon per socket
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.sqlite3"
VECTORS = "chroma"
LEXICAL = "tantivy"
DATA_LOCK = "ragd.lock"
STORES = (VECTORS, LEXICAL)  # the index folders `ragd reset` removes (never the manifest)
VECTOR_DATABASE = "chroma.sqlite3"  # ChromaDB's own, in VECTORS: the longest SQLite path
# SQLite's unix VFS holds a database's full path in a 512-byte buffer and names its WAL and
# shared-memory files after it: measured here, the longest path it opens in WAL mode is
# 504 bytes. A data dir past that failed with "unable to open database file", which ragd
# took for a damaged manifest and answered with `ragd reset` (which then crashed too).
MAX_SQLITE_PATH_BYTES = 504


@dataclass(frozen=True)
class DataDir:
    """The paths inside one data dir."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST

    @property
    def vectors(self) -> Path:
        return self.root / VECTORS

    @property
    def lexical(self) -> Path:
        return self.root / LEXICAL

    @property
    def lock(self) -> Path:
        return self.root / DATA_LOCK


def too_long(root: Path) -> str | None:
    """Why SQLite cannot open the data dir's databases under `root` (absolute), or None."""
    longest = DataDir(root).vectors / VECTOR_DATABASE
    size = len(os.fsencode(root))
    room = MAX_SQLITE_PATH_BYTES - (len(os.fsencode(longest)) - size)
    if size <= room:
        return None
    return (
        f"the data dir {root} is {size} bytes long; SQLite cannot open the index's "
        f"databases under a path that long (at most {room} bytes): pass a shorter --data-dir"
    )


def socket_lock(socket_path: Path) -> Path:
    """The lock beside an ipc:// socket file."""
    return socket_path.with_name(socket_path.name + ".lock")
