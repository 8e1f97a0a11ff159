"""Why the daemon restarts after a vector write failed in ChromaDB's native code.

A failed native write leaves the embedded store `wedged` (dense.ChromaStore), and the
daemon re-executes itself to reopen it once the disk has room. It logged "space is back"
whatever had failed: after the data dir was moved and copied back (SQLite's "attempt to
write a readonly database"), that line blamed a disk that was never full (fixes42). The
reason it gives now is the failure's own: lack of space only when the guard took it for
that, else the error's class and text.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import numpy as np
import pytest

from ragd.core.layout import DataDir
from ragd.index.dense import ChromaStore
from ragd.index.space import DiskGuard


def test_a_write_that_failed_for_another_cause_than_space_is_named_so(tmp_path: Path) -> None:
    data = tmp_path / "d"
    guard = DiskGuard(data, reserve=0)  # plenty of room: a failure is not for space
    store = ChromaStore(DataDir(data).vectors, guard=guard)
    vector = np.ones((1, 384), dtype=np.float32)
    store.upsert(["a#0"], vector)
    assert not store.needs_reopen()
    shutil.move(data, tmp_path / "old")  # moved away and copied back under the store
    shutil.copytree(tmp_path / "old", data)
    with pytest.raises(Exception, match="readonly database"):
        store.upsert(["b#0"], vector)
    why = store.needs_reopen()
    assert isinstance(why, str), why
    assert "InternalError" in why and "readonly database" in why, why
    assert "space" not in why, why
    assert guard.short is None


def test_the_guard_says_which_failures_were_for_space(tmp_path: Path) -> None:
    guard = DiskGuard(tmp_path, reserve=0)
    assert guard.failed(OSError(errno.ENOSPC, "No space left on device")) == "disk full"
    assert guard.short is not None
    assert DiskGuard(tmp_path, reserve=0).failed(RuntimeError("server error 500")) is None
