"""Saves that go through a temporary name the watcher does not know as one.

`sed -i` writes each file to `./sedXXXXXX` in its folder and renames it over the file;
`perl -i`, `install`, Python's `tempfile` and many editors' plug-ins do the same with
names of their own. The temporary name is an ordinary file name, so the watcher queues
it like any other path, and by the time the writer gets to it, it is gone. A vanished
path that nothing was indexed or planned under must not cut the batch short: before,
every one of them applied the plans gathered so far, so `sed -i s/a/b/ *.md` over 150
notes was applied as 150 batches, one file at a time (the real daemon: ≈ 15 s before
the last note was fresh, against ≈ 1 s for the same edits written in place).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragd.core.roots import Roots
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest import planner as planner_module
from ragd.ingest.assembly import build_indexer
from ragd.ingest.filters import PathFilter
from ragd.ingest.indexer import BATCH_FILES, Indexer
from ragd.ingest.parse_pool import shared_pool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.watcher import Watcher
from ragd.ingest.work_queue import WorkQueue
from tests.support.daemon import wait_for

NOTES = 40  # fewer than a batch holds, each one window: one batch applies them all
assert NOTES < BATCH_FILES


@pytest.fixture
def watched(
    tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Indexer, Watcher, Path]]:
    # Every parse waited for: a parse slower than PARSE_PATIENCE_S (0.5 s; a loaded
    # machine, the parse worker's first import of the Markdown reader) is set aside and
    # applied in a batch of its own, which is timing, not what is tested here.
    monkeypatch.setattr(planner_module, "PARSE_PATIENCE_S", 600.0)
    root = tmp_path / "notes"
    root.mkdir()
    queue = WorkQueue(debounce_s=0)
    roots = Roots([str(root)])
    path_filter = PathFilter(("*.md",))
    indexer = build_indexer(
        IndexWriter(Stores.open(tmp_path / "data"), embedder),
        Planner(embedder, rules=lambda: FileRules(20 << 20)),
        shared_pool(),
        roots,
        path_filter,
        queue,
    )
    watcher = Watcher(roots, path_filter, queue)
    yield indexer, watcher, root
    watcher.stop()
    indexer.stop(30)


def note(i: int, word: str) -> str:
    return f"# Pump {i}\n\nPump {i} is primed with {word}{i} before the season.\n"


def save_as_sed_does(path: Path, text: str, temp: str) -> None:
    """`sed -i`: a new file of mode 600 under a temporary name, written, given the
    original's mode, then renamed over the original."""
    made = path.parent / temp
    fd = os.open(made, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, text.encode())
        os.fchmod(fd, 0o644)
    finally:
        os.close(fd)
    os.rename(made, path)


def test_a_folder_saved_through_temporary_names_is_applied_in_one_batch(
    watched: tuple[Indexer, Watcher, Path],
) -> None:
    indexer, watcher, root = watched
    for i in range(NOTES):
        (root / f"pump{i}.md").write_text(note(i, "glycerol"))
    watcher.start()
    for i in range(NOTES):
        save_as_sed_does(root / f"pump{i}.md", note(i, "kerosene"), f"sed{i:06d}")
    # Each save queues its note and its temporary name. The writer starts only once all
    # are queued, so every job is due when it takes the first: what it applies together
    # depends on the jobs, not on timing.
    wait_for(lambda: indexer.queue.pending() == 2 * NOTES, 60, "every save's events queued")
    manifest = indexer.writer.stores.manifest
    commits: list[list[str]] = []
    commit_files = manifest.commit_files

    def recording_commit(files, *beside):  # type: ignore[no-untyped-def]
        commits.append([row.relpath for row, _ in files])
        commit_files(files, *beside)

    manifest.commit_files = recording_commit  # type: ignore[method-assign]
    indexer.start()
    assert indexer.queue.wait_idle(300), f"still pending after {len(commits)} commits"
    indexed = sorted(name for batch in commits for name in batch)
    assert indexed == sorted(f"pump{i}.md" for i in range(NOTES))
    # Before: one commit per note, each temporary name's job applying what was planned.
    assert len(commits) == 1, f"{len(commits)} batches for {NOTES} notes"
    for i in range(NOTES):
        row = manifest.file(str(root), f"pump{i}.md")
        assert row is not None
        assert row.sha256 == hashlib.sha256(note(i, "kerosene").encode()).hexdigest()
