"""The daemon's own log under a root it watches (`ragd serve ~/notes > ~/notes/ragd.log
2>&1`): every line it logs writes the file. The planner skips the file by its inode
(`no_text.is_own_output`), but each write still made the watcher queue a sync of it, to
be looked at and skipped. The watcher knows the log's path from the start and queues
nothing for its writes; once that name may stand for another file, it is synced again."""

from __future__ import annotations

import os
from pathlib import Path

from ragd.core.roots import Roots
from ragd.ingest.filters import PathFilter
from ragd.ingest.watcher import Watcher
from ragd.ingest.work_queue import Job, WorkQueue
from tests.support.daemon import wait_for


def test_writes_to_the_daemons_own_log_queue_nothing(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    log, note = root / "ragd.log", root / "note.md"
    log.write_text("ragd: starting\n")
    # Nothing takes the jobs (no indexer): what was queued stays there to be seen.
    queue = WorkQueue(debounce_s=600)
    own = [os.path.realpath(log)]  # as the kernel names fd 1 (`no_text.own_output_paths`)
    watcher = Watcher(Roots([str(root)]), PathFilter(("*.md", "*.log")), queue, own_output=own)
    queued = {name: Job("sync", str(root), name) for name in ("ragd.log", "note.md")}
    watcher.start()
    try:
        with log.open("a") as out:  # as the daemon logs: appended to the open file
            out.write("ragd: indexed note.md\n")
            out.flush()
            os.chmod(log, 0o600)
        note.write_text("# Herons\n")
        # One root, one inotify queue, one thread handing the events on in order: once
        # the note (written after) is queued, every event of the log's writes was handled.
        wait_for(lambda: queue.waiting(queued["note.md"]), 30, "the note queued")
        assert not queue.waiting(queued["ragd.log"]), "a write to the own log queued a sync"
        # Deleted and made again, the name is another file's: synced like any other.
        log.unlink()
        log.write_text("a document now\n")
        wait_for(lambda: queue.waiting(queued["ragd.log"]), 30, "the new file queued")
    finally:
        watcher.stop()
