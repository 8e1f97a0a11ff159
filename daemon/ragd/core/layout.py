"""The data dir's layout, named once: every module that builds one of these paths asks here.

<data dir>/manifest.sqlite3   the manifest (files, chunks, roots, meta), and its -wal/-shm
<data dir>/chroma/            the embedded vector index (ChromaDB); on a server, unused
<data dir>/tantivy/           the lexical index
<data dir>/ragd.lock          held by the running daemon (`ragd check` and `ragd reset` look)
<socket>.lock                 beside an ipc:// socket: one daemon per socket
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

MANIFEST = "manifest.sqlite3"
VECTORS = "chroma"
LEXICAL = "tantivy"
DATA_LOCK = "ragd.lock"
STORES = (VECTORS, LEXICAL)  # the index folders `ragd reset` removes (never the manifest)


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


def socket_lock(socket_path: Path) -> Path:
    """The lock beside an ipc:// socket file."""
    return socket_path.with_name(socket_path.name + ".lock")
