"""A SIGHUP that comes while `ragd serve` is still starting (before its handlers are
installed) is a reload asked early, not the end of the daemon. Python's default for
SIGHUP is to die: a `systemctl reload` or `kill -HUP` in the daemon's first fraction of a
second ended it with status 129 and not one line in the log.

The moment is made certain, not timed: the root's `stat` hangs (`tests/support/hung_stat`,
as on a stalled mount), and `ragd serve` checks that its roots are folders before it
claims the data dir and installs its handlers; the signal is sent while it waits there."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.hung_stat import HungStat


def test_a_sighup_during_start_up_is_a_reload_not_a_death(tmp_path: Path) -> None:
    root = tmp_path / "hung-notes"
    root.mkdir()
    (root / "capstan.md").write_text("# Capstan\n\nThe capstan carries quokkatoken.\n")
    hung = HungStat(tmp_path, "hung-notes")
    daemon = Daemon(tmp_path, [root], env=hung.env())
    daemon.start(wait=False)
    try:
        assert daemon.proc is not None
        wait_for(hung.entered, 60, "start-up to stat the root")
        assert "listening on" not in daemon.log()  # before the handlers, by construction
        os.kill(daemon.proc.pid, signal.SIGHUP)
        hung.release()
        daemon.wait_ready()
        # The reload asked for runs once the handlers are in place.
        daemon.wait_log("configuration reloaded", 60)
        daemon.wait_searchable("quokkatoken", "capstan.md")
    finally:
        code = daemon.stop()
    assert code == 0
