"""The index writer's parts, built from what they need and wired together once.

    FilePlanner   the per-file pipeline (read, hash, parse, chunk, window)
    SlowFiles     the files set aside, stepped between other jobs
    Reconciler    a path brought in line with the disk (sync, scans, removals, forget)
    Indexer       the thread: takes jobs, batches their plans, applies them

The daemon (`engine/loading.py`), the evaluation's in-process index, the bench and the
tests all build the writer this way, so each runs the daemon's own pipeline.
"""

from __future__ import annotations

from collections.abc import Callable

from ragd.core.roots import Roots
from ragd.index.writer import IndexWriter
from ragd.ingest.filters import PathFilter
from ragd.ingest.indexer import Indexer
from ragd.ingest.parse_pool import ParsePool
from ragd.ingest.planner import FilePlanner, Planner
from ragd.ingest.reconcile import Reconciler
from ragd.ingest.slow_files import SlowFiles
from ragd.ingest.work_queue import Job, WorkQueue


def _nothing(*_: object) -> None:
    return None


def _again(queue: WorkQueue, root: str, relpath: str) -> None:
    """A file whose write another process's lock on the manifest stopped, queued again
    (read whatever its stat says: `index/manifest_busy.py`)."""
    queue.rewrites.mark((root, relpath))
    queue.put(Job("sync", root, relpath))


def build_indexer(
    writer: IndexWriter,
    planner: Planner,  # the chunking, the size cap, following symbolic links
    parser: ParsePool,
    roots: Roots,
    path_filter: PathFilter,
    queue: WorkQueue,
    *,
    owns_parser: bool = False,  # closed when the indexer stops (else its owner closes it)
    on_folder_readable: Callable[[str], None] = _nothing,  # the watcher's `refresh`
    between_jobs: Callable[[], None] = _nothing,  # upkeep on the writer thread
) -> Indexer:
    files = FilePlanner(
        planner, parser, writer.stores.manifest, roots, writer.counters, writer.busy.take
    )
    slow = SlowFiles(queue, writer, files)
    reconcile = Reconciler(roots, path_filter, queue, writer, files, slow, on_folder_readable)
    writer.on_applied = reconcile.dependents.applied  # ids a file beside wanted, now held
    writer.busy.requeue = lambda root, relpath: _again(queue, root, relpath)
    return Indexer(queue, writer, files, slow, reconcile, between_jobs, owns_parser)
