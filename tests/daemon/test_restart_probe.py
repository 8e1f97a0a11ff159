"""A restart after a clean stop skips the vector index probe; after a crash it probes.

Real `ragd serve` processes on one data dir (DEBUG log): the first index and a clean stop;
a restart, which trusts the sealed store without the probe's child process and answers;
a SIGKILL; a restart, which probes (the seal was removed when the store was opened) and
still answers. Damage after a clean stop is found by the probe: tests/daemon/test_check_safety.py
and tests/component/test_vector_seal.py.

The module's tests take turns on one indexed data dir: each finds its daemon running and
idle, stops and restarts it as it needs, and leaves it running and idle again (the module
pays one first index, not one per test; its teardown asserts a clean stop).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.processes import is_live, live_children

pytestmark = pytest.mark.slow

NOT_PROBED = "the vector index is as a clean stop sealed it: not probed"
PROBING = "probing the vector index in a child process"
FILES = 3


@pytest.fixture(scope="module")
def d(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("probe")
    root = tmp / "docs"
    root.mkdir()
    for i in range(FILES):
        (root / f"pump{i}.md").write_text(
            f"# Pump {i}\n\nPump PX-{i:03d} is greased every spring by the night crew.\n"
        )
    daemon = Daemon(tmp, [root], env={"RAG_LOG_LEVEL": "DEBUG"})
    daemon.start()
    daemon.wait_idle()
    yield daemon
    assert daemon.stop() == 0


def started_with_a_probe(d: Daemon, files: int) -> None:
    """Start `d` again: the vector index is not trusted, so it is probed, and its vectors
    still answer."""
    d.start()
    assert d.wait_idle()["files"] == files
    log = d.log()
    assert PROBING in log and NOT_PROBED not in log
    assert d.search("pump greased in spring", mode="vector")["results"][0]["cosine"] > 0.5


def test_a_clean_stop_spares_the_probe_and_a_crash_does_not(d: Daemon) -> None:
    assert d.stop() == 0

    d.start()
    assert d.wait_idle()["files"] == FILES
    log = d.log()
    assert NOT_PROBED in log and PROBING not in log
    assert d.search("pump greased in spring", mode="vector")["results"][0]["cosine"] > 0.5
    d.stop(signal.SIGKILL)

    started_with_a_probe(d, files=FILES)


PROBE_MODULE = "ragd.index.dense_probe"


def probe_child(parent: int) -> int | None:
    """The probe process `parent` started, once it is importing ChromaDB (its shared
    library mapped): by then it has armed its parent-death signal, the first thing it does."""
    for pid in live_children(parent, PROBE_MODULE):
        try:
            if "chromadb" in Path(f"/proc/{pid}/maps").read_text():
                return pid
        except OSError:
            continue
    return None


def test_a_daemon_killed_mid_probe_leaves_no_probe_in_its_vector_index(d: Daemon) -> None:
    """The probe opens ChromaDB (and may write to it): one left running after its daemon
    died would share the folder with the next daemon. A stopped probe stands for a slow
    one (a large store, a busy machine); it must end with the daemon all the same."""
    d.stop(signal.SIGKILL)  # no seal: the next start probes
    d.start(wait=False)
    assert d.proc is not None
    parent = d.proc.pid
    child = wait_for(lambda: probe_child(parent), 120, "the start-up probe", interval=0.02)
    os.kill(child, signal.SIGSTOP)
    try:
        d.stop(signal.SIGKILL)
        wait_for(
            lambda: not is_live(child, PROBE_MODULE),
            30,
            f"the probe {child} to end with its daemon",
        )
    finally:
        if is_live(child, PROBE_MODULE):
            os.kill(child, signal.SIGKILL)
    d.start()
    assert d.wait_idle()["files"] == FILES


def test_a_fifo_put_in_the_vector_index_neither_hangs_the_stop_nor_is_trusted(
    d: Daemon,
) -> None:
    """The clean stop fsyncs every file under chroma/ before sealing it: opening a FIFO
    there waited for a writer for ever, so SIGTERM never ended the daemon. It now stops,
    leaves the store unsealed, and the next start probes it."""
    fifo = d.data_dir / "chroma" / "planted.fifo"
    os.mkfifo(fifo)
    d.signal(signal.SIGTERM)
    assert d.wait_exit(60) == 0
    assert "could not record a clean stop" in d.log()

    started_with_a_probe(d, files=FILES)
    # The probe finds a file Chroma never writes and rebuilds the store, which takes the
    # FIFO with it (dense_probe.not_chroma_files); else it is removed here, left as found.
    fifo.unlink(missing_ok=True)
