"""`relabel`: a vector's scope metadata changes and the vector does not (a text's holders
came or went: index/shared_vectors.py), through each kind of store the daemon uses — the
embedded store in this process, in its own worker process, and on a `chroma run` server."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragd.core.vector_store import VectorStore
from ragd.index.dense import ChromaStore
from ragd.index.dense_store import DenseStore
from ragd.index.server_store import ServerStore
from ragd.index.store_process import StoreProcess
from tests.support.chroma_server import ChromaServer, served_for_the_module


@pytest.fixture(scope="module")
def module_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One `chroma run` for the module's server cases: each test's store is a collection
    of its own on it (`collection_prefix`), which no test stops, restarts or reaches past."""
    yield from served_for_the_module(tmp_path_factory)


_COLLECTIONS = itertools.count()


@pytest.fixture(params=["embedded", "worker process", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DenseStore]:
    opened: DenseStore
    if request.param == "embedded":
        opened = ChromaStore(tmp_path / "chroma")
    elif request.param == "worker process":
        opened = StoreProcess(tmp_path / "chroma")
    else:
        server: ChromaServer = request.getfixturevalue("module_server")
        prefix = f"t{next(_COLLECTIONS)}"
        assert f"{prefix}-chunks" not in server.collections()  # a collection of its own
        opened = ServerStore(tmp_path / "v", VectorStore(url=server.url, collection_prefix=prefix))
    try:
        yield opened
    finally:
        opened.close()


def test_relabel_moves_a_vector_between_scopes_and_skips_ids_it_lacks(store: DenseStore) -> None:
    vectors = np.eye(3, 384, dtype=np.float32)
    store.upsert(["one", "two", "three"], vectors, [["left"], ["left"], ["right"]])
    assert [h for h, _ in store.query(vectors[0], 1, ["left"])] == ["one"]

    store.relabel(["one", "absent"], [["right", "middle"], ["left"]])

    assert [h for h, _ in store.query(vectors[0], 3, ["left"])] == ["two"]
    assert {h for h, _ in store.query(vectors[0], 3, ["middle"])} == {"one"}
    assert {h for h, _ in store.query(vectors[0], 3, ["right"])} == {"one", "three"}
    assert store.all_ids() == {"one", "two", "three"}  # nothing added for "absent"
    # Read back as stored (the writer compares them after a server was put back: attack51)
    scopes = store.scopes(["one", "three", "absent"])
    assert {h: sorted(keys) for h, keys in scopes.items()} == {
        "one": ["middle", "right"],
        "three": ["right"],
    }
    again = store.vectors(["one"])["one"]
    assert np.allclose(again, vectors[0], atol=1e-6)  # the vector itself is untouched


def test_a_wide_vector_is_in_every_scope(store: DenseStore) -> None:
    from ragd.index.dense import WIDE

    vectors = np.eye(2, 384, dtype=np.float32)
    store.upsert(["boilerplate", "mine"], vectors, [[WIDE], ["mine"]])
    assert {h for h, _ in store.query(vectors[0], 2, ["anywhere"])} == {"boilerplate"}
    assert {h for h, _ in store.query(vectors[1], 2, ["mine"])} == {"boilerplate", "mine"}


def test_relabel_takes_more_ids_than_one_chroma_call_does(store: DenseStore) -> None:
    """A folder of large files renamed relabels tens of thousands of texts at once: one
    look-up of 33,000 ids passed SQLite's variable limit inside ChromaDB and wedged the
    store. Relabel works a slice at a time; here more ids than one slice holds."""
    from ragd.index.dense import MAX_BATCH

    count = MAX_BATCH + 500
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((count, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [f"t{i}" for i in range(count)]
    store.upsert(ids, vectors, [["old"]] * count)
    absent = store.relabel([*ids, "gone"], [["new"]] * (count + 1))
    assert absent == ["gone"]
    assert [h for h, _ in store.query(vectors[-1], 1, ["new"])] == [ids[-1]]
    assert store.query(vectors[-1], 1, ["old"]) == []


def test_wide_vectors_nearer_the_question_do_not_crowd_out_the_scope(store: DenseStore) -> None:
    """300 wide texts (scoped `*`, held in too many files to list) nearer the question than
    any of the scope's own: asked in one query, they took every place and a `--in`
    search got no vector in scope. The scope's own are asked for apart."""
    from ragd.index.dense import WIDE

    rng = np.random.default_rng(5)
    question = rng.standard_normal(384).astype(np.float32)
    question /= np.linalg.norm(question)
    near = question + 0.3 * rng.standard_normal((300, 384)).astype(np.float32)
    far = question + 1.5 * rng.standard_normal((150, 384)).astype(np.float32)
    both = np.vstack([near, far])
    both /= np.linalg.norm(both, axis=1, keepdims=True)
    ids = [f"wide{i}" for i in range(300)] + [f"mine{i}" for i in range(150)]
    store.upsert(ids, both, [[WIDE]] * 300 + [["mine"]] * 150)
    (hits,) = store.query_many(question.reshape(1, -1), 60, ["mine"])
    assert sum(h.startswith("mine") for h, _ in hits) == 60  # the scope's best 60, all
    assert sum(h.startswith("wide") for h, _ in hits) == 60  # and the best wide ones
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
