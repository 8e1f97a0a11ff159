"""A stop while the writer lists a large folder is clean: the listing gives way.

The listing (the reconciler's scan) only queues work, and every start lists the roots
again, so it stops at once on shutdown rather than run on past the shutdown deadline,
which abandoned the writer (an unclean stop: the next start probes and compares every
index). Made deterministic with a file whose stat hangs until released: the SIGTERM
lands while the listing is at that file, with thousands of files still to list, and the
deadline is one second.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.hung_stat import HungStat

pytestmark = pytest.mark.slow

NOT_PROBED = "the vector index is as a clean stop sealed it: not probed"


def test_a_stop_in_the_middle_of_a_listing_is_clean(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "hung-first.md").write_text("# First\n\nListed first, its stat hangs.\n")
    for folder in range(40):  # listed after the root's own files
        sub = root / f"part{folder:02d}"
        sub.mkdir()
        for n in range(150):
            (sub / f"note{n:03d}.md").write_text(f"# Note {folder}-{n}\n\nShelf {n}.\n")
    hung = HungStat(tmp_path, "hung-*")
    env = {"RAG_SHUTDOWN_TIMEOUT_S": "1", "RAG_LOG_LEVEL": "DEBUG"}
    d = Daemon(tmp_path, [root], env=env | hung.env())
    try:
        d.start()
        wait_for(hung.entered, 120, "the listing to reach the hung file")
        d.signal(signal.SIGTERM)
        d.wait_log("shutting down")
    finally:
        hung.release()
    assert d.wait_exit() == 0
    first = d.log()
    assert "abandoning" not in first and "the next start finishes it" in first

    d = Daemon(tmp_path, [root], env={"RAG_LOG_LEVEL": "DEBUG"})
    d.start()
    assert NOT_PROBED in d.log()
    # Nothing was lost: the new start lists every file again.
    wait_for(lambda: d.status()["progress"]["total"] == 6001, 120, "every file to be listed")
    assert d.stop() == 0


def test_a_stop_during_a_reload_stuck_on_a_new_root_is_clean(tmp_path: Path) -> None:
    """SIGHUP reads the config file and looks at its new roots on its own thread, which a
    slow mount can hold (here every stat of the new root hangs). Shutdown abandons that
    thread at its deadline, but the writer still stops and flushes: the next start finds
    a clean stop. Before, an abandoned reload also skipped the writer's stop."""
    root = tmp_path / "docs"
    root.mkdir()
    (root / "pump.md").write_text("# Pump\n\nPump PX-7 is greased every spring.\n")
    (tmp_path / "hung-root").mkdir()
    config = tmp_path / "home" / ".config" / "ragd" / "config.toml"
    config.parent.mkdir(parents=True)
    roots = [str(root)]  # in the file (roots given as flags would override it)
    config.write_text(f"roots = {json.dumps(roots)}\n")
    hung = HungStat(tmp_path, "hung-*")
    env = {"RAG_SHUTDOWN_TIMEOUT_S": "1", "RAG_LOG_LEVEL": "DEBUG"}
    d = Daemon(tmp_path, [], env=env | hung.env())
    try:
        d.start()
        d.wait_idle()
        config.write_text(f"roots = {json.dumps([*roots, str(tmp_path / 'hung-root')])}\n")
        d.signal(signal.SIGHUP)
        wait_for(hung.entered, 60, "the reload to stat the new root")
        d.signal(signal.SIGTERM)
        assert d.wait_exit() == 0
    finally:
        hung.release()
    assert "a configuration reload is still running; abandoning it" in d.log()

    config.write_text(f"roots = {json.dumps(roots)}\n")
    d = Daemon(tmp_path, [], env={"RAG_LOG_LEVEL": "DEBUG"})
    d.start()
    assert NOT_PROBED in d.log()
    assert d.sources("greased") == ["pump.md"]
    assert d.stop() == 0
