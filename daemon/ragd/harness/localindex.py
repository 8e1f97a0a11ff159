"""A folder indexed inside this process by the daemon's own writer and retriever.

For the evaluation (`make eval`) and the quality guard in `make test`: the same stores,
chunker, embedder and retriever `ragd serve` uses, without a daemon process or a socket,
so several corpora can be indexed and questioned with one loaded model.
"""

from __future__ import annotations

from pathlib import Path

from ragd.core.config import LiveSettings, Settings
from ragd.core.roots import Roots
from ragd.engine.loading import repair_indexes
from ragd.index.embedder import Embedder
from ragd.index.store import Stores, fingerprint
from ragd.index.writer import IndexWriter
from ragd.ingest.assembly import build_indexer
from ragd.ingest.chunking import ChunkParams
from ragd.ingest.filters import PathFilter
from ragd.ingest.parse_pool import shared_pool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.work_queue import Job, WorkQueue
from ragd.query.retrieval import Retriever


class LocalIndex:
    def __init__(self, folder: Path, data_dir: Path, embedder: Embedder) -> None:
        settings = Settings()
        root = str(folder.absolute())
        self.folder = folder
        self.embedder = embedder
        self.stores = Stores.open(data_dir)
        # A data dir kept from an earlier run is rebuilt if the chunker or model changed.
        writer = IndexWriter(self.stores, embedder)
        params = ChunkParams()
        writer.ensure_fingerprint(
            fingerprint(
                embedder.model_id, embedder.dimension, embedder.max_tokens, params.fingerprint()
            )
        )
        # A run cut short left its last files in both indexes and not in the manifest
        # (it commits last): removed first, as the daemon's start does, so they are added
        # again rather than upserted over (ten times slower in Chroma's HNSW index).
        repair_indexes(writer, embedder, [])
        self.roots = Roots([root])
        self._root = root
        # One folder per data dir: a root the data dir holds from another checkout or
        # path of the same folder (a symlinked bench/out) would otherwise be searched too,
        # and every passage would come back twice.
        for other in self.stores.manifest.counts_by_root().keys() - {root}:
            writer.forget_root(other, lambda relpath, chunks: None)
        self._queue = WorkQueue(debounce_s=0.0)
        self._indexer = build_indexer(
            writer,
            Planner(embedder, params, lambda: FileRules.from_settings(settings)),
            shared_pool(),  # one set of parse workers for every corpus of a run
            self.roots,
            PathFilter(settings.include, settings.exclude, data_dir),
            self._queue,
        )
        self.reindex()
        self.retriever = Retriever(self.stores, embedder, self.roots, LiveSettings(settings))

    def reindex(self) -> None:
        """Bring the index in line with the folder, as the daemon's writer would."""
        self._queue.put(Job("sync", self._root, ""), debounce=False)
        while (job := self._queue.take(timeout=0)) is not None:  # a scan queues its files
            try:
                self._indexer.sync(job.root, job.relpath)
            finally:
                self._queue.done()

    def chunk_count(self) -> int:
        return self.stores.manifest.counts()[1]

    def close(self) -> None:
        self.stores.lexical.close()
        self.stores.manifest.close()
