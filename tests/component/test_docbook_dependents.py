"""Files read again for what they read beside them, through the writer's own pipeline
(real parse worker, stores and manifest): a file applied whose bytes are new has the
files that wanted its ids queued; one read again with the same bytes holds the same ids
and queues no one, so two files each beyond the other's reach settle."""

from __future__ import annotations

from pathlib import Path

from ragd.core.roots import Roots
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest.assembly import build_indexer
from ragd.ingest.filters import PathFilter
from ragd.ingest.parse_pool import shared_pool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.work_queue import WorkQueue

# A `.docbook` is read whatever its root, but only a DocBook root makes a file a sibling
# another file's references look in: each of these holds the id the other looks for in
# vain.
BOOK = (
    '<manual id="{own}"><title>{title}</title><para>See <xref linkend="{other}"/>.</para></manual>'
)


def test_two_files_that_want_each_others_ids_in_vain_settle(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.docbook").write_text(BOOK.format(own="ida", title="Anchors", other="idb"))
    (root / "b.docbook").write_text(BOOK.format(own="idb", title="Buoys", other="ida"))
    queue = WorkQueue(debounce_s=0)
    indexer = build_indexer(
        IndexWriter(Stores.open(tmp_path / "data"), embedder),
        Planner(embedder, rules=lambda: FileRules(20 << 20)),
        shared_pool(),
        Roots([str(root)]),
        PathFilter(("*.docbook",)),
        queue,
    )
    indexer.sync(str(root), "a.docbook")
    indexer.sync(str(root), "b.docbook")  # new, holding the id a.docbook wants: it is queued
    rounds = []
    while (job := queue.take(timeout=0)) is not None and len(rounds) < 10:
        rounds.append(job.relpath)
        indexer.sync(job.root, job.relpath)  # read again, its bytes as indexed
        queue.done(0, job)
    assert rounds == ["a.docbook"]
