"""A ChromaDB server store whose connection is replaced under a request in flight.

A search meets a hung server: it drops the connection (closing its sockets) and the
knocking thread reconnects. A second call that was still reading through the old
connection then fails (a read on a closed socket). That failure belongs to handles
nobody uses any more; taken as news about the server, it dropped the fresh connection
and the next searches answered from BM25 (a flaky daemon test found it). Here it is
played out on a real `chroma run`, deterministically: the call itself causes the drop
and waits for the reconnection before it reads through its closed handles.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ragd.core.vector_store import VectorStore
from ragd.index.server_store import ServerStore, VectorStoreUnavailable, _Handles
from tests.support.chroma_server import ChromaServer, served_for_the_module
from tests.support.daemon import wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """One `chroma run` for the module (a start costs ≈ 1.5 CPU s): each test's store is
    a collection of its own on it, and neither test stops or restarts it (the drops and
    reconnections are the store's, on its side of the connection)."""
    yield from served_for_the_module(tmp_path_factory)


def test_a_failure_on_replaced_handles_leaves_the_new_connection_in_force(
    tmp_path: Path, server: ChromaServer
) -> None:
    store = ServerStore(tmp_path / "vectors", VectorStore(url=server.url, collection_prefix="t1"))
    try:
        vectors = np.eye(2, 384, dtype=np.float32)
        store.upsert(["a#0", "b#0"], vectors)
        used: list[_Handles] = []

        def query_while_another_call_reconnects(handles: _Handles) -> list[tuple[str, float]]:
            used.append(handles)
            if len(used) == 1:
                # Another search met a hung server and dropped these handles ...
                store._down(TimeoutError("timed out"))
                # ... and the knocking thread found the server answering again.
                wait_for(lambda: store.unavailable() is None, 30, "the reconnection")
                handles.close()  # what the drop does to them, on its own thread
            return handles.reader.query(vectors[1], 1)

        hits = store._call(query_while_another_call_reconnects)

        assert [wid for wid, _ in hits] == ["b#0"]
        assert len(used) == 2 and used[1] is not used[0], "asked again on the new handles"
        assert store.unavailable() is None, "the old handles' failure did not drop the new"
        assert [wid for wid, _ in store.query(vectors[0], 1)] == ["a#0"]
    finally:
        store.close()


def test_a_store_closed_while_it_reconnects_keeps_no_connection(
    tmp_path: Path, server: ChromaServer
) -> None:
    """The daemon stopped while the knocking thread was connecting again: the connection
    it made was installed after close, and nothing ever closed it; a search still in
    flight at shutdown connected afresh the same way. Here the close lands in the middle
    of the reconnection, on a real `chroma run`."""
    store = ServerStore(tmp_path / "vectors", VectorStore(url=server.url, collection_prefix="t2"))
    made: list[_Handles] = []
    closed: list[_Handles] = []
    make = store._make

    def made_while_the_daemon_stops() -> _Handles:
        handles = make()
        close = handles.close

        def counted_close() -> None:
            closed.append(handles)
            close()

        handles.close = counted_close  # type: ignore[method-assign]
        made.append(handles)
        if len(made) == 1:
            store.close()
        return handles

    store._make = made_while_the_daemon_stops  # type: ignore[method-assign]
    try:
        vector = np.eye(1, 384, dtype=np.float32)[0]
        store.upsert(["a#0"], vector[None, :])
        store._down(TimeoutError("timed out"))  # the knocking thread reconnects
        wait_for(lambda: made, 30, "the reconnection")
        knocking = store._knocking
        if knocking is not None:
            knocking.join(30)
            assert not knocking.is_alive(), "the knocking thread ended with the store"
        with pytest.raises(VectorStoreUnavailable, match="closed"):
            store.query(vector, 1)
        assert len(made) == 1, "nothing connected after close"
        assert closed == made, "the connection made as the store closed was closed"
        assert store._handles is None
    finally:
        store.close()
