"""A vector index sealed at a clean stop is trusted unprobed only while nothing touched it.

Real ChromaDB and SQLite. The seal (ragd.index.vector_seal) is every file's size, inode,
mtime and ctime under `chroma/`, recorded after an fsync at a clean stop and removed before
the store is opened again; anything that differs (bytes written over the graph even with
the mtime set back, a file cut short, an unclean flag, a seal already used) means the
start-up probe runs as before.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import numpy as np
import pytest

from ragd.index import vector_seal
from ragd.index.dense import ChromaStore
from ragd.index.manifest import Manifest

VECTORS = 300


@pytest.fixture
def sealed(tmp_path: Path) -> tuple[Manifest, Path]:
    """A data dir whose vector index was sealed by a clean stop."""
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    store = ChromaStore(tmp_path / "chroma")
    vectors = np.random.default_rng(0).standard_normal((VECTORS, 384)).astype(np.float32)
    store.upsert([f"c{i:04d}#0" for i in range(VECTORS)], vectors)
    store.warm()
    folder = store.sealable_folder()
    assert folder == tmp_path / "chroma"
    vector_seal.seal(manifest, folder)
    manifest.set_meta(vector_seal.CLEAN_KEY, "1")
    return manifest, folder


def graph_file(folder: Path) -> Path:
    return max((p for p in folder.rglob("*.bin")), key=lambda p: p.stat().st_size)


def test_an_untouched_sealed_store_is_trusted_once(sealed: tuple[Manifest, Path]) -> None:
    manifest, folder = sealed
    assert vector_seal.take(manifest, folder)
    # Taken means removed (the store is opened next, which rewrites its files): a crash
    # after this start must not find a seal.
    assert manifest.get_meta(vector_seal.SEAL_KEY) is None
    assert not vector_seal.take(manifest, folder)


def test_bytes_written_over_the_graph_are_seen_even_with_the_mtime_set_back(
    sealed: tuple[Manifest, Path],
) -> None:
    manifest, folder = sealed
    graph = graph_file(folder)
    before = graph.stat()
    rng = random.Random(1)
    with open(graph, "r+b") as f:
        for _ in range(50):
            f.seek(rng.randrange(before.st_size))
            f.write(rng.randbytes(8))
    os.utime(graph, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert graph.stat().st_mtime_ns == before.st_mtime_ns
    assert not vector_seal.take(manifest, folder)


def test_a_cut_file_or_an_unclean_flag_is_not_trusted(
    sealed: tuple[Manifest, Path], tmp_path: Path
) -> None:
    manifest, folder = sealed
    sqlite = folder / "chroma.sqlite3"
    state = vector_seal.files_state(folder)
    os.truncate(sqlite, sqlite.stat().st_size // 2)
    assert not vector_seal.take(manifest, folder)

    manifest.set_meta(vector_seal.SEAL_KEY, state)  # even an exact seal …
    manifest.set_meta(vector_seal.CLEAN_KEY, "0")  # … is void after an unclean stop
    assert not vector_seal.take(manifest, folder)


def test_a_store_whose_write_failed_is_not_sealed(tmp_path: Path) -> None:
    store = ChromaStore(tmp_path / "chroma")
    store.failure = "writing the vector index failed: disk full"
    assert store.sealable_folder() is None
    store.failure, store.wedged = None, "the vector index stopped after a failed write"
    assert store.sealable_folder() is None


def test_taking_a_value_durably_returns_it_and_restores_the_sync_setting(
    sealed: tuple[Manifest, Path],
) -> None:
    manifest, folder = sealed
    assert manifest.take_meta(vector_seal.SEAL_KEY, durable=True) == vector_seal.files_state(folder)
    assert manifest.get_meta(vector_seal.SEAL_KEY) is None
    # Only that commit is synced (FULL): the connection is back to NORMAL (1) afterwards.
    assert manifest._db().execute("PRAGMA synchronous").fetchone()[0] == 1
