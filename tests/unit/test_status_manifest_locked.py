"""`rag status` while another process holds the manifest locked: a line saying so, with
how many changes wait; none once the lock is gone (the daemon then sends None)."""

from __future__ import annotations

from typing import Any

from tests.unit.test_ingest_skipped_lines import status_lines


def _rows(locked: dict[str, Any] | None) -> dict[str, str]:
    data = {"roots": [{"name": "notes", "files": 2, "chunks": 4}], "manifest_locked": locked}
    return {line[:11].strip(): line[11:] for line in status_lines(data)}


def test_a_lock_held_by_another_process_is_said_with_the_changes_waiting() -> None:
    locked = {"file": "manifest.sqlite3", "where": "the data dir", "changes": 3, "since": 0.0}
    rows = _rows(locked)
    assert "another process" in rows["waiting"]
    assert "manifest.sqlite3 in the data dir" in rows["waiting"]
    assert "3 changes wait" in rows["waiting"]


def test_no_line_once_the_lock_is_gone() -> None:
    assert "waiting" not in _rows(None)
