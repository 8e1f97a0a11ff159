"""A burst of files that give no chunks does not hold a batch open to its end; a scan
that meets a full descriptor table is tried again, not recorded as an unreadable folder.

A batch closes once it holds BATCH_FILES plans (or BATCH_WINDOWS windows); files that
give no plan (empty, binary, a type not indexed, deleted, unchanged) were never counted,
so all the jobs due at once went into one batch. Seen on a live daemon: 100,000 empty
`.md` files made one batch of six minutes, during which `rag status` said "0/100000
files" (a batch's jobs are returned to the queue when it is applied), the four files
set aside at its start said "parsing for 300 s" (slow files move only between batches),
and a note saved among them was planned at once but applied only at the batch's end.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragd.ingest import planner as planner_module
from ragd.ingest.indexer import BATCH_JOBS, Indexer
from ragd.ingest.planner import OutOfDescriptors
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.indexers import folder_indexer

EMPTY = 3 * BATCH_JOBS


@pytest.fixture
def indexer(tmp_path: Path, embedder: Any) -> Iterator[Indexer]:
    root = tmp_path / "notes"
    root.mkdir()
    indexer = folder_indexer(tmp_path / "data", embedder, root, WorkQueue(debounce_s=0))
    yield indexer
    indexer.stop(30)


def test_a_note_among_many_empty_files_is_applied_before_they_are_all_read(
    indexer: Indexer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The note's parse is waited for, so it is in the first batch: on a loaded machine a
    # parse past PARSE_PATIENCE_S (0.5 s) is set aside and applied between batches once it
    # ends, and empty files, skipped without a parse, could all be settled before that.
    # What is checked here is that the batch holding the note closes after BATCH_JOBS jobs.
    monkeypatch.setattr(planner_module, "PARSE_PATIENCE_S", 600.0)
    root = tmp_path / "notes"
    (root / "pump.md").write_text("# Pump\n\nThe pump is primed with glycerol.\n")
    for i in range(EMPTY):
        (root / f"e{i:05d}.md").touch()
    queue = indexer.queue
    queue.put(Job("sync", str(root), "pump.md"), debounce=False)  # due first
    for i in range(EMPTY):
        queue.put(Job("sync", str(root), f"e{i:05d}.md"), debounce=False)
    settled: list[str] = []  # the files given a verdict without a plan, in order
    settle = indexer.writer.settle

    def recording_settle(root: str, relpath: str, *rest: Any) -> None:
        settled.append(relpath)
        settle(root, relpath, *rest)

    indexer.writer.settle = recording_settle  # type: ignore[method-assign]
    manifest = indexer.writer.stores.manifest
    read_before_applied: list[int] = []
    commit_files = manifest.commit_files

    def recording_commit(files, *beside):  # type: ignore[no-untyped-def]
        read_before_applied.append(len(settled))
        commit_files(files, *beside)

    manifest.commit_files = recording_commit  # type: ignore[method-assign]
    indexer.start()
    assert queue.wait_idle(300)
    assert len(settled) == EMPTY  # every empty file had its verdict
    assert manifest.file(str(root), "pump.md") is not None
    # Before: all 768 empty files read, then the note applied with the batch's end.
    (read,) = read_before_applied
    assert read <= BATCH_JOBS - 1


def test_a_scan_without_descriptors_is_tried_again_not_recorded_unreadable(
    indexer: Indexer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Peers flooding a tcp:// socket hold every descriptor; a scan meeting that recorded
    the root as "cannot read folder (Too many open files)" and hid its files, and nothing
    cleared it after the flood (tests/daemon/test_descriptor_flood.py saw it in CI)."""
    root = tmp_path / "notes"
    (root / "pump.md").write_text("# Pump\n\nThe pump is primed with glycerol.\n")
    listed = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path) == str(root):
            raise OSError(errno.EMFILE, "Too many open files", os.fspath(path))
        return listed(path)

    monkeypatch.setattr(os, "scandir", scandir)  # os.walk lists folders through it
    # The writer queues a job that raises OutOfDescriptors again (Indexer._again_later),
    # as it does for a file it could not open; the folder is not recorded.
    with pytest.raises(OutOfDescriptors):
        indexer.reconcile.scan(str(root))
    manifest = indexer.writer.stores.manifest
    assert [p for p in manifest.problem_rows() if p[0] == str(root)] == []
    monkeypatch.setattr(os, "scandir", listed)  # the flood is over
    indexer.queue.put(Job("sync", str(root), ""), debounce=False)
    indexer.start()
    assert indexer.queue.wait_idle(120)
    assert manifest.file(str(root), "pump.md") is not None
