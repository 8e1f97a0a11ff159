"""The largest file the daemon may write (RLIMIT_FSIZE), and how a write stopped by it is told.

`ulimit -f 3000` in a shell, or `LimitFSIZE=` in a unit, caps every file the process
writes. Python ignores SIGXFSZ, so a write past the cap fails with EFBIG, and SQLite
reports that as a bare "disk I/O error": under a 2.9 MB cap the manifest's write-ahead
log stopped at exactly 3,072,000 bytes and each large file was listed as "indexing failed
(OperationalError: disk I/O error)" with a traceback, as if the files were broken. The
cap does not change while the process runs, so unlike a full disk (index/space.py) there
is nothing to wait for. The daemon raises its soft limit to the hard one at start (a soft
cap under the hard one is only a default), says once when a finite hard cap remains, and
names the cap when a write fails against it (index/space.py's `DiskGuard.reached_limit`).
"""

from __future__ import annotations

import errno
import logging
import os
import resource
import sqlite3
from pathlib import Path

from ragproto.sizes import file_size_limit_line

log = logging.getLogger("ragd")

# SQLite writes a page (at most 64 KiB) at a time: a write stopped by the cap leaves its
# file within one of it (the manifest's write-ahead log stopped at exactly the cap).
NEAR_LIMIT_BYTES = 64 << 10


def file_size_limit() -> int | None:
    """The cap on the size of a file this process writes, in bytes; None when there is none."""
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def raise_file_size_limit() -> int | None:
    """Raise the soft RLIMIT_FSIZE to the hard one; say so once when a cap remains.
    Returns the cap in force afterwards (None: none)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        except (ValueError, OSError) as exc:
            log.warning("could not raise the file size limit from %d bytes (%s)", soft, exc)
    limit = file_size_limit()
    if limit is not None:
        log.warning("%s", file_size_limit_line(limit))
    return limit


def stopped_by_limit(exc: BaseException, folder: Path) -> bool:
    """Did this write, to a file under `folder`, fail because the file reached the cap?
    EFBIG said outright (tantivy's and ChromaDB's native errors carry "File too large" in
    their text), or SQLite's generic I/O error while a file there has grown to within a
    write of the cap: SQLite says nothing more specific for EFBIG, and a disk that
    really fails must not be blamed on the limit."""
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        return True
    if "file too large" in str(exc).lower():
        return True
    if not isinstance(exc, sqlite3.OperationalError) or "disk i/o error" not in str(exc).lower():
        return False
    limit = file_size_limit()
    return limit is not None and _largest_file(folder) >= limit - NEAR_LIMIT_BYTES


def _largest_file(folder: Path) -> int:
    largest = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            try:
                largest = max(largest, os.lstat(os.path.join(parent, name)).st_size)
            except OSError:
                continue
    return largest
