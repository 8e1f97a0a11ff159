"""Opening the three stores of a data dir together, and the index fingerprint.

The fingerprint names everything that decides what the indexes contain: embedding model
and dimension, chunker version and parameters, window size, schema versions (the lexical
fields, the vectors' metadata) and the HNSW construction settings (fixed when a
collection is created). If it differs from the one stored, the indexes are dropped and
rebuilt from the documents (cached embeddings are reused, nothing is embedded again) by
`IndexWriter.ensure_fingerprint`.
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path

from ragd.core.layout import DataDir
from ragd.core.vector_store import VectorStore
from ragd.index import dense, lexical
from ragd.index.dense import ChromaStore
from ragd.index.dense_store import DenseStore
from ragd.index.lexical import TantivyIndex
from ragd.index.manifest import Manifest
from ragd.index.server_store import ServerStore
from ragd.index.space import DiskGuard

log = logging.getLogger(__name__)

MANIFEST_SCHEMA_VERSION = 1
VECTOR_STORE_KEY = "vector_store"  # manifest meta: the store the manifest last agreed with


def _data_dir_id(manifest: Manifest) -> str:
    """This data dir's own id on a shared server, drawn once (kept under its first use's
    key, the collection prefix): two daemons never collide."""
    prefix = manifest.get_meta("vector_store_prefix")
    if prefix is None:
        prefix = f"ragd-{uuid.uuid4().hex[:12]}"
        manifest.set_meta("vector_store_prefix", prefix)
    return prefix


def fingerprint(model_id: str, dimension: int, max_tokens: int, chunker: str) -> str:
    """`chunker`: the chunker's version and parameters (`ChunkParams.fingerprint()`)."""
    return json.dumps(
        {
            "model": model_id,
            "dimension": dimension,
            "window_tokens": max_tokens,
            "chunker": chunker,
            "manifest_schema": MANIFEST_SCHEMA_VERSION,
            "lexical_schema": lexical.SCHEMA_VERSION,
            # Fixed when the collection is created: a change rebuilds it (ef_search is not).
            "dense_hnsw": dense.HNSW_BUILD,
            "dense_metadata": dense.METADATA_VERSION,
        },
        sort_keys=True,
    )


@dataclass
class Stores:
    manifest: Manifest
    dense: DenseStore  # embedded (ChromaStore) or on a server (ServerStore)
    lexical: TantivyIndex

    @classmethod
    def open(
        cls,
        data_dir: Path,
        manifest: Manifest | None = None,
        where: VectorStore | None = None,
        guard: DiskGuard | None = None,
        dense: DenseStore | None = None,
    ) -> Stores:
        """The stores of a data dir (`manifest`: one opened already). With the daemon's
        `guard`, every write to the data dir waits for disk space first; a vector store
        on a server writes to the server's disk, not ours. `dense`: a stand-in for the
        embedded store (`locked_store.LockedStore`), opened later."""
        data_dir.mkdir(parents=True, exist_ok=True)
        layout = DataDir(data_dir)
        manifest = manifest or Manifest(layout.manifest, guard=guard)
        where = where or VectorStore()
        if not where.embedded:
            # The data dir's own id on servers: its collection's name unless one is
            # configured, and the owner recorded in the collection either way.
            data_dir_id = _data_dir_id(manifest)
            where = where.owned_by(data_dir_id)
            if not where.collection_prefix:
                where = where.with_prefix(data_dir_id)
        folder = layout.vectors
        return cls(
            manifest=manifest,
            dense=dense
            or (
                ChromaStore(folder, where, guard=guard)
                if where.embedded
                else ServerStore(folder, where)
            ),
            lexical=TantivyIndex(layout.lexical, guard=guard),
        )

    def opened_after_lock(self, dense: DenseStore) -> DenseStore:
        """The embedded store, opened once another process let go of it, takes the place
        of its stand-in (`locked_store.LockedStore`): the stores change their own part."""
        self.dense = dense
        return dense

    @property
    def on_server(self) -> bool:
        """Is the vector index on a ChromaDB server (not embedded in the data dir)?"""
        return not self.dense.where.embedded

    def vector_store_changed(self) -> str | None:
        """Why the vector index must be compared id by id: the last start used another
        store. Its vectors may have changed meanwhile with the count unchanged (a file
        edited while the daemon wrote to a server), which the start-up count check misses."""
        last = self.manifest.get_meta(VECTOR_STORE_KEY)
        now = self.dense.where.identity()
        if last is None or last == now:
            return None
        return f"the vector store changed since the last run ({last.split()[0]} → {now.split()[0]})"

    def remember_vector_store(self) -> None:
        """After the vector index was checked against the manifest (no write if unchanged)."""
        if self.manifest.get_meta(VECTOR_STORE_KEY) != (now := self.dense.where.identity()):
            self.manifest.set_meta(VECTOR_STORE_KEY, now)

    def problems(self) -> list[tuple[str, str]]:
        """(store, why it cannot be trusted now) for each store whose writes fail."""
        found = [("lexical index", self.lexical.problem()), ("vector index", self.dense.failure)]
        return [(name, why) for name, why in found if why]
