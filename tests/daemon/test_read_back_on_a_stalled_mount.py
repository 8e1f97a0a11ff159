"""`get` of a line range (MCP's read-back of a document) on a stalled mount fails that
request in one line; every other request is still answered.

A line range is read from the file itself, on the search pool (one worker per core). On
a network mount whose server went away the open never returns (`tests/support/hung_stat`
with `opens`: the daemon's `os.open` of a `hung-*` name hangs). Before: each such `get`
held a search worker for as long as the mount hung, so two of them left every search of
every client unanswered. Now the read runs with a deadline (`serve/disk_calls.py`).
"""

from __future__ import annotations

from pathlib import Path

from ragd.serve.disk_calls import MAX_STUCK
from tests.support.daemon import Daemon
from tests.support.hung_stat import SHORT_DEADLINE, HungStat, answers_of_many_calls

CLIENT_WAIT_S = 60.0  # how long a call may take before the test calls it hung


def test_a_line_range_on_a_stalled_mount_holds_no_worker(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    (root / "hung-buoy.md").write_text("# Buoy\n\nThe buoytoken is painted red.\n")
    hung = HungStat(tmp_path, "hung-*", opens=True)
    hung.release()  # indexed first; the mount stalls after
    daemon = Daemon(tmp_path / "d", [root], env=hung.env() | SHORT_DEADLINE).start()
    try:
        daemon.wait_searchable("buoytoken", "hung-buoy.md")
        daemon.wait_idle()
        hung.rearm()
        answers = answers_of_many_calls(
            daemon, "get", MAX_STUCK + 2, CLIENT_WAIT_S, source="hung-buoy.md", lines=[1, 3]
        )
        assert len(answers) == MAX_STUCK + 2
        for answer in answers:
            assert "did not answer within" in answer and "hung-buoy.md" in answer, answer
            assert str(tmp_path) not in answer  # no absolute path echoed
        assert hung.calls()  # the read did reach the stalled file

        # The pool is free: a search is answered while the mount still hangs.
        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)

        hung.release()
        passage = daemon.call("get", timeout=CLIENT_WAIT_S, source="hung-buoy.md", lines=[3, 3])
        assert "buoytoken" in passage["text"]
    finally:
        hung.release()
        assert daemon.stop() == 0
