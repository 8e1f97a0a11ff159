"""A write lock held on the manifest by another process delays files; it loses none.

By hand, on a live daemon: `BEGIN EXCLUSIVE` held on `manifest.sqlite3` for two minutes
while a note was added, one edited and one deleted. After 30 s the batch failed, then
each file: `indexing n4.md failed: OperationalError: database is locked`, and `could not
record why n4.md failed` (the manifest was locked). Once the lock was let go the edit
and the deletion were applied, but the new note was never indexed: `rag status` idle,
2 files, `errors none`, and `mackerel4` found nothing for as long as the daemon ran.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragd.index import manifest as manifest_module
from ragd.ingest.indexer import Indexer
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.indexers import folder_indexer


@pytest.fixture
def indexer(tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Indexer]:
    monkeypatch.setattr(manifest_module, "BUSY_TIMEOUT_S", 0.2)  # the daemon waits 30 s
    root = tmp_path / "notes"
    root.mkdir()
    indexer = folder_indexer(tmp_path / "data", embedder, root, WorkQueue(debounce_s=0.1))
    indexer.start()
    yield indexer
    indexer.stop(30)


def test_a_note_saved_while_another_process_locks_the_manifest_is_indexed_once_it_is_free(
    indexer: Indexer, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    manifest = indexer.writer.stores.manifest
    (root / "walrus.md").write_text("# Walrus\n\nThe walrus likes herring.\n")
    indexer.queue.put(Job("sync", str(root), "walrus.md"))
    assert indexer.queue.wait_idle(60)
    tried: list[str] = []
    file_failed = indexer.writer.file_failed

    def recording(root: str, relpath: str, *rest: Any, **named: Any) -> None:
        tried.append(relpath)
        file_failed(root, relpath, *rest, **named)

    indexer.writer.file_failed = recording  # type: ignore[method-assign]
    locker = sqlite3.connect(tmp_path / "data" / "manifest.sqlite3", isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    (root / "octopus.md").write_text("# Octopus\n\nThe octopus likes mackerel.\n")
    indexer.queue.put(Job("sync", str(root), "octopus.md"))
    deadline = time.monotonic() + 60
    while tried.count("octopus.md") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # its write met the lock, and again
    waiting = indexer.writer.busy.state()  # what `rag status` shows while it lasts
    locker.execute("ROLLBACK")
    locker.close()
    assert tried.count("octopus.md") >= 2
    assert waiting is not None
    assert (waiting["file"], waiting["changes"]) == ("manifest.sqlite3", 1)
    assert indexer.queue.wait_idle(60)
    assert manifest.file(str(root), "octopus.md") is not None
    assert manifest.problem(str(root), "octopus.md") is None
    assert indexer.writer.busy.state() is None  # the lock is gone: status stops saying it
