"""`rag stats` while another process holds the vector store's database (locked42): it
said "distance: unknown (vector store unreachable)" and "(0 vectors)", though the store
is reachable and every vector is in it. Now it says what it knows — the manifest's files
and chunks, the BM25 side — and that the vector count is unavailable, and why.

On a real lock (another process's `BEGIN EXCLUSIVE`) and the daemon's real stand-in for
a store locked at start (`LockedStore`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from ragcli.render import stats as render_stats
from ragd.core.config import Settings
from ragd.index.dense_store import DenseStore
from ragd.index.locked_store import LockedStore
from ragd.index.store_lock import LockWatch
from ragd.serve.handlers import vector_facts
from tests.support.lock_holder import Holder


def stats_reply(facts: dict[str, Any]) -> dict[str, Any]:
    return {
        "collection": "ragd_chunks",
        "vector_store": "vector store locked by another process (…)",
        **facts,
        "chunks": 2708,
        "files": [{"source": "notes/a.md", "chunks": 2708}],
        "lexical": {"docs": 2708, "terms": 9000, "tokenizer": "t", "bm25": {"k1": 1.2, "b": 0.75}},
        "embedding": {"model": "m", "dimension": 384, "max_tokens": 256, "precision": "fp32"},
        "chunking": {"target_tokens": 400, "overlap_tokens": 40, "windows": "w"},
        "retrieval": {"candidates": 50, "fusion": "rrf", "top_k": 5, "support_floor": 0.4},
    }


def never_opened() -> DenseStore:
    raise AssertionError("stats must not open a locked store")


def test_a_store_locked_by_another_process_has_its_count_unavailable_not_zero(
    tmp_path: Path,
) -> None:
    database = tmp_path / "chroma.sqlite3"
    sqlite3.connect(database).execute("CREATE TABLE t (x)").connection.commit()
    holder = Holder(database)
    try:
        watch = LockWatch(database)
        pid = watch.holder()
        assert pid is not None
        store = LockedStore(watch, pid, Settings().vector_target, opener=never_opened)
        facts = vector_facts(store)
    finally:
        holder.release()
    assert facts["vectors"] is None and facts["distance"] is None
    assert "locked by another process" in facts["vectors_unavailable"]
    lines = {line[:13].strip(): line[13:] for line in render_stats(stats_reply(facts)).splitlines()}
    assert lines["chunks"].startswith("2708 (as the manifest says; the vector count is unavailable")
    assert "locked by another process" in lines["chunks"]
    assert "0 vectors" not in lines["chunks"] and "unknown" not in lines["collection"]
    assert lines["lexical"].startswith("2708 docs")  # the BM25 side, known all the same


def test_a_readable_store_says_its_count() -> None:
    facts = {"distance": "cosine", "hnsw": {"max_neighbors": 16}, "vectors": 2708}
    lines = {line[:13].strip(): line[13:] for line in render_stats(stats_reply(facts)).splitlines()}
    assert lines["chunks"] == "2708 (2,708 vectors)"
    assert lines["collection"].startswith("ragd_chunks (distance: cosine, HNSW M=16")
