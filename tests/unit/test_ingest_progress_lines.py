"""`rag ingest`'s progress while the writer's first batch is read: "0/47 files" for 40 s
with nothing else said (newuser44), because done counts a batch once it is stored. The
line now says how many files are in the batch (ragcli.main.follow_progress, piped)."""

from __future__ import annotations

from typing import Any

import pytest

from ragcli.main import follow_progress


class Statuses:
    """A connection whose `status` answers are these, in turn."""

    def __init__(self, *replies: dict[str, Any]) -> None:
        self.replies = list(replies)

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        assert op == "status"
        return self.replies.pop(0)


def test_a_batch_being_read_is_said_while_no_file_is_done(
    capsys: pytest.CaptureFixture[str],
) -> None:
    reading = {"done": 0, "total": 47, "chunks_per_s": 0.0, "underway": 40}
    idle = {"state": "idle", "files": 47, "chunks": 60, "roots": [], "progress": {}}
    conn = Statuses({"state": "indexing", "progress": reading}, idle)
    assert follow_progress(conn, 60, "/notes") == 0  # type: ignore[arg-type]
    first = capsys.readouterr().err.splitlines()[0]
    assert first == "indexing 0/47 files · 0.0 chunks/s · 40 being read and stored together"
