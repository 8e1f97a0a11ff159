"""The disk filling up between the disk guard's look and the write it allowed (another
program's download, a build): the write fails for space, and the change must still be
indexed once space returns, never left behind as the file's own failure.

attack75, by hand: a daemon's data dir on a 150 MB tmpfs, a 660 KB log rewritten while a
filler took all free space for 0.15 s every 0.25 s. One vector write failed mid-way
("Failed to apply logs to the hnsw segment writer"); the guard said `an index write failed
for lack of space`, space came back 3 s later, the vector index was rebuilt from the
embedding cache, and then the daemon sat `idle` with `biglog.md: indexing failed
(StoreProcessError: …)` in `rag status` and the log's old version searchable: a watched
root is scanned only at start, so nothing tried the file again. Here the disk is filled
(a real ENOSPC from SQLite) just after the guard let the manifest's commit of a file's
new version through.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragd.index.space import DiskGuard
from ragd.ingest.indexer import Indexer
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.daemon import wait_for
from tests.support.indexers import folder_indexer
from tests.support.mounts import mount_tmpfs, unmount

pytestmark = pytest.mark.slow


@pytest.fixture
def on_small_disk(tmp_path: Path, embedder: Any) -> Iterator[tuple[Indexer, Path, Path]]:
    """(indexer, root, mount): the data dir on a 64 MB tmpfs, behind the daemon's guard."""
    mount = tmp_path / "small"
    mount.mkdir()
    mount_tmpfs(mount, "64m")
    root = tmp_path / "root"
    root.mkdir()
    stopping = threading.Event()
    guard = DiskGuard(mount / "data", stopping)
    indexer = folder_indexer(mount / "data", embedder, root, WorkQueue(debounce_s=0), guard=guard)
    try:
        yield indexer, root, mount
    finally:
        stopping.set()
        indexer.stop(30)
        unmount(mount, lazy=True)


def test_a_write_that_fails_for_space_mid_way_is_indexed_once_space_returns(
    on_small_disk: tuple[Indexer, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    indexer, root, mount = on_small_disk
    manifest = indexer.writer.stores.manifest
    note = root / "note.md"
    note.write_text("# Note\n\nThe first version names the albatross.\n")
    indexer.sync(str(root), "note.md")
    first = manifest.file(str(root), "note.md")
    assert first is not None
    filler = mount / "filler"
    real_commit, real_wait = manifest.commit_files, manifest.guard.wait_for_room  # type: ignore[union-attr]
    committing = threading.Event()

    def commit_files(*args: Any, **kwargs: Any) -> Any:
        committing.set()
        try:
            return real_commit(*args, **kwargs)
        finally:
            committing.clear()

    def wait_for_room() -> None:
        real_wait()
        if committing.is_set() and not filler.exists():  # the guard let it through: fill
            st = os.statvfs(mount)
            with open(filler, "wb") as f:
                os.posix_fallocate(f.fileno(), 0, st.f_bavail * st.f_frsize)

    monkeypatch.setattr(manifest, "commit_files", commit_files)
    monkeypatch.setattr(manifest.guard, "wait_for_room", wait_for_room)
    indexer.start()
    note.write_text("# Note\n\nThe second version names the cormorant.\n")
    indexer.queue.put(Job("sync", str(root), "note.md"))
    wait_for(lambda: indexer.writer.stores.manifest.guard.short, 120, "writes to wait for room")  # type: ignore[union-attr]
    monkeypatch.undo()
    filler.unlink()  # space returns
    (root / "later.md").write_text("# Later\n\nA note saved once space was back.\n")
    indexer.queue.put(Job("sync", str(root), "later.md"))
    wait_for(lambda: manifest.file(str(root), "later.md"), 120, "the later note to be indexed")
    now = manifest.file(str(root), "note.md")
    assert now is not None and now.sha256 != first.sha256  # the second version, indexed
    assert manifest.problem_rows() == []


def test_the_lexical_index_takes_writes_again_after_a_commit_failed_for_space(
    tmp_path: Path,
) -> None:
    """attack75: once a tantivy commit failed with ENOSPC, its writer was dead: every later
    add and commit returned without error and stored nothing, so each file indexed after
    space returned was in the manifest and not in BM25 (`ragd check`: lexical missing)
    until a restart. A failed write now rolls the writer back (its uncommitted documents
    go; the file they came from is written again)."""
    from ragd.index.lexical import LexicalDoc, TantivyIndex

    mount = tmp_path / "small"
    mount.mkdir()
    mount_tmpfs(mount, "8m")
    try:
        index = TantivyIndex(mount / "tantivy")
        index.add(LexicalDoc(f"a{i}", "a.md", "A", f"first words {i}") for i in range(50))
        index.commit()
        st = os.statvfs(mount)
        with open(mount / "filler", "wb") as f:
            os.posix_fallocate(f.fileno(), 0, st.f_bavail * st.f_frsize - 4096)
        words = " ".join(f"word{j}" for j in range(2000))
        with pytest.raises(Exception, match="No space left"):
            index.add(LexicalDoc(f"b{i}", "b.md", "B", words) for i in range(30))
            index.commit()
        (mount / "filler").unlink()  # space returns
        index.add(LexicalDoc(f"c{i}", "c.md", "C", f"later words {i} walrus") for i in range(5))
        index.commit()
        assert len(index.search("walrus", 50)) == 5
        assert index.num_docs() == 55
        index.close()
    finally:
        unmount(mount, lazy=True)
