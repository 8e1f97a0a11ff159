"""The dense index on a ChromaDB server that may come and go, hang, or lose its data.

A server can be down when the daemon starts, be killed in the middle of an ingest, come
back empty, lose its collection (any local user can delete it), accept connections and
never reply, or answer something that is not ChromaDB. None of that may cost a
traceback, a hung search or an inconsistent index:

- every call is bounded: the client is created only after our own short heartbeat
  (`server_probe`), and on a thread with a deadline; searches read through a client
  whose requests time out after `read_timeout_s` (core/timings.py), writes through
  one that allows a large upsert's time;
- reads (a search's vector query, fetching vectors) fail at once with
  VectorStoreUnavailable while the server is known to be down, so the caller answers
  from BM25 and says so; only the first read that meets a hung server waits, and only
  `read_timeout_s`;
- writes (upsert, delete, reset) wait and retry until the server answers again, so the
  index writer simply pauses — files keep queueing — and every write it made is applied
  exactly as it would have been (ChromaDB's upsert and delete are idempotent);
- while it is down, a background thread knocks (heartbeat) every RETRY_S and reconnects
  when it answers, a query included (a server may answer heartbeats and hang on
  queries); the collection is then opened or created again, and `refill_due` is set so
  the index writer compares it with the manifest and restores what is missing from the
  embedding cache (no re-embedding);
- `unreachable` says why, in the words of `server_probe.describe`, for `rag status`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ragd.core import timings
from ragd.core.deadline import within
from ragd.core.vector_store import HTTP_TIMEOUT_S, VectorStore, open_deadline_s
from ragd.index.dense import ChromaStore, DenseIndexError
from ragd.index.server_probe import describe, heartbeat

log = logging.getLogger(__name__)

RETRY_S = 1.0  # a blocked write, and the reconnecting thread, try again this often
# Opening the two clients is ten requests (each: identity, tenant, database, collection,
# count). Start-up waits `open_deadline_s()` for all of them (10 s unless
# RAG_VECTOR_STORE_OPEN_S says otherwise); the reconnecting thread, whose waiting holds no
# search, allows each a read timeout (`read_timeout_s`, core/timings.py: 5 s, one search
# request), so a server that answers every call within it (slowly: 1.2 s a call is 12 s
# an open) is opened, not given up on for ever.
OPEN_REQUESTS = 10
T = TypeVar("T")


def taken(due: threading.Event) -> bool:
    """Check and clear: True once after it was set (a store's `take_refill`: a set that
    comes between the two is not lost work, as the refill that follows compares all)."""
    if due.is_set():
        due.clear()
        return True
    return False


class VectorStoreUnavailable(DenseIndexError):
    """The vector store cannot be used now; `str()` says where and why, as status does."""


class _Handles:
    """Two clients on one collection: `reader` with short timeouts for searches,
    `writer` with room for a large upsert."""

    def __init__(self, path: Path, where: VectorStore) -> None:
        self.writer = ChromaStore(path, where, HTTP_TIMEOUT_S)
        try:
            self.reader = ChromaStore(path, where, timings.current().read_timeout_s)
        except BaseException:
            self.writer.close()
            raise

    def close(self) -> None:
        self.reader.close()
        self.writer.close()


def _reset(handles: _Handles) -> None:
    handles.writer.reset()
    handles.reader.reopen()  # its collection id named the dropped collection


def _recount(handles: _Handles) -> None:
    handles.writer.recount()
    handles.reader.assume_count(handles.writer.count())


class ServerStore:
    def __init__(self, path: Path, where: VectorStore) -> None:
        self.where = where
        self.name = where.collection
        self._path = path
        self._handles: _Handles | None = None
        self._reset_pending = False
        self._lock = threading.Lock()
        self.unreachable: str | None = None  # "<url>: <why>" while it cannot be used
        self.collection_missing = False  # it was deleted or the server came back empty
        self.refill_due = threading.Event()  # reconnected: the writer checks and refills
        self.give_up = threading.Event()  # set at shutdown: waits and reconnecting stop
        self._knocking: threading.Thread | None = None
        self._closed = False  # closed: nothing connects again (a search still in flight)
        # Down now: reported by `unreachable`; the daemon starts without vectors.
        with contextlib.suppress(VectorStoreUnavailable):
            self._open()

    # -- connection ----------------------------------------------------------------
    def _open(self) -> _Handles:
        """The open handles, or VectorStoreUnavailable at once while the server is down
        (only the knocking thread tries it then). Connecting is bounded in time and
        holds no lock, so a search never waits behind a reconnection attempt."""
        with self._lock:
            if self._closed:
                raise VectorStoreUnavailable(f"vector store {self.where.url}: closed")
            if self._handles is not None:
                return self._handles
            if self.unreachable is not None and not self._knocking_now():
                raise VectorStoreUnavailable(self.problem_phrase())
        patient = self._knocking_now()  # no search nor start-up waits on this thread
        now = timings.current()
        problem = heartbeat(self.where, now.read_timeout_s if patient else now.probe_timeout_s)
        if problem is not None:
            with self._lock:
                raise self._down_locked(problem, False)
        try:
            deadline_s = OPEN_REQUESTS * now.read_timeout_s if patient else open_deadline_s()
            handles = within(deadline_s, self._make, _Handles.close, name="ragd-vector-open")
            try:
                if self._reset_pending:
                    _reset(handles)
                    self._reset_pending = False
                if self._knocking_now():
                    # A server may answer heartbeats and opens yet hang on queries: trusted
                    # again on those alone, every search after each reconnection would
                    # wait `read_timeout_s`. So a reconnection asks a query first (here, on
                    # the knocking thread, where waiting costs no search).
                    handles.reader.warm()
            except BaseException:
                threading.Thread(target=handles.close, daemon=True).start()  # may hang
                raise
        except Exception as exc:
            raise self._down(exc) from None
        with self._lock:
            if self._handles is None and not self._closed:
                self._handles = handles
                return handles
            current = self._handles
        handles.close()  # another thread connected meanwhile, or the store was closed
        if current is None:  # (closed: a connection installed then is never closed)
            raise VectorStoreUnavailable(f"vector store {self.where.url}: closed")
        return current

    def _make(self) -> _Handles:
        return _Handles(self._path, self.where)

    def _knocking_now(self) -> bool:
        return threading.current_thread() is self._knocking

    def _down_locked(self, why: str, collection_missing: bool) -> VectorStoreUnavailable:
        """Record the failure (lock held), drop the handles, start knocking."""
        reason = f"{self.where.url}: {why}"
        if self.unreachable != reason:
            log.warning("vector store: %s; searches use BM25 only", reason)
        self.unreachable = reason
        self.collection_missing = self.collection_missing or collection_missing
        if self._handles is not None:
            handles, self._handles = self._handles, None
            threading.Thread(target=handles.close, daemon=True).start()  # may hang: not here
        if self._knocking is None and not self.give_up.is_set():
            self._knocking = threading.Thread(
                target=self._knock, name="ragd-vector-reconnect", daemon=True
            )
            self._knocking.start()
        return VectorStoreUnavailable(self.problem_phrase())

    def _down(self, exc: BaseException) -> VectorStoreUnavailable:
        with self._lock:
            return self._down_locked(*describe(exc, self.name))

    def _knock(self) -> None:
        """Until the server answers again: heartbeat, reopen (the collection is created
        again if it is gone), then have the writer refill it."""
        while not self.give_up.wait(RETRY_S):
            try:
                self._open()
            except VectorStoreUnavailable:
                continue
            with self._lock:
                self._knocking = None
                self.unreachable = None
                self.collection_missing = False
            log.info("vector store %s answers again; checking its collection", self.where.url)
            self.refill_due.set()
            return
        self._knocking = None

    def problem_phrase(self) -> str:
        """What `rag status` and a search's note say while the server cannot be used."""
        if self.collection_missing:
            return f"vector store collection missing: {self.unreachable} (BM25 meanwhile)"
        return f"vector store unreachable: {self.unreachable}"

    def _call(self, op: Callable[[_Handles], T]) -> T:
        for _ in range(2):
            handles = self._open()
            try:
                return op(handles)
            except VectorStoreUnavailable:
                raise
            except Exception as exc:  # anything from the HTTP client: this server is unusable
                with self._lock:
                    stale = self._handles is not handles
                if not stale:
                    raise self._down(exc) from None
                # Another call found the server down and closed these handles under this
                # one (a read on a closed socket: EBADF), and the knocking thread may have
                # reconnected since. Their failure says nothing about the server now; taken
                # as news, it dropped the fresh connection (found by a flaky test). Once more
                # on the handles in force, which fails at once if it is still down.
        raise VectorStoreUnavailable(
            f"vector store unreachable: {self.where.url}: its connection was replaced twice "
            "during one request"
        )

    def _write(self, op: Callable[[_Handles], T]) -> T:
        while True:
            try:
                result = self._call(op)
            except VectorStoreUnavailable:
                if self.give_up.wait(RETRY_S):
                    raise
                continue
            with self._lock:
                if self._handles is not None:
                    self._handles.reader.assume_count(self._handles.writer.count())
            return result

    # -- the DenseStore state questions ------------------------------------------------
    def unavailable(self) -> str | None:
        return self.problem_phrase() if self.unreachable else None

    def stop_waiting(self) -> None:
        self.give_up.set()

    def wait_until_available(self, stop: Callable[[], bool]) -> bool:
        """Block until the server answers (True) or `stop()` turns true (False)."""
        while not stop():
            try:
                self._call(lambda h: h.writer.count())
                return True
            except VectorStoreUnavailable:
                self.give_up.wait(RETRY_S)
        return False

    def take_refill(self) -> bool:
        """True once after each reconnection: the index writer should compare and refill."""
        return taken(self.refill_due)

    def recount(self) -> None:
        self._call(_recount)

    def sealable_folder(self) -> Path | None:
        return None  # the server keeps its own files; they are not probed either

    @property
    def failure(self) -> str | None:
        """Why the vector store cannot be trusted now (Stores.problems)."""
        if self.unreachable:
            return self.problem_phrase()
        handles = self._handles
        return handles.writer.failure if handles is not None else None

    # -- the ChromaStore interface ---------------------------------------------------
    def space(self) -> str:
        return self._call(lambda h: h.writer.space())

    def hnsw_settings(self) -> dict[str, Any]:
        return self._call(lambda h: h.writer.hnsw_settings())

    def count(self) -> int:
        return self._call(lambda h: h.writer.count())

    def all_ids(self) -> set[str]:
        return self._call(lambda h: h.writer.all_ids())

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._call(lambda h: h.reader.vectors(ids))

    def query(
        self, vector: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[tuple[str, float]]:
        return self._call(lambda h: h.reader.query(vector, n, scope))

    def query_many(
        self, vectors: np.ndarray, n: int, scope: list[str] | None = None
    ) -> list[list[tuple[str, float]]]:
        return self._call(lambda h: h.reader.query_many(vectors, n, scope))

    def sample(self, size: int) -> dict[str, np.ndarray]:
        return self._call(lambda h: h.writer.sample(size))

    def unfindable(self, vectors: dict[str, np.ndarray]) -> int:
        return self._call(lambda h: h.reader.unfindable(vectors))

    def warm(self) -> None:
        with contextlib.suppress(VectorStoreUnavailable):
            self._call(lambda h: h.reader.warm())

    def upsert(
        self, ids: Sequence[str], vectors: np.ndarray, scopes: Sequence[list[str]] | None = None
    ) -> None:
        self._write(lambda h: h.writer.upsert(ids, vectors, scopes))

    def relabel(self, ids: Sequence[str], scopes: Sequence[list[str]]) -> list[str]:
        return self._write(lambda h: h.writer.relabel(ids, scopes))

    def scopes(self, ids: Sequence[str]) -> dict[str, list[str]]:
        return self._call(lambda h: h.writer.scopes(ids))

    def delete(self, ids: Iterable[str]) -> None:
        ids = list(ids)
        self._write(lambda h: h.writer.delete(ids))

    def reset(self) -> None:
        """Drop the collection now, or as the first thing once the server is back."""
        if self._handles is None:
            self._reset_pending = True
            return
        self._write(_reset)

    def close(self) -> None:
        """Drop the connection for good: a search or the knocking thread still running
        finds the store closed rather than connecting again (a connection made after
        close was never closed)."""
        self.give_up.set()
        with self._lock:
            self._closed = True
            handles, self._handles = self._handles, None
        if handles is not None:
            handles.close()
