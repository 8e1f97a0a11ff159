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
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ragd.core.config import Settings
from ragd.core.roots import Roots
from ragd.engine.components import Basics, Startup
from ragd.engine.health import Health
from ragd.index import manifest as manifest_module
from ragd.index.space import DiskGuard
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


def recorded_tries(indexer: Indexer) -> list[str]:
    """The relpaths of the writer's failed files, each time one fails (or meets the lock)."""
    tried: list[str] = []
    file_failed = indexer.writer.file_failed

    def recording(root: str, relpath: str, *rest: Any, **named: Any) -> None:
        tried.append(relpath)
        file_failed(root, relpath, *rest, **named)

    indexer.writer.file_failed = recording  # type: ignore[method-assign]
    return tried


def written_under_a_lock(indexer: Indexer, tmp_path: Path, name: str, text: str, tries: int) -> int:
    """`name` written while another connection holds `BEGIN EXCLUSIVE` on the manifest,
    until its write met the lock `tries` times; returns how many it met before the lock
    was let go."""
    tried = recorded_tries(indexer)
    locker = sqlite3.connect(tmp_path / "data" / "manifest.sqlite3", isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    root = tmp_path / "notes"
    (root / name).write_text(text)
    indexer.queue.put(Job("sync", str(root), name))
    deadline = time.monotonic() + 60
    while tried.count(name) < tries and time.monotonic() < deadline:
        time.sleep(0.05)
    locker.execute("ROLLBACK")
    locker.close()
    return tried.count(name)  # (counted after: at least as many as before the let-go)


def test_a_note_saved_while_another_process_locks_the_manifest_is_indexed_once_it_is_free(
    indexer: Indexer, tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    manifest = indexer.writer.stores.manifest
    (root / "walrus.md").write_text("# Walrus\n\nThe walrus likes herring.\n")
    indexer.queue.put(Job("sync", str(root), "walrus.md"))
    assert indexer.queue.wait_idle(60)
    waiting: list[dict[str, Any] | None] = []
    busy_state = indexer.writer.busy.state
    requeue = indexer.writer.busy.requeue
    assert requeue is not None

    health = health_over(indexer, tmp_path)
    status_lines: list[str] = []

    def noting(root: str, relpath: str) -> None:  # what `rag status` shows while it lasts
        requeue(root, relpath)
        waiting.append(busy_state())
        status_lines.append(health.status_line())  # and systemd's STATUS=

    indexer.writer.busy.requeue = noting
    text = "# Octopus\n\nThe octopus likes mackerel.\n"
    assert written_under_a_lock(indexer, tmp_path, "octopus.md", text, 2) >= 2
    assert waiting[-1] is not None
    assert (waiting[-1]["file"], waiting[-1]["changes"]) == ("manifest.sqlite3", 1)
    assert "waiting for another process's lock on manifest.sqlite3" in status_lines[-1]
    assert "1 change waits" in status_lines[-1], status_lines[-1]
    assert indexer.queue.wait_idle(60)
    assert manifest.file(str(root), "octopus.md") is not None
    assert manifest.problem(str(root), "octopus.md") is None
    assert busy_state() is None  # the lock is gone: status stops saying it
    assert "lock" not in health.status_line(), health.status_line()


def health_over(indexer: Indexer, tmp_path: Path) -> Health:
    """What `rag status` and STATUS= say about this indexer's queue and writer (the parts
    of the daemon's components `Health` reads)."""
    stopping = threading.Event()
    basics = Basics(indexer.queue, Roots(), DiskGuard(tmp_path / "data", stopping), stopping)
    startup = Startup(stopping)
    parts = SimpleNamespace(stores=indexer.writer.stores, writer=indexer.writer, indexer=indexer)
    startup.components = parts  # type: ignore[assignment]
    return Health(basics, startup, Settings().vector_target)


def test_a_file_retried_under_the_lock_is_parsed_once(indexer: Indexer, tmp_path: Path) -> None:
    """Each retry read the file again (its hash says whether it changed) and parsed it
    again: under a lock held for hours, a 20 MB file cost a parse every 30 s. Its plan
    is kept by its bytes' hash (a few at most), so a retry of the same bytes only reads."""
    parsed: list[str] = []
    submit = indexer.files.parser.submit

    def counting(name: str, *rest: Any) -> Any:
        parsed.append(name)
        return submit(name, *rest)

    indexer.files.parser.submit = counting  # type: ignore[method-assign]
    text = "# Squid\n\nThe squid likes sardines.\n"
    assert written_under_a_lock(indexer, tmp_path, "squid.md", text, 3) >= 3
    assert indexer.queue.wait_idle(60)
    assert indexer.writer.stores.manifest.file(str(tmp_path / "notes"), "squid.md") is not None
    assert parsed.count("squid.md") == 1
