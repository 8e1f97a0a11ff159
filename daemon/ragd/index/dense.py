"""The dense index: ChromaDB (persistent, cosine), one vector per distinct window text.

ragd computes every embedding itself; Chroma stores and searches them. A vector's id is
its window's text hash, and the manifest says which chunks hold that text, so a chunk's
score is its best window's cosine without any `where` filter on the query path (a filter
is costly at 100k vectors: docs/performance.md). One vector per text, not per window:
identical vectors trap HNSW's graph (ragd/index/shared_vectors.py). Each vector's
metadata holds the scope keys of the files holding its text (`chunk_paths.scope_keys`:
root, folders, file; or their folders' keys, or the wildcard WIDE: `shared_vectors.scope_of`);
only a `--in` search filters on them, inside the HNSW search, so it returns the best
vectors in scope.

HNSW: ChromaDB's defaults (max_neighbors 16, ef_construction 100, ef_search 100) gave
recall@10 0.943 against exact cosine at 100k vectors (bench/scale.py). The graph is built
with max_neighbors 32 / ef_construction 200 — fixed when the collection is created, so
they are part of the index fingerprint and a change rebuilds — and searched with
ef_search 256: recall@10 0.976 for well under a millisecond more per query in-process
(docs/performance.md). ef_search is only
a search-time breadth, so it is applied to an existing collection on open (Chroma reads
it when the collection is loaded) instead of forcing a rebuild.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragd.core.deadline import Late, within
from ragd.core.layout import VECTOR_DATABASE
from ragd.core.vector_store import HTTP_TIMEOUT_S, VectorStore, connect
from ragd.index.embedder import DIMENSION
from ragd.index.space import DiskGuard
from ragd.index.store_lock import LockWatch

log = logging.getLogger(__name__)

COLLECTION = "ragd-chunks"  # embedded; on a server: VectorStore.collection
# Fixed at creation (in the index fingerprint): changing one rebuilds the collection.
HNSW_BUILD = {"space": "cosine", "ef_construction": 200, "max_neighbors": 32}
EF_SEARCH = 256  # applied on open; no rebuild needed
HNSW = {**HNSW_BUILD, "ef_search": EF_SEARCH}
MAX_BATCH = 4000  # Chroma refuses batches above ≈ 5,461
# What the vectors are (in the index fingerprint): 1 = one per window, id "<chunk>#<n>",
# {"scope": [its file's keys]}; 2 = one per distinct window text, id its hash,
# {"scope": [its files' keys] or ["*"]}.
METADATA_VERSION = 2
# How long a search waits for the embedded store's answer. Its database locked by another
# process (`BEGIN EXCLUSIVE` in `sqlite3 chroma.sqlite3`, a backup tool) held every search
# until the lock went (`rag search`: "ragd did not answer within 30 s"); past this the
# search answers from BM25, as when the store is wedged.
QUERY_WAIT_S = 5.0
SCOPE_FIELD = "scope"
WIDE = "*"  # the scope of a text held in too many places to list (shared_vectors.py)
# What stands for the files directly in a folder, in the scope of a text whose files' own
# keys were too many to list (shared_vectors.scope_of): a file scope asks for it too.
IN_FOLDER = "/*"


class DenseIndexError(RuntimeError):
    pass


def scope_filter(scope: list[str]) -> dict[str, Any]:
    """The `where` clause: the vector's scope keys hold one of `scope` (the wide texts,
    scoped WIDE, are asked for apart: `ChromaStore.query_many`)."""
    tests: list[dict[str, Any]] = [{SCOPE_FIELD: {"$contains": key}} for key in scope]
    return tests[0] if len(tests) == 1 else {"$or": tests}


# Which data dir a collection on a server holds the vectors of (its metadata). Two data
# dirs given the same `?collection=` would each take the other's vectors for orphans of
# its own manifest and delete them, at start-up and at every size check
# (`engine/loading.py`'s audit): the second one is refused the collection instead.
OWNER_KEY = "ragd_data_dir"
# Every vector ragd stores is named by a hex digest (its window text's SHA-256 now,
# ingest/planner.py; a chunk's 32-digit id in older versions): an unclaimed collection
# is adopted only if the first ADOPT_LOOK ids it lists are such.
ADOPT_LOOK = 100
_HEX = frozenset("0123456789abcdef")


class StoreBusy(DenseIndexError):
    """The embedded store did not answer a read within QUERY_WAIT_S (its database locked
    by another process), or one is still stuck: the caller uses what it has without it;
    `str()` says so for a search's note."""


class ReadFailed(DenseIndexError):
    """A read of the embedded store for a search raised (ChromaDB's `InternalError: Error
    finding id` was seen once during a search beside a delete): the search answers from
    BM25 and says why instead of failing; `str()` says so for a search's note."""


def _clipped(exc: BaseException, most: int = 200) -> str:
    text = " ".join(str(exc).split())  # one line
    return text if len(text) <= most else text[:most] + "…"


def judge_write_failure(
    exc: BaseException, kind: str, guard: DiskGuard | None
) -> tuple[str, str | None, str]:
    """A failed write, judged: (the store's `failure`, why it is wedged or None, what
    `needs_reopen` then says). `kind`: the class name of what ChromaDB raised (the
    store's own process sends it as text: index/store_process.py). An InternalError
    comes from the native code, which may hold a lock after it (module docstring of
    ChromaStore): no further ChromaDB call in that process (the daemon's store process
    is killed and started again)."""
    failure = f"writing the vector index failed: {exc}"
    native = kind == "InternalError"
    space = guard.failed(exc, maybe_space=native) if guard is not None else None
    if not native:
        return failure, None, ""
    wedged = f"the vector index stopped after a failed write ({exc}); a fresh process reopens it"
    # What the restart says: the disk only when the guard took it for that (a data dir
    # moved under the daemon had been called "space is back").
    wedged_by = (
        f"its last write failed for lack of space ({space})"
        if space
        else f"its last write failed ({kind}: {_clipped(exc)})"
    )
    return wedged, wedged, wedged_by


class CollectionTaken(DenseIndexError):
    """The collection holds another data dir's vectors."""


def _check_owner(collection: Any, where: VectorStore) -> None:
    """Refuse a collection another data dir owns; adopt one no data dir has claimed (made
    by a ragd from before owners were recorded, or by hand)."""
    metadata = dict(collection.metadata or {})
    holder = metadata.get(OWNER_KEY)
    if holder == where.owner:
        return
    if holder is None:
        strangers = _not_ragds(collection)
        if strangers:  # another program's: adopting it deleted them all as orphans
            raise CollectionTaken(
                f"collection {where.collection} holds vectors ragd did not write (ids "
                f"like {strangers[0][:40]!r}), and adopting it would delete them: give "
                f"this data dir its own ?collection=NAME, or delete that collection if "
                f"nothing uses it"
            )
        collection.modify(metadata={**metadata, OWNER_KEY: where.owner})
        return
    raise CollectionTaken(
        f"collection {where.collection} holds the vectors of another ragd data dir "
        f"({holder}; this one is {where.owner}), and sharing it would delete them: give "
        f"this data dir its own ?collection=NAME, or delete that collection if its data "
        f"dir is gone"
    )


def _not_ragds(collection: Any) -> list[str]:
    """Ids among the first ADOPT_LOOK that ragd would never have written (one bounded
    read: a collection an older ragd filled is adopted at any size)."""
    listed = collection.get(limit=ADOPT_LOOK, include=[])["ids"]
    return [i for i in listed if not (32 <= len(i) <= 64 and _HEX.issuperset(i))]


class ChromaStore:
    """`failure` holds why the last write failed (None once one succeeds again).

    A write that fails inside ChromaDB's native code (a full disk) can leave it holding a
    lock, so that the next call blocks forever with the GIL held and the whole process
    freezes. After such a failure the store is `wedged`: it makes no further ChromaDB
    call (writes raise, searches find nothing, so hybrid search answers from BM25); only
    a fresh process opens it again (the daemon's store process is killed and started
    again: index/store_process.py).
    """

    def __init__(
        self,
        path: Path,
        where: VectorStore | None = None,
        timeout_s: float = HTTP_TIMEOUT_S,
        guard: DiskGuard | None = None,  # the daemon's: each write waits for disk space
    ) -> None:
        self.where = where or VectorStore()
        self._timeout_s = timeout_s  # per request, on a server
        self.name = self.where.collection
        if self.where.embedded:
            path.mkdir(parents=True, exist_ok=True)
        self._path = path
        self.failure: str | None = None
        self.wedged: str | None = None
        self._wedged_by = "its last write failed"  # which failure wedged it (needs_reopen)
        self.guard = guard
        # Another process's lock on the database: a write waits for it here, in Python,
        # not in ChromaDB's native code with the GIL held (which froze the whole daemon).
        self._other = LockWatch(path / VECTOR_DATABASE) if self.where.embedded else None
        self._give_up = threading.Event()  # shutdown: a waiting write gives up
        self._client = self._connect()
        try:
            self._collection = self._open_collection()
            if self.hnsw_settings().get("ef_search") != EF_SEARCH:
                self._apply_ef_search()
            space = self.space()
            if space != "cosine":
                raise DenseIndexError(
                    f"collection {self.name!r} uses distance {space!r}, expected cosine"
                )
            self._count = self._collection.count()
        except BaseException:
            self.close()  # a server that went away mid-open: no session is left behind
            raise
        self._lock = threading.Lock()
        self._stuck = 0  # reads past QUERY_WAIT_S that have not come back yet
        self._stuck_lock = threading.Lock()

    def _connect(self) -> Any:
        return connect(self.where, self._path, self._timeout_s)

    def _apply_ef_search(self) -> None:
        """Set the search breadth of an existing collection; it takes effect on reopening."""
        from chromadb.api.client import SharedSystemClient

        log.info("setting the vector index's ef_search to %d", EF_SEARCH)
        configuration: Any = {"hnsw": {"ef_search": EF_SEARCH}}
        self._collection.modify(configuration=configuration)
        if not self.where.embedded:  # the server reopens it; our handle just re-reads
            self._collection = self._open_collection()
            return
        # Drop this path's cached system (only ours) so the next client reopens the collection.
        old = SharedSystemClient._identifier_to_system.pop(self._client._identifier, None)
        SharedSystemClient._identifier_to_refcount.pop(self._client._identifier, None)
        if old is not None:
            try:
                old.stop()
            except Exception as exc:
                log.debug("stopping the old chroma system: %s", exc)
        self._client = self._connect()
        self._collection = self._open_collection()

    def _open_collection(self) -> Any:
        # HNSW parameters only take effect when the collection is created, and so does
        # the metadata (an existing collection keeps its own: ChromaDB ignores ours).
        configuration: Any = {"hnsw": dict(HNSW)}
        owner = self.where.owner
        collection = self._client.get_or_create_collection(
            self.name,
            configuration=configuration,
            metadata={OWNER_KEY: owner} if owner else None,
            embedding_function=None,
        )
        if owner:
            _check_owner(collection, self.where)
        return collection

    def space(self) -> str:
        config: dict[str, Any] = self._collection.configuration_json or {}
        return str((config.get("hnsw") or {}).get("space"))

    def hnsw_settings(self) -> dict[str, Any]:
        config: dict[str, Any] = self._collection.configuration_json or {}
        return dict(config.get("hnsw") or {})

    def count(self) -> int:
        return self._count

    def reopen(self) -> None:
        """Open the collection by name again: another handle on the same server dropped
        and recreated it (`reset`), so the id this handle holds names nothing now."""
        self._collection = self._open_collection()
        self._count = self._collection.count()

    def assume_count(self, count: int) -> None:
        """Another handle on the same server collection changed its size (ServerStore
        reads and writes through two clients with different timeouts)."""
        self._count = count

    # -- the DenseStore state questions (an embedded store is never "down") ---------
    def unavailable(self) -> str | None:
        """While another process holds a write lock on the database (a write waits)."""
        return self._other.problem() if self._other is not None else None

    def needs_reopen(self) -> str | None:
        return self._wedged_by if self.wedged is not None else None

    def stop_waiting(self) -> None:
        self._give_up.set()

    def wait_until_available(self, stop: Callable[[], bool]) -> bool:
        if self._other is not None and not self._other.wait_to_write(self._give_up):
            return False
        return not stop()

    def take_refill(self) -> bool:
        return False

    def recount(self) -> None:
        self._refresh_count()

    def sealable_folder(self) -> Path | None:
        # `failure` is cleared by a later write that succeeds, `wedged` never: a native
        # failure (the one that can leave files half-written) keeps the store unsealed.
        if self.where.embedded and self.failure is None and self.wedged is None:
            return self._path
        return None

    def _before_write(self) -> None:
        if self.wedged:
            raise DenseIndexError(self.wedged)
        if self.guard is not None:
            self.guard.wait_for_room()
        if self._other is not None and not self._other.wait_to_write(self._give_up):
            raise DenseIndexError("stopped waiting for another process's lock on the vector index")

    def _write_failed(self, exc: Exception) -> None:
        self.failure, wedged, wedged_by = judge_write_failure(exc, type(exc).__name__, self.guard)
        if wedged is not None:
            log.error("%s", wedged)
            self.wedged, self.failure, self._wedged_by = wedged, wedged, wedged_by

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None:
        """`scopes`: each vector's scope keys (stored as its metadata), in `ids` order."""
        self._before_write()
        try:
            for start in range(0, len(ids), MAX_BATCH):
                end = start + MAX_BATCH
                metadatas: Any = (
                    None if scopes is None else [{SCOPE_FIELD: k} for k in scopes[start:end]]
                )
                self._collection.upsert(
                    ids=list(ids[start:end]), embeddings=vectors[start:end], metadatas=metadatas
                )
            self._refresh_count()
        except Exception as exc:
            self._write_failed(exc)
            raise
        self.failure = None

    def relabel(self, ids: Sequence[str], scopes: Sequence[list[str]]) -> list[str]:
        """Give these vectors new scope metadata (their text's holders changed); the
        vectors stay as they are. Returns the ids the store lacks (skipped: the caller
        adds them with their vectors, or start-up repair puts them back)."""
        if not ids:
            return []
        self._before_write()
        absent: list[str] = []
        try:
            # A slice at a time, the look-up too: one `get` of 33,000 ids passed SQLite's
            # variable limit inside ChromaDB (a folder of large files renamed).
            for start in range(0, len(ids), MAX_BATCH):
                part = list(ids[start : start + MAX_BATCH])
                present = set(self._collection.get(ids=part, include=[])["ids"])
                labels = scopes[start : start + MAX_BATCH]
                kept = [(i, s) for i, s in zip(part, labels, strict=True) if i in present]
                absent.extend(i for i in part if i not in present)
                if kept:
                    metadatas: Any = [{SCOPE_FIELD: s} for _, s in kept]
                    self._collection.update(ids=[i for i, _ in kept], metadatas=metadatas)
        except Exception as exc:
            self._write_failed(exc)
            raise
        self.failure = None
        return absent

    def scopes(self, ids: Sequence[str]) -> dict[str, list[str]]:
        """Each of these vectors' scope keys, as stored (ids the store lacks are absent)."""
        if self.wedged:
            raise DenseIndexError(self.wedged)
        out: dict[str, list[str]] = {}
        for start in range(0, len(ids), MAX_BATCH):  # (SQLite's variable limit)
            got = self._collection.get(
                ids=list(ids[start : start + MAX_BATCH]), include=["metadatas"]
            )
            metadatas: Any = got["metadatas"] or [None] * len(got["ids"])
            for i, metadata in zip(got["ids"], metadatas, strict=True):
                out[i] = list((metadata or {}).get(SCOPE_FIELD) or [])
        return out

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        if not ids:
            return
        self._before_write()
        try:
            for start in range(0, len(ids), MAX_BATCH):
                self._collection.delete(ids=ids[start : start + MAX_BATCH])
            self._refresh_count()
        except Exception as exc:
            self._write_failed(exc)
            raise

    def _refresh_count(self) -> None:
        self._count = self._collection.count()

    def all_ids(self) -> set[str]:
        return self._ids(lambda ask: ask())

    def _ids(self, read: Callable[[Callable[[], Any]], Any]) -> set[str]:
        """Every id, a page at a time, each page read through `read`."""
        if self.wedged:
            raise DenseIndexError(self.wedged)
        ids: set[str] = set()
        offset = 0
        while True:
            get = functools.partial(self._collection.get, include=[], limit=10000, offset=offset)
            page = read(get)["ids"]
            ids.update(page)
            if len(page) < 10000:
                return ids
            offset += len(page)

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        if self.wedged:
            raise DenseIndexError(self.wedged)
        unique = list(dict.fromkeys(ids))  # windows that share a text share its vector
        out: dict[str, np.ndarray] = {}
        for start in range(0, len(unique), MAX_BATCH):  # (SQLite's variable limit)
            ask = functools.partial(
                self._collection.get, ids=unique[start : start + MAX_BATCH], include=["embeddings"]
            )
            got = self._bounded(ask)
            embeddings: Any = got["embeddings"]
            out.update(
                (i, np.asarray(v, dtype=np.float32))
                for i, v in zip(got["ids"], embeddings, strict=True)
            )
        return out

    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]:
        """Best window texts as (text hash, cosine similarity), most similar first; with
        `scope` (keys) only texts held in one of those scopes, and the wide ones."""
        return self.query_many(vector.reshape(1, -1), n, scope)[0]

    def query_many(
        self, vectors: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[list[tuple[str, float]]]:
        """`query` for each row of `vectors`, in one call to the index (a row's hits are
        the ones it gets alone: the same graph walk, batched to save the per-call cost)."""
        n = min(n, self._count)
        none: list[list[tuple[str, float]]] = [[] for _ in range(len(vectors))]
        if n <= 0 or self.wedged or scope == [] or not len(vectors):
            return none
        if scope is None:
            return self._query(vectors, n, None)
        # The scope's own vectors and the wide ones (held too widely to list, filtered by
        # holder afterwards) are asked apart, `n` of each: asked together, 300 wide vectors
        # nearer the question took every place and left a scoped search none in scope.
        own = self._query(vectors, n, scope_filter(scope))
        wide = self._query(vectors, n, {SCOPE_FIELD: {"$contains": WIDE}})
        return [
            sorted(a + b, key=lambda hit: -hit[1]) if b else a
            for a, b in zip(own, wide, strict=True)
        ]

    def _query(
        self, vectors: np.ndarray, n: int, where: dict[str, Any] | None
    ) -> list[list[tuple[str, float]]]:
        result = self._bounded(
            lambda: self._collection.query(
                query_embeddings=vectors, n_results=n, include=["distances"], where=where
            )
        )
        distances = result["distances"] or [[] for _ in result["ids"]]
        return [
            [(i, 1.0 - float(d)) for i, d in zip(ids, row, strict=True)]
            for ids, row in zip(result["ids"], distances, strict=True)
        ]

    def _bounded(self, ask: Callable[[], Any]) -> Any:
        """`ask()`'s answer (a read of the collection for a search), or StoreBusy when the
        embedded store has not given it within QUERY_WAIT_S (its database locked by
        another process), or while an earlier one is still stuck: searches skip the store
        rather than queue behind it, and say why. On a server the HTTP client's timeout
        bounds it."""
        if not self.where.embedded:
            return ask()
        if self._stuck:
            raise StoreBusy(self._busy_phrase())
        try:
            return within(
                QUERY_WAIT_S,
                ask,
                name="ragd-vector-query",
                abandoned=functools.partial(self._count_stuck, 1),
                ended=functools.partial(self._count_stuck, -1),
            )
        except Late:
            log.warning(
                "the vector index did not answer within %.0f s (is %s locked by another "
                "process?); answering from BM25 until it does",
                QUERY_WAIT_S,
                VECTOR_DATABASE,
            )
            raise StoreBusy(self._busy_phrase()) from None
        except DenseIndexError:
            raise
        except Exception as exc:  # ChromaDB's own failure, for this read only
            why = f"{type(exc).__name__}: {_clipped(exc)}"
            log.warning("a read of the vector index failed (%s); answered from BM25", why)
            raise ReadFailed(f"vector store read failed ({why})") from exc

    def _count_stuck(self, change: int) -> None:
        with self._stuck_lock:
            self._stuck += change

    def _busy_phrase(self) -> str:
        """What a search answered without the store says (its `note`), as a server's
        `unreachable` does. A read this slow is most likely another process's lock, but
        only index/store_lock.py can know that: this one says what was seen."""
        return (
            f"vector store did not answer within {QUERY_WAIT_S:g} s ({VECTOR_DATABASE} in "
            f"{self._path}: locked by another process?)"
        )

    def sample(self, size: int) -> dict[str, np.ndarray]:
        """Up to `size` stored vectors, spread evenly over the ids, read back from the index.
        For `ragd check` beside a live daemon: each page of ids is read within QUERY_WAIT_S
        (StoreBusy past it), as a search's reads are, so a database another process holds
        locked is said at once instead of waited for (fixes42b: it waited for the lock)."""
        ids = sorted(self._ids(self._bounded))
        picked = ids[:: max(1, len(ids) // size)][:size]
        return self.vectors(picked)

    def unfindable(self, vectors: dict[str, np.ndarray]) -> int:
        """How many stored vectors a search for themselves does not find (cosine ≈ 1)."""
        misses = 0
        for vector in vectors.values():
            hits = self.query(vector, 1)
            if not hits or hits[0][1] < 0.999:
                misses += 1
        return misses

    def warm(self) -> None:
        """Load the HNSW index now rather than on the first user query."""
        if self._count:
            # Locked by another process: the first search after it goes loads it instead.
            with contextlib.suppress(StoreBusy):
                self.query(np.zeros(DIMENSION, dtype=np.float32) + 1.0, 1)

    def close(self) -> None:
        """Release a server connection's sockets (the embedded client has none to close).

        chromadb's HTTP client checks the tenant through an admin client of its own, with
        its own HTTP session and a kept-alive socket; its `close()` forgets both systems
        but closes neither session, so both are closed here."""
        if self.where.embedded:
            return
        client = self._client
        for part in (client, getattr(client, "_admin_client", None)):
            session = getattr(getattr(part, "_server", None), "_session", None)
            if session is not None:
                session.close()
        release = getattr(client, "close", None)  # chromadb >= 1.5.x: drop its systems
        if release is not None:
            release()

    def reset(self) -> None:
        try:
            self._client.delete_collection(self.name)
        except Exception as exc:  # absent collection: nothing to drop
            log.debug("delete_collection: %s", exc)
        self._collection = self._open_collection()
        self._count = 0
