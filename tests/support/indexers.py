"""The index writer's own pipeline over one folder, for component tests: real stores,
planner, parse worker and queue, built as the daemon builds them (ingest/assembly.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragd.core.roots import Roots
from ragd.index.space import DiskGuard
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest.assembly import build_indexer
from ragd.ingest.filters import PathFilter
from ragd.ingest.indexer import Indexer
from ragd.ingest.parse_pool import shared_pool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.work_queue import WorkQueue


def folder_indexer(
    data: Path,
    embedder: Any,
    root: Path,
    queue: WorkQueue,
    include: str = "*.md",
    guard: DiskGuard | None = None,
) -> Indexer:
    """An indexer (not started) of `root`, files matching `include`, stores under `data`
    (with `guard`, the daemon's: every write waits for disk space first)."""
    return build_indexer(
        IndexWriter(Stores.open(data, guard=guard), embedder),
        Planner(embedder, rules=lambda: FileRules(20 << 20)),
        shared_pool(),
        Roots([str(root)]),
        PathFilter((include,)),
        queue,
    )
