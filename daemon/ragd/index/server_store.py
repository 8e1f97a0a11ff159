"""The dense index on a ChromaDB server that may come and go.

A server can be down when the daemon starts, or be killed in the middle of an ingest.
Neither may cost a traceback or an inconsistent index:

- reads (a search's vector query, fetching vectors) fail at once with
  VectorStoreUnavailable, so the caller answers from BM25 and says so;
- writes (upsert, delete, reset) wait and retry until the server answers again, so the
  index writer simply pauses — files keep queueing — and every write it made is applied
  exactly as it would have been (ChromaDB's upsert and delete are idempotent);
- `unreachable` says why, for `rag status`, until a call succeeds again.

Reconnecting needs nothing special: HTTP is stateless and the collection keeps its id.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ragd.index.dense import ChromaStore, DenseIndexError
from ragd.index.vector_store import VectorStore

log = logging.getLogger(__name__)

RETRY_S = 1.0  # a blocked write tries again this often
T = TypeVar("T")


class VectorStoreUnavailable(DenseIndexError):
    """The vector store cannot be reached now; `str()` says where and why."""


def _network_errors() -> tuple[type[BaseException], ...]:
    import httpx

    # chromadb raises ValueError("Could not connect to a Chroma server") when the client
    # is created against a dead server; after that, httpx's own errors come through.
    return (httpx.TransportError, ValueError)


class ServerStore:
    def __init__(self, path: Path, where: VectorStore) -> None:
        self.where = where
        self.name = where.collection
        self._path = path
        self._inner: ChromaStore | None = None
        self._reset_pending = False
        self._lock = threading.Lock()
        self.unreachable: str | None = None
        self.guard: Any = None  # the data dir's DiskGuard (the server's disk is its own)
        self.wedged: str | None = None  # never: a server cannot wedge this process
        self.give_up = threading.Event()  # set at shutdown: blocked writes stop waiting
        # Down now: reported by `unreachable`; the daemon starts without vectors.
        with contextlib.suppress(VectorStoreUnavailable):
            self._connected()

    # -- connection ----------------------------------------------------------------
    def _connected(self) -> ChromaStore:
        with self._lock:
            try:
                if self._inner is None:
                    self._inner = ChromaStore(self._path, self.where)
                if self._reset_pending:
                    self._inner.reset()
                    self._reset_pending = False
            except _network_errors() as exc:
                raise self._down(exc) from None
            return self._inner

    def _down(self, exc: BaseException) -> VectorStoreUnavailable:
        reason = f"{self.where.url}: {exc}"
        if self.unreachable is None:
            log.warning("vector store unreachable (%s); searches use BM25 only", reason)
        self.unreachable = reason
        return VectorStoreUnavailable(reason)

    def _up(self) -> None:
        if self.unreachable is not None:
            log.info("vector store %s reachable again", self.where.url)
            self.unreachable = None

    def _read(self, op: Callable[[ChromaStore], T]) -> T:
        store = self._connected()
        try:
            result = op(store)
        except _network_errors() as exc:
            raise self._down(exc) from None
        self._up()
        return result

    def _write(self, op: Callable[[ChromaStore], T]) -> T:
        while True:
            try:
                return self._read(op)
            except VectorStoreUnavailable:
                if self.give_up.wait(RETRY_S):
                    raise

    def wait_until_reachable(self, stop: Callable[[], bool]) -> bool:
        """Block until the server answers (True) or `stop()` turns true (False)."""
        while not stop():
            try:
                self._read(lambda s: s.count())
                return True
            except VectorStoreUnavailable:
                self.give_up.wait(RETRY_S)
        return False

    @property
    def failure(self) -> str | None:
        """Why the vector store cannot be trusted now (Stores.problems)."""
        if self.unreachable:
            return f"vector store unreachable: {self.unreachable}"
        return self._inner.failure if self._inner is not None else None

    # -- the ChromaStore interface ---------------------------------------------------
    def space(self) -> str:
        return self._read(lambda s: s.space())

    def hnsw_settings(self) -> dict[str, Any]:
        return self._read(lambda s: s.hnsw_settings())

    def count(self) -> int:
        return self._read(lambda s: s.count())

    def all_ids(self) -> set[str]:
        return self._read(lambda s: s.all_ids())

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._read(lambda s: s.vectors(ids))

    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]:
        return self._read(lambda s: s.query(vector, n, scope))

    def sample(self, size: int) -> dict[str, np.ndarray]:
        return self._read(lambda s: s.sample(size))

    def unfindable(self, vectors: dict[str, np.ndarray]) -> int:
        return self._read(lambda s: s.unfindable(vectors))

    def warm(self) -> None:
        with contextlib.suppress(VectorStoreUnavailable):
            self._read(lambda s: s.warm())

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None:
        self._write(lambda s: s.upsert(ids, vectors, scopes))

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        self._write(lambda s: s.delete(ids))

    def reset(self) -> None:
        """Drop the collection now, or as the first thing once the server is back."""
        if self._inner is None:
            self._reset_pending = True
            return
        self._write(lambda s: s.reset())

    def close(self) -> None:
        self.give_up.set()
        if self._inner is not None:
            self._inner.close()
