"""A restart after a clean stop skips the vector index probe; after a crash it probes.

Real `ragd serve` processes on one data dir (DEBUG log): the first index and a clean stop;
a restart, which trusts the sealed store without the probe's child process and answers;
a SIGKILL; a restart, which probes (the seal was removed when the store was opened) and
still answers. Damage after a clean stop is found by the probe: tests/daemon/test_check_safety.py
and tests/component/test_vector_seal.py.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.support.daemon import Daemon

pytestmark = pytest.mark.slow

NOT_PROBED = "the vector index is as a clean stop sealed it: not probed"
PROBING = "probing the vector index in a child process"


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

    d.start()
    assert d.wait_idle()["files"] == 3
    log = d.log()
    assert PROBING in log and NOT_PROBED not in log
    assert d.search("pump greased in spring", mode="vector")["results"][0]["cosine"] > 0.5
    assert d.stop() == 0
