"""A root's folder name cannot forge a log line or drive the terminal showing the log.

Log lines naming a root (`watching new root …`, `forgetting root …`, `forgot root …`)
printed the folder's name raw: a folder named with a newline wrote a second line of the
attacker's choosing, and one with ESC sequences retitled or cleared the terminal of
whoever read the log (`journalctl`, a foreground `ragd serve`). The formatter now makes
every message one line (`core/logs.py`).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.daemon import Daemon

LOG_LINE = re.compile(r"^\d\d:\d\d:\d\d (DEBUG|INFO|WARNING|ERROR|CRITICAL) +[\w.]+: ")
HOSTILE = "ev\x1b]0;pwned\x07\x1b[2Jx\n12:00:00 ERROR   ragd: forged"


def test_a_root_named_to_forge_log_lines_stays_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "p.md").write_text("# Plain\n\nThe plain note names a tapir.\n")
    hostile = tmp_path / HOSTILE
    hostile.mkdir()
    (hostile / "h.md").write_text("# Hostile\n\nThe hostile folder names a margay.\n")
    d = Daemon(tmp_path / "t", [plain]).start()
    try:
        d.wait_idle()
        assert d.rag("ingest", str(hostile)).returncode == 0
        d.wait_idle()
        forgot = d.rag("forget", HOSTILE)
        assert forgot.returncode == 0, forgot.stderr
        d.wait_log("forgot root")
        log = d.log()
        assert [line for line in log.splitlines() if not LOG_LINE.match(line)] == []
        assert "\x1b" not in log and "\x07" not in log
        assert "watching new root ev\\x1b]0;pwned\\x07\\x1b[2Jx\\n12:00:00 ERROR" in log
        # A second folder named `plain` is shown as `plain-2`, and logged so: it was logged
        # as `plain`, and its forget read as the first one's (a new user, session 40).
        twin = tmp_path / "elsewhere" / "plain"
        twin.mkdir(parents=True)
        (twin / "t.md").write_text("# Twin\n\nThe twin folder names an okapi.\n")
        assert d.rag("ingest", str(twin)).returncode == 0
        d.wait_log("watching new root plain-2")
        assert d.rag("forget", "plain-2").returncode == 0
        d.wait_log("forgot root plain-2")
        assert "forgetting root plain-2" in d.log()
        assert "forgetting root plain\n" not in d.log() and "forgot root plain\n" not in d.log()
    finally:
        d.stop()
