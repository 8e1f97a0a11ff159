"""The embedded vector store while another process held its database at start-up.

A module of its own, apart from `store_lock.LockWatch`: the embedded store (dense.py)
uses the watch, and this stand-in answers as the server store does when it is down
(`VectorStoreUnavailable`), so keeping both in one module made an import circle.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragd.index.server_store import VectorStoreUnavailable
from ragd.index.store_lock import LockWatch

if TYPE_CHECKING:
    import numpy as np

    from ragd.core.vector_store import VectorStore
    from ragd.index.dense_store import DenseStore


class LockedStore:
    """The embedded store while another process held its database at start-up: nothing
    of it is opened (opening would freeze the daemon), reads fail at once so searches
    answer from BM25, and `wait_until_available` waits for the lock to go; the daemon
    then calls `open()` (the usual seal check or probe, then ChromaDB) and uses it."""

    failure: str | None = None

    def __init__(
        self, watch: LockWatch, pid: int, where: VectorStore, opener: Callable[[], DenseStore]
    ) -> None:
        self.where = where
        self.name = where.collection
        self._watch = watch
        self._phrase: str | None = watch.phrase(pid)
        self._opener = opener
        self._give_up = threading.Event()

    def _said(self, phrase: str | None) -> None:
        self._phrase = phrase

    def open(self) -> DenseStore:
        return self._opener()

    def _busy(self) -> VectorStoreUnavailable:
        # What a search and `rag stats` already take for "no vectors now".
        return VectorStoreUnavailable(self._phrase or "the vector store is being opened")

    # -- the DenseStore state questions -----------------------------------------------
    def unavailable(self) -> str | None:
        return self._phrase or "the vector store is being opened"

    def stop_waiting(self) -> None:
        self._give_up.set()

    def wait_until_available(self, stop: Callable[[], bool]) -> bool:
        return self._watch.wait(self._give_up, self._said) and not stop()

    def take_refill(self) -> bool:
        return False

    def recount(self) -> None:
        """Nothing is counted until it is opened."""

    def sealable_folder(self) -> Path | None:
        return None  # never opened: the seal (if any) is still in place

    # -- reading and writing: nothing until it is opened ----------------------------
    def space(self) -> str:
        raise self._busy()

    def hnsw_settings(self) -> dict[str, Any]:
        raise self._busy()

    def count(self) -> int:
        return 0

    def all_ids(self) -> set[str]:
        raise self._busy()

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        raise self._busy()

    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]:
        raise self._busy()

    def query_many(
        self, vectors: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[list[tuple[str, float]]]:
        raise self._busy()

    def sample(self, size: int) -> dict[str, np.ndarray]:
        raise self._busy()

    def unfindable(self, vectors: dict[str, np.ndarray]) -> int:
        raise self._busy()

    def warm(self) -> None:
        """Warmed once opened."""

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None:
        raise self._busy()

    def relabel(self, ids: Sequence[str], scopes: Sequence[list[str]]) -> list[str]:
        raise self._busy()

    def scopes(self, ids: Sequence[str]) -> dict[str, list[str]]:
        raise self._busy()

    def delete(self, ids: Iterable[str]) -> None:
        raise self._busy()

    def reset(self) -> None:
        raise self._busy()

    def close(self) -> None:
        """Nothing was opened."""
