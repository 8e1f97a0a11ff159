"""The connection guard's drops (serve/connection_guard.py) in `rag status` and systemd's
STATUS= for an hour after the last: before, only the log said them, and the clients whose
requests were lost were told the daemon had stopped."""

from __future__ import annotations

import threading
from pathlib import Path

from ragd.core.config import Settings
from ragd.core.connection_drops import SHOWN_FOR_S, ConnectionDrops
from ragd.core.roots import Roots
from ragd.engine.components import Basics, Startup
from ragd.engine.health import Health
from ragd.index.space import DiskGuard
from ragd.ingest.work_queue import WorkQueue
from tests.unit.test_ingest_skipped_lines import status_lines


def test_a_drop_is_said_with_its_count_and_time_and_forgotten_after_the_hour() -> None:
    drops = ConnectionDrops()
    assert drops.recent() is None
    drops.note(192, 300)
    drops.note(40, 300)
    said = drops.recent()
    assert said is not None
    assert (said["times"], said["connections"], said["limit"]) == (2, 232, 300)
    assert drops.recent(now=said["last"] + SHOWN_FOR_S + 1) is None


def test_rag_status_has_a_dropped_row_while_the_drop_is_recent() -> None:
    drops = ConnectionDrops()
    drops.note(192, 300)
    rows = {
        line[:11].strip(): line[11:]
        for line in status_lines({"roots": [], "connections_dropped": drops.recent()})
    }
    assert rows["dropped"].startswith("every connection, once since start (192 connections;")
    assert "too many connections were open at once for its open-file limit (300)" in rows["dropped"]
    assert "dropped" not in {line[:11].strip() for line in status_lines({"roots": []})}


def test_the_systemd_status_line_says_the_drop() -> None:
    stopping = threading.Event()
    queue = WorkQueue(debounce_s=0)
    basics = Basics(queue, Roots(), DiskGuard(Path("unused-data-dir"), stopping), stopping)
    drops = ConnectionDrops()
    health = Health(basics, Startup(stopping), Settings().vector_target, drops)
    assert "dropped" not in health.status_line()
    drops.note(27, 300)
    assert "; dropped every connection, once since start (27 connections;" in health.status_line()
