"""What every vector store answers: the one interface the daemon's other parts use.

It is implemented by `ChromaStore` (ChromaDB embedded in the data dir, in this process:
ragd/index/dense.py), `StoreProcess` (the same, run in a worker process: the daemon's
embedded store, ragd/index/store_process.py), `ServerStore` (a ChromaDB server,
ragd/index/server_store.py) and `LockedStore` (a stand-in while another process holds
the embedded store at start-up, ragd/index/locked_store.py). The lifecycle, the
health report and loading ask the store about its state through `unavailable`,
`stop_waiting`, `wait_until_available` and `take_refill` instead of
knowing which kind they hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ragd.core.vector_store import VectorStore


class DenseStore(Protocol):
    where: VectorStore
    name: str

    @property
    def failure(self) -> str | None:
        """Why the store cannot be trusted now (`Stores.problems`), else None."""

    # -- its state, asked by the lifecycle and the health report -------------------
    def unavailable(self) -> str | None:
        """Why it cannot be used at all now (a server down: the `status` phrase)."""

    def stop_waiting(self) -> None:
        """Shutdown: every wait for the store (a write, reconnecting) gives up."""

    def wait_until_available(self, stop: Callable[[], bool]) -> bool:
        """Block until it can be used (True) or `stop()` turns true (False)."""

    def take_refill(self) -> bool:
        """True once after it came back: the writer compares it with the manifest."""

    def recount(self) -> None:
        """Ask the store its size again: `count` is the size as this daemon last wrote
        or read it, and a server's may have changed under the daemon."""

    def sealable_folder(self) -> Path | None:
        """At a clean stop: the folder to seal (ragd.index.vector_seal), when it is in the
        data dir and no write to it failed in this run; else None."""

    # -- reading and writing -------------------------------------------------------
    def space(self) -> str: ...
    def hnsw_settings(self) -> dict[str, Any]: ...
    def count(self) -> int: ...
    def all_ids(self) -> set[str]: ...
    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]: ...
    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]: ...
    def query_many(
        self, vectors: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[list[tuple[str, float]]]: ...
    def sample(self, size: int) -> dict[str, np.ndarray]: ...
    def unfindable(self, vectors: dict[str, np.ndarray]) -> int: ...
    def warm(self) -> None: ...
    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None: ...
    def relabel(self, ids: Sequence[str], scopes: Sequence[list[str]]) -> list[str]:
        """New scope metadata for these vectors; returns the ids it lacks."""

    def scopes(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """The scope metadata these vectors hold (the writer's read: not a search's)."""

    def delete(self, ids: Iterable[str]) -> None: ...
    def reset(self) -> None: ...
    def close(self) -> None: ...
