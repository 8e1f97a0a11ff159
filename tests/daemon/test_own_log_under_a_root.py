"""ragd's standard error redirected into a file under a root it watches (`ragd serve
~/notes > ~/notes/ragd-log.txt 2>&1`) is not indexed (attack48): every line logged about
indexing it changed it, so it was indexed again about once a second for ever, the daemon
never went idle (`rag status --wait` timed out) and every answer said a file was still
being indexed. The watcher queues nothing for its writes either: they would be synced
only to be skipped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.daemon import Daemon, wait_for


def test_the_daemons_own_log_under_a_root_is_left_out_and_it_goes_idle(tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text("# Herons\n\nThe heron word is heronsownlog.\n")
    # The tests' daemon writes its log beside its data dir: here, into the root; `.log`
    # files are included so the log is a document by its name.
    d = Daemon(tmp_path, [tmp_path], env={"RAG_INCLUDE": "+*.log"}).start()
    try:
        d.wait_searchable("heronsownlog", "note.md")
        # The floor's first measurement logs a line once the index is idle: waited for,
        # so the log's size below is taken after it.
        d.wait_floor_settled()
        status = d.wait_idle()
        log_name = d.log_path.name
        assert {e["source"]: e["reason"] for e in status["no_text"]}.get(log_name, "").startswith(
            "ragd's own log"
        ), status["no_text"]
        written = d.log_path.stat().st_size
        # The watcher queues nothing for the log's writes (`Watcher.writes_own_output`),
        # and it hands events on in order: once a file saved after them is seen (left out
        # for its type, which logs nothing), every write to the log so far was handled,
        # so a sync of the log could be neither waiting nor under way.
        (tmp_path / "after.zzz").write_text("saved after the log's last line\n")

        def seen_and_idle() -> dict[str, Any] | None:
            again = d.status()
            seen = again["skipped_types"].get(".zzz") == 1
            return again if seen and again["state"] == "idle" and again["pending"] == 0 else None

        wait_for(seen_and_idle, 60, "the file saved after the log's writes seen, and idle")
        assert d.log_path.stat().st_size == written, "the log was not written again"
        assert d.sources("INFO") == [], "no log line is searchable"
    finally:
        assert d.stop() == 0
