"""The embedded vector store locked by another process when ragd starts, and while it writes.

locked42, by hand (3 notes indexed, a clean stop, `BEGIN EXCLUSIVE` held on
chroma.sqlite3, `ragd serve`): opening ChromaDB waited for the lock with the GIL held, so
the whole daemon froze — `rag status` gave "ragd did not answer within 30 s" for the 157 s
the lock lasted. After an unclean stop the start-up probe waited instead (status
"starting", every search refused) and, past its 600 s, the store would have been removed
and rebuilt. A note saved while the daemon ran and the lock was held froze it the same
way for 82 s. Now: ragd starts without opening the store, searches answer from BM25 and
say why, status says it waits, and once the lock goes the stored vectors are used —
nothing is embedded again; a write waits for the lock without holding anything else up.

childstore43: the store runs in a process of its own (index/store_process.py), so no
ChromaDB call can hold the daemon's GIL; killed, it comes back and is made whole from
the embedding cache while the daemon goes on answering.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.layout import VECTOR_DATABASE, DataDir
from ragd.index.dense import QUERY_WAIT_S
from ragd.index.store_worker import HOLD_ENV
from tests.support.daemon import Daemon, short_timings, wait_for
from tests.support.lock_holder import Holder
from tests.support.processes import live_children

pytestmark = pytest.mark.slow

LOCKED = "vector store locked by another process"
# The module's daemon declares a read stuck after this long with no CPU used instead of
# 20 s (`read_stall_s`, ragd/core/timings.py's testing seam): the last test waits it out,
# and its promise is what happens then. It stays past a search's own wait (QUERY_WAIT_S,
# after which the search answers from BM25 saying the store "did not answer"), so the
# search meets the stuck worker before the kill, as it would at 20 s.
READ_STALL_S = QUERY_WAIT_S + 3


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("locked")
    root = tmp / "docs"
    root.mkdir()
    for i in range(3):
        (root / f"pump{i}.md").write_text(
            f"# Pump {i}\n\nPump PX-{i:03d} is greased every spring by the night crew.\n"
        )
    # A worker started again after one died waits while this file exists (the last test).
    env = {HOLD_ENV: str(tmp / "hold")} | short_timings(read_stall_s=READ_STALL_S)
    daemon = Daemon(tmp, [root], env=env)
    daemon.start()
    daemon.wait_idle()
    yield daemon
    assert daemon.stop() == 0


def database(d: Daemon) -> Path:
    return DataDir(d.data_dir).vectors / VECTOR_DATABASE


def computed(d: Daemon) -> int:
    return int(d.status()["embeddings"]["computed"])


def vector_hit(d: Daemon, query: str) -> str | None:
    """The first vector-only result's source once vectors answer without a note."""
    found = d.search(query, mode="vector")
    if found.get("note") or not found["results"]:
        return None
    return str(found["results"][0]["source"])


def test_a_start_while_another_process_holds_the_store_waits_and_uses_what_is_stored(
    d: Daemon,
) -> None:
    assert d.stop() == 0
    holder = Holder(database(d))
    try:
        d.start()  # ready with the lock held: the store is not opened meanwhile
        found = d.search("pump greased in spring")
        assert found["results"][0]["source"].startswith("pump"), found
        assert LOCKED in found["note"] and found["note"].endswith("BM25 results only"), found
        assert LOCKED in d.status()["vector_store"]
        assert holder.holding()
    finally:
        holder.release()
    wait_for(lambda: vector_hit(d, "pump greased in spring"), 60, "the stored vectors")
    d.wait_idle()
    assert computed(d) == 0  # nothing embedded again: the stored vectors are used
    log = d.log()
    assert "waiting for it" in log and "using its stored vectors" in log
    assert "rebuilding" not in log and "damaged" not in log


def test_a_note_saved_while_the_store_is_locked_is_written_once_it_is_let_go(d: Daemon) -> None:
    before = computed(d)
    holder = Holder(database(d))
    try:
        (d.roots[0] / "valve.md").write_text(
            "# Valve\n\nValve VX-9 is oiled by the day crew each autumn.\n"
        )
        wait_for(lambda: LOCKED in d.status()["vector_store"], 60, "status to say it waits")
        # Searches are answered while the write waits (it held the GIL: nothing was).
        assert d.search("pump greased in spring")["results"]
        assert holder.holding()
    finally:
        holder.release()
    hit = lambda: vector_hit(d, "valve oiled by the day crew") == "valve.md"  # noqa: E731
    wait_for(hit, 60, "the note's vector")
    d.wait_idle()
    assert computed(d) == before + 1
    assert LOCKED not in d.status()["vector_store"]


STORE_WORKER = "ragd.index.store_worker"
NATIVE = "chromadb_rust_bindings"  # ChromaDB's native library, as /proc/PID/maps names it


def maps_native(pid: int) -> bool:
    return NATIVE in Path(f"/proc/{pid}/maps").read_text()


def store_worker(d: Daemon) -> int:
    assert d.proc is not None
    workers = live_children(d.proc.pid, STORE_WORKER)
    assert len(workers) == 1, workers
    return workers.pop()


def test_the_store_runs_in_a_process_of_its_own_that_comes_back_when_killed(d: Daemon) -> None:
    assert d.proc is not None
    worker = store_worker(d)
    # ChromaDB's native code (which holds the GIL for a whole upsert) is in the worker only.
    assert not maps_native(d.proc.pid) and maps_native(worker)
    before = computed(d)
    hold = d.tmp / "hold"
    hold.touch()  # the next worker waits before it opens the store: the gap can be seen
    try:
        os.kill(worker, signal.SIGKILL)
        down = "vector store process (pid"
        wait_for(lambda: down in d.status()["vector_store"], 60, "status to say the store is down")
        found = d.search("pump greased in spring")  # answered from BM25, saying so
        assert found["results"][0]["source"].startswith("pump"), found
        assert down in found["note"] and found["note"].endswith("BM25 results only"), found
        (d.roots[0] / "gear.md").write_text(
            "# Gear\n\nGearbox GX-4 is flushed by the weekend crew every winter.\n"
        )
        assert down in d.status()["vector_store"]  # its write waits for the new worker
    finally:
        hold.unlink()
    hit = lambda: vector_hit(d, "gearbox flushed by the weekend crew") == "gear.md"  # noqa: E731
    wait_for(hit, 120, "the note's vector, written to the new worker")
    assert (vector_hit(d, "pump greased in spring") or "").startswith("pump")
    d.wait_idle()
    assert computed(d) == before + 1  # only the new note: nothing else embedded again
    again = store_worker(d)
    assert again != worker and maps_native(again) and not maps_native(d.proc.pid)
    log = d.log()
    assert log.count(f"vector store process (pid {worker}) ended (killed by SIGKILL)") == 1, log
    assert "rebuilding" not in log and "damaged" not in log


def test_a_stuck_store_process_is_killed_and_replaced_while_the_daemon_serves(d: Daemon) -> None:
    """SIGSTOP stands for a worker stuck in native code (a deadlock in ChromaDB or SQLite):
    it answers nothing and uses no CPU. Searches answer from BM25 meanwhile; once the
    read it is on has gone `read_stall_s` (20 s; READ_STALL_S here) with no CPU used, the
    daemon kills it (one line
    naming the request), status and the note say so, and a new worker takes the note
    saved meanwhile. The daemon itself is not restarted."""
    assert d.proc is not None
    daemon_pid = d.proc.pid
    worker = store_worker(d)
    hold = d.tmp / "hold"
    hold.touch()  # the next worker waits before it opens the store: the gap can be seen
    try:
        os.kill(worker, signal.SIGSTOP)
        found = d.search("pump greased in spring")  # the read waits QUERY_WAIT_S, then BM25
        assert found["results"][0]["source"].startswith("pump"), found
        assert "did not answer" in found["note"], found
        (d.roots[0] / "belt.md").write_text(
            "# Belt\n\nConveyor belt CB-7 is tensioned by the morning crew every summer.\n"
        )
        stuck = "unanswered for"
        wait_for(lambda: stuck in d.status()["vector_store"], 120, "status to say it was stuck")
        found = d.search("pump greased in spring")
        assert found["results"] and stuck in found["note"], found
    finally:
        hold.unlink()
    hit = lambda: vector_hit(d, "conveyor belt tensioned in summer") == "belt.md"  # noqa: E731
    wait_for(hit, 120, "the note's vector, written to the new worker")
    assert store_worker(d) != worker
    log = d.log()
    # Not re-executed either (execv keeps the pid): this start's log has one start-up.
    assert d.proc.pid == daemon_pid and log.count("listening on") == 1, log
    killed = [line for line in log.splitlines() if f"(pid {worker}) ended" in line]
    assert len(killed) == 1 and "killed: query_many unanswered for" in killed[0], killed
