"""watchdog's inotify emitter follows each file created, written, deleted or moved with a
"modified" of the folder holding it, which inotify never reported. Synced, that folder
was scanned: a save cost a walk of every file beside it (dirmod70). The watcher drops
the echo; what the folder's own events say (a new folder, a change of its mode) is
still synced."""

from __future__ import annotations

import os
from pathlib import Path

from ragd.core.roots import Roots
from ragd.ingest.filters import PathFilter
from ragd.ingest.watcher import Watcher
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.daemon import wait_for


def test_a_save_queues_the_file_not_its_folder_and_a_folders_own_change_is_synced(
    tmp_path: Path,
) -> None:
    root = tmp_path / "notes"
    (root / "many").mkdir(parents=True)
    # Nothing takes the jobs (no indexer): what was queued stays there to be seen.
    queue = WorkQueue(debounce_s=600)
    watcher = Watcher(Roots([str(root)]), PathFilter(("*.md",)), queue)

    def job(relpath: str) -> Job:
        return Job("sync", str(root), relpath)

    watcher.start()
    try:
        (root / "many" / "a.md").write_text("# Herons\n")  # created, then closed written
        (root / "many" / "a.md").rename(root / "many" / "b.md")
        (root / "many" / "c.md").write_text("# Egrets\n")
        (root / "many" / "c.md").unlink()
        # Events are handed on in order: once this file is queued, so is all of the above.
        (root / "last.md").write_text("# Last\n")
        wait_for(lambda: queue.waiting(job("last.md")), 30, "the last file queued")
        assert all(queue.waiting(job(f"many/{name}")) for name in ("a.md", "b.md", "c.md"))
        assert not queue.waiting(job("many")), "a save in the folder queued a scan of it"

        os.chmod(root / "many", 0o700)  # the folder's own change (attrib): synced
        wait_for(lambda: queue.waiting(job("many")), 30, "the folder's mode change queued")
        (root / "many" / "sub").mkdir()  # a new folder: scanned
        wait_for(lambda: queue.waiting(job("many/sub")), 30, "the new folder queued")
    finally:
        watcher.stop()
