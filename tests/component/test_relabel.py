"""`relabel`: a vector's scope metadata changes and the vector does not (a text's holders
came or went: index/shared_vectors.py), through each kind of store the daemon uses — the
embedded store in this process, in its own worker process, and on a `chroma run` server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragd.core.vector_store import VectorStore
from ragd.index.dense import ChromaStore
from ragd.index.dense_store import DenseStore
from ragd.index.server_store import ServerStore
from ragd.index.store_process import StoreProcess
from tests.support.chroma_server import ChromaServer


@pytest.fixture(params=["embedded", "worker process", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DenseStore]:
    server = None
    opened: DenseStore
    if request.param == "embedded":
        opened = ChromaStore(tmp_path / "chroma")
    elif request.param == "worker process":
        opened = StoreProcess(tmp_path / "chroma")
    else:
        server = ChromaServer(tmp_path / "db").start()
        opened = ServerStore(tmp_path / "v", VectorStore(url=server.url, collection_prefix="t"))
    try:
        yield opened
    finally:
        opened.close()
        if server is not None:
            server.stop()


def test_relabel_moves_a_vector_between_scopes_and_skips_ids_it_lacks(store: DenseStore) -> None:
    vectors = np.eye(3, 384, dtype=np.float32)
    store.upsert(["one", "two", "three"], vectors, [["left"], ["left"], ["right"]])
    assert [h for h, _ in store.query(vectors[0], 1, ["left"])] == ["one"]

    store.relabel(["one", "absent"], [["right", "middle"], ["left"]])

    assert [h for h, _ in store.query(vectors[0], 3, ["left"])] == ["two"]
    assert {h for h, _ in store.query(vectors[0], 3, ["middle"])} == {"one"}
    assert {h for h, _ in store.query(vectors[0], 3, ["right"])} == {"one", "three"}
    assert store.all_ids() == {"one", "two", "three"}  # nothing added for "absent"
    again = store.vectors(["one"])["one"]
    assert np.allclose(again, vectors[0], atol=1e-6)  # the vector itself is untouched


def test_a_wide_vector_is_in_every_scope(store: DenseStore) -> None:
    from ragd.index.dense import WIDE

    vectors = np.eye(2, 384, dtype=np.float32)
    store.upsert(["boilerplate", "mine"], vectors, [[WIDE], ["mine"]])
    assert {h for h, _ in store.query(vectors[0], 2, ["anywhere"])} == {"boilerplate"}
    assert {h for h, _ in store.query(vectors[1], 2, ["mine"])} == {"boilerplate", "mine"}
