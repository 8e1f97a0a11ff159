"""A restart after a clean stop skips the vector index probe; after a crash it probes.

Real `ragd serve` processes on one data dir (DEBUG log): the first index and a clean stop;
a restart, which trusts the sealed store without the probe's child process and answers;
a SIGKILL; a restart, which probes (the seal was removed when the store was opened) and
still answers. Damage after a clean stop is found by the probe: tests/daemon/test_check_safety.py
and tests/component/test_vector_seal.py.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.processes import is_live, live_children

pytestmark = pytest.mark.slow

NOT_PROBED = "the vector index is as a clean stop sealed it: not probed"
PROBING = "probing the vector index in a child process"


def started_with_a_probe(d: Daemon, files: int) -> None:
    """Start `d` again: the vector index is not trusted, so it is probed, and its vectors
    still answer."""
    d.start()
    assert d.wait_idle()["files"] == files
    log = d.log()
    assert PROBING in log and NOT_PROBED not in log
    assert d.search("pump greased in spring", mode="vector")["results"][0]["cosine"] > 0.5


def test_a_clean_stop_spares_the_probe_and_a_crash_does_not(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    for i in range(3):
        (root / f"pump{i}.md").write_text(
            f"# Pump {i}\n\nPump PX-{i:03d} is greased every spring by the night crew.\n"
        )
    d = Daemon(tmp_path, [root], env={"RAG_LOG_LEVEL": "DEBUG"})
    d.start()
    d.wait_idle()
    assert d.stop() == 0

    d.start()
    assert d.wait_idle()["files"] == 3
    log = d.log()
    assert NOT_PROBED in log and PROBING not in log
    assert d.search("pump greased in spring", mode="vector")["results"][0]["cosine"] > 0.5
    d.stop(signal.SIGKILL)

    started_with_a_probe(d, files=3)
    assert d.stop() == 0


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


def test_a_daemon_killed_mid_probe_leaves_no_probe_in_its_vector_index(tmp_path: Path) -> None:
    """The probe opens ChromaDB (and may write to it): one left running after its daemon
    died would share the folder with the next daemon. A stopped probe stands for a slow
    one (a large store, a busy machine); it must end with the daemon all the same."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pump.md").write_text("# Pump\n\nPump PX-7 is greased every spring.\n")
    d = Daemon(tmp_path, [root])
    d.start()
    d.wait_idle()
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
    assert d.wait_idle()["files"] == 1
    assert d.stop() == 0


def test_a_fifo_put_in_the_vector_index_neither_hangs_the_stop_nor_is_trusted(
    tmp_path: Path,
) -> None:
    """The clean stop fsyncs every file under chroma/ before sealing it: opening a FIFO
    there waited for a writer for ever, so SIGTERM never ended the daemon. It now stops,
    leaves the store unsealed, and the next start probes it."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pump.md").write_text("# Pump\n\nPump PX-7 is greased every spring.\n")
    d = Daemon(tmp_path, [root], env={"RAG_LOG_LEVEL": "DEBUG"})
    d.start()
    d.wait_idle()
    os.mkfifo(d.data_dir / "chroma" / "planted.fifo")
    d.signal(signal.SIGTERM)
    assert d.wait_exit(60) == 0
    assert "could not record a clean stop" in d.log()

    started_with_a_probe(d, files=1)
    assert d.stop() == 0
