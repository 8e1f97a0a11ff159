"""A manifest another process holds locked: the file waits, it has not failed.

Any process of the user's can open `manifest.sqlite3` and hold a write lock (`sqlite3
manifest.sqlite3` and `BEGIN EXCLUSIVE;` left open, a backup tool, a script reading it
in a long transaction). The daemon's writes then wait SQLite's busy timeout and fail
with `database is locked`. That is no fault of the file being written: before, it was
logged as `indexing n4.md failed`, its problem could not be recorded either (the
manifest was locked), and the file was never tried again while the daemon ran (a failed
file is retried at the next scan, and a watched root is scanned only at start-up), so
a note saved during the lock stayed out of the index with `rag status` idle and showing
no error. Now the file is queued again (its write mark set, so it is read whatever its
stat says) and the lock is said in one warning at most once a minute, and by `rag
status` for as long as it lasts (`state`: the files waiting for it, cleared by the next
manifest write that goes through). The plan of a file queued again is kept (`take`: by
its bytes' hash, KEPT_PLANS at most), so a retry of the same bytes reads and hashes the
file but parses and chunks nothing: under a lock held for hours, a 20 MB file was parsed
again every 30 s.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ragd.core.layout import MANIFEST
from ragd.core.names import shown
from ragd.index.plan import FilePlan

log = logging.getLogger("ragd.indexer")

WARNING_EVERY_S = 60.0
KEPT_PLANS = 4  # plans of files waiting for the lock, kept for their retry (the latest)
_BUSY_CODES = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED}


def held_by_another(exc: BaseException) -> bool:
    """`exc` is SQLite's "database is locked" (or "database table is locked")."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES  # the primary code, whatever the extended one
    return "is locked" in str(exc)


class BusyManifest:
    """Files whose write met the lock go back to the queue (`requeue`, set by whoever
    owns the queue: `ingest/assembly.py`)."""

    def __init__(self) -> None:
        self.requeue: Callable[[str, str], None] | None = None
        self._warned = float("-inf")
        self._lock = threading.Lock()  # `state` is read on the server's threads
        self._waiting: set[tuple[str, str]] = set()  # (root, relpath) queued for the lock
        self._since: float | None = None  # when the lock was first met (epoch seconds)
        self._plans: OrderedDict[tuple[str, str], FilePlan] = OrderedDict()

    def take(self, root: str, relpath: str, sha256: str) -> FilePlan | None:
        """The plan kept for this file when its write met the lock, if made from these
        bytes (taken: a plan is kept for one retry)."""
        with self._lock:
            plan = self._plans.pop((root, relpath), None)
        return plan if plan is not None and plan.row.sha256 == sha256 else None

    def state(self) -> dict[str, Any] | None:
        """For `rag status`: the lock met and how many changes wait for it, or None.
        (The data dir by name only: no reply carries an absolute path.)"""
        with self._lock:
            changes, since = len(self._waiting), self._since
        if not changes or since is None:
            return None
        return {"file": MANIFEST, "where": "the data dir", "changes": changes, "since": since}

    def written(self) -> None:
        """A manifest write went through: no lock is held on it any more."""
        with self._lock:
            self._waiting.clear()
            self._since = None

    def done(self, root: str, relpath: str) -> None:
        """A file's change was carried out (with or without a write)."""
        with self._lock:
            self._waiting.discard((root, relpath))
            self._plans.pop((root, relpath), None)
            if not self._waiting:
                self._since = None

    def retry_later(
        self,
        root: str,
        relpath: str,
        label: str,
        exc: BaseException,
        plan: FilePlan | None = None,
    ) -> bool:
        """True when `exc` is the lock and the file is queued again (False: a failure);
        `plan`, the file's plan that met it, is kept for the retry."""
        if self.requeue is None or not held_by_another(exc):
            return False
        with self._lock:
            if plan is not None:
                self._plans[(root, relpath)] = plan
                self._plans.move_to_end((root, relpath))
                while len(self._plans) > KEPT_PLANS:
                    self._plans.popitem(last=False)
            self._waiting.add((root, relpath))
            if self._since is None:
                self._since = time.time()
        self.requeue(root, relpath)
        now = time.monotonic()
        if now - self._warned >= WARNING_EVERY_S:
            self._warned = now
            log.warning(
                "the manifest is locked by another process (%s: an sqlite3 shell or a "
                "backup holding a transaction on %s?); %s and the files "
                "after it are written once it is free",
                exc,
                MANIFEST,
                shown(label),
            )
        return True
