"""The embedded store in its own process (index/store_process.py), driven directly: a read
the daemon stopped waiting for never answers the next call; a worker killed under a
write, stuck (SIGSTOP), or wedged by a failed native write is replaced and the write
lands in the new one; a worker busy with a long write is left to finish it. (The
daemon's side of the same — status, BM25 searches and the refill while it is down — is
in tests/daemon/test_vector_store_locked_at_start.py.)"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path

import numpy as np
import pytest

from ragd.core.layout import DataDir
from ragd.index import store_process
from ragd.index.dense import MAX_BATCH, StoreBusy
from ragd.index.server_store import VectorStoreUnavailable
from ragd.index.store_process import StoreProcess, StoreProcessError
from ragd.index.store_worker import DELAY_ENV, HOLD_ENV, SPIN_ENV
from tests.support.daemon import wait_for
from tests.support.processes import live_children

WAIT_S = 0.5  # the store's read wait in these tests (the daemon's is 5 s)
SLOW_S = 2.0  # how late a delayed query comes back: past the wait


def vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((n, 384)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def slow_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StoreProcess]:
    """A store whose worker answers every query SLOW_S late (its other calls at once)."""
    monkeypatch.setenv(DELAY_ENV, f"query_many={SLOW_S}")
    store = StoreProcess(tmp_path / "chroma", query_wait_s=WAIT_S)
    try:
        yield store
    finally:
        store.close()


def test_a_read_given_up_on_does_not_answer_the_next_call(slow_queries: StoreProcess) -> None:
    store = slow_queries
    rows = vectors(20)
    ids = [f"c{i}#0" for i in range(20)]
    store.upsert(ids, rows)
    with pytest.raises(StoreBusy):
        store.query(rows[3], 5)  # its answer comes after the caller stopped waiting
    with pytest.raises(StoreBusy):
        store.vectors(ids[:1])  # while it is still out, reads do not queue behind it
    # Once it is back (answered, or skipped as nobody waits for it), each call gets its own
    # answer: the late one is never read as the next call's.
    got = wait_for(lambda: _read_or_none(store, ids[5:7]), 30, "reads to be answered again")
    assert sorted(got) == ids[5:7]
    assert np.allclose(got[ids[5]], rows[5], atol=1e-6)
    assert store.all_ids() == set(ids)


def the_line_ending(caplog: pytest.LogCaptureFixture, pid: int | None) -> str:
    """The one log line that says the worker `pid` ended."""
    lines = [r.getMessage() for r in caplog.records if f"(pid {pid}) ended" in r.getMessage()]
    assert len(lines) == 1, lines
    return lines[0]


def _read_or_none(store: StoreProcess, ids: list[str]) -> dict[str, np.ndarray] | None:
    try:
        return store.vectors(ids)
    except StoreBusy:
        return None


def test_a_killed_worker_is_replaced_and_a_write_reaches_the_new_one(tmp_path: Path) -> None:
    store = StoreProcess(tmp_path / "chroma")
    try:
        rows = vectors(30, seed=1)
        store.upsert([f"a{i}#0" for i in range(20)], rows[:20])
        first = store.pid
        assert first is not None
        assert not store.take_refill()
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: store.unavailable(), 30, "the store to say its worker died")
        with pytest.raises(VectorStoreUnavailable, match=f"pid {first}"):
            store.query(rows[0], 1)  # a search answers from BM25 meanwhile
        store.upsert([f"b{i}#0" for i in range(10)], rows[20:])  # waits for the new worker
        assert store.pid not in (None, first)
        assert store.take_refill() and not store.take_refill()  # once: the writer compares
        assert store.count() == 30
        assert store.query(rows[25], 1)[0][0] == "b5#0"
        assert store.query(rows[4], 1)[0][0] == "a4#0"  # what the dead worker wrote stays
    finally:
        store.close()
    assert store.unavailable() is not None  # closed: no worker is started again


STALL_S = 2.0  # the stall bounds in these tests (the daemon's: read_stall_s, WRITE_STALL_S)
BIG = MAX_BATCH // 2  # one write: ≈ 1.5 CPU s (3.2 for MAX_BATCH into an empty index)


def test_a_stopped_worker_is_killed_and_replaced_and_a_write_reaches_the_new_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """SIGSTOP stands for a worker stuck in native code: a read waits its bound, the worker
    is killed (one line naming the request), and a write waiting behind it lands in the
    next worker."""
    store = StoreProcess(tmp_path / "chroma", query_wait_s=WAIT_S, stall_s=(STALL_S, STALL_S))
    try:
        rows = vectors(30, seed=2)
        store.upsert([f"a{i}#0" for i in range(20)], rows[:20])
        first = store.pid
        assert first is not None
        os.kill(first, signal.SIGSTOP)
        with pytest.raises(StoreBusy):
            store.query(rows[0], 1)  # a search answers from BM25 meanwhile
        store.upsert([f"b{i}#0" for i in range(10)], rows[20:])  # waits, then lands
        assert store.pid not in (None, first)
        assert store.take_refill()
        assert store.query(rows[25], 1)[0][0] == "b5#0"
        assert store.query(rows[4], 1)[0][0] == "a4#0"
    finally:
        store.close()
    killed = the_line_ending(caplog, first)
    assert "killed: query_many unanswered for" in killed and "using no CPU" in killed


def test_a_worker_busy_with_a_long_write_is_not_killed(tmp_path: Path) -> None:
    """Busy is not stuck: a 2,000-vector upsert runs longer than the stall bound here
    (seconds of CPU), computing all along, and its worker is left to finish it."""
    store = StoreProcess(tmp_path / "chroma", stall_s=(STALL_S, STALL_S))
    try:
        first = store.pid
        rows = vectors(BIG, seed=3)
        store.upsert([f"c{i}#0" for i in range(BIG)], rows)
        assert store.pid == first and not store.take_refill()
        assert store.count() == BIG
    finally:
        store.close()


BUSY_S = 1.0  # the CPU bound of a request in these tests (the daemon's: BUSY_CPU_S)


def test_a_worker_computing_without_answering_is_killed_and_the_write_lands_in_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A livelock (SPIN_ENV: the first worker loops for ever on an upsert): its CPU clock
    moves, so it is never stuck for want of CPU, and before, nothing ended it: the write
    waited for ever. Once the request has used its CPU bound, the worker is killed in one
    line and the write lands in the next one."""
    monkeypatch.setenv(SPIN_ENV, "upsert")
    store = StoreProcess(tmp_path / "chroma", cpu_s=(store_process.START_CPU_S, BUSY_S))
    try:
        first = store.pid
        rows = vectors(10, seed=5)
        store.upsert([f"d{i}#0" for i in range(10)], rows)  # waits, then lands
        assert store.pid not in (None, first)
        assert store.take_refill()
        assert store.query(rows[3], 1)[0][0] == "d3#0"
    finally:
        store.close()
    killed = the_line_ending(caplog, first)
    assert "killed: upsert unanswered for" in killed and "computing all along" in killed


def test_a_start_that_hangs_is_killed_and_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker started again that never says "ready" (HOLD_ENV: it waits before it opens
    the store, using no CPU, as ChromaDB's open on a stalled disk would): before, nothing
    watched a start, and the write waiting for the new worker waited for ever. Now the
    start is killed after the stall bound in one line, tried again, and the write lands
    once a start succeeds."""
    hold = tmp_path / "hold"
    monkeypatch.setenv(HOLD_ENV, str(hold))
    store = StoreProcess(tmp_path / "chroma", stall_s=(STALL_S, STALL_S))
    try:
        rows = vectors(2, seed=6)
        store.upsert(["a#0"], rows[:1])
        first = store.pid
        assert first is not None
        hold.touch()
        os.kill(first, signal.SIGKILL)

        def said() -> list[str]:
            return [m for m in caplog.messages if "would not start again" in m]

        wait_for(said, 120, "the hung start to be killed")
        hold.unlink()
        store.upsert(["b#0"], rows[1:])  # waits for a start that succeeds
        assert store.pid not in (None, first)
        assert store.take_refill()
        assert store.query(rows[1], 1)[0][0] == "b#0"
    finally:
        store.close()
    assert "killed: open unanswered for" in said()[0] and "using no CPU" in said()[0]


def test_a_write_that_wedged_the_worker_restarts_the_worker(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A native write failure leaves the worker's ChromaDB refusing every call: the worker
    is started again (it was the whole daemon before), and the next write lands."""
    data = tmp_path / "d"
    store = StoreProcess(DataDir(data).vectors)
    try:
        rows = vectors(2, seed=4)
        store.upsert(["a#0"], rows[:1])
        first = store.pid
        shutil.move(data, tmp_path / "old")  # moved away and copied back under the store
        shutil.copytree(tmp_path / "old", data)
        with pytest.raises(StoreProcessError, match="readonly database") as failed:
            store.upsert(["b#0"], rows[1:])
        assert failed.value.kind == "InternalError"
        store.upsert(["b#0"], rows[1:])  # waits for the next worker, which opens the copy
        assert store.pid not in (None, first)
        assert store.take_refill() and store.failure is None
        assert store.query(rows[1], 1)[0][0] == "b#0"
        assert store.sealable_folder() is None  # not sealed after a native failure
    finally:
        store.close()
    assert "killed: its last write failed (InternalError" in the_line_ending(caplog, first)


def test_a_worker_stopped_with_its_watcher_is_not_called_stuck(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-Z on `ragd serve` (or a cgroup freeze) stops the daemon and its worker
    together: a request in flight then went a long time without CPU, but so did the thread
    watching it. What it did not watch is not quiet; a worker that stays quiet once watched
    again is still called stuck after its bound."""
    clock = [store_process.time.monotonic()]
    monkeypatch.setattr(store_process.time, "monotonic", lambda: clock[0])
    idle = subprocess.Popen(["sleep", "600"])  # no CPU time at all, as a stopped worker
    ours, theirs = socket.socketpair()
    try:
        worker = store_process._Worker(idle, Connection(os.dup(ours.fileno())))
        worker._calls[1] = store_process._Call(1, "upsert", STALL_S)
        assert worker.stalled(lambda: False) is None
        clock[0] += 100 * STALL_S  # stopped, the watcher with it, then continued
        assert worker.stalled(lambda: False) is None
        for _ in range(int(STALL_S / store_process.WATCH_S) - 1):
            clock[0] += store_process.WATCH_S
            assert worker.stalled(lambda: False) is None
        clock[0] += store_process.WATCH_S
        stuck = worker.stalled(lambda: False)
        assert stuck is not None and stuck.startswith("upsert unanswered")
    finally:
        idle.kill()
        idle.wait()
        ours.close()
        theirs.close()


def test_a_close_while_a_worker_is_being_started_again_ends_that_worker_too(
    tmp_path: Path,
) -> None:
    """review47: a clean stop closes the store (Components.stop). A close that came while
    the keeper was starting a worker again (the last one died) set `give_up` and closed
    the dead worker; the new one then came up, the keeper waited on its pipe for ever,
    and it lived on, unreaped, for the daemon's life (a restart in place: <defunct>)."""
    vetting, release = threading.Event(), threading.Event()

    def vet() -> None:  # before a worker is started again: hold it there
        vetting.set()
        release.wait(30)

    store = StoreProcess(tmp_path / "chroma", vet=vet)
    first = store.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    assert vetting.wait(30)
    closing = threading.Thread(target=store.close)
    closing.start()
    wait_for(store._give_up.is_set, 30, "the close to begin")
    release.set()  # the keeper starts the next worker now, the close under way
    closing.join(60)
    assert not closing.is_alive()
    wait_for(
        lambda: not live_children(os.getpid(), "ragd.index.store_worker"),
        30,
        "no vector store worker left after the close",
    )
