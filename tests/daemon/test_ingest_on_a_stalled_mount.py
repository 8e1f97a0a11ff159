"""`rag ingest PATH` on a stalled mount fails in one line; every other request is still
answered.

`ingest` runs on the search pool (one worker per core) and stats the path it is given.
On a network mount whose server went away that stat never returns
(`tests/support/hung_stat` makes the daemon's stat of a `hung-*` name hang the same way).
Before: each such `rag ingest` held a search worker for as long as the mount hung, so two
of them left every search of every client unanswered. Now the look-up of the path runs
with a deadline (`serve/disk_calls.py`), as `--in` on a stalled mount does.
"""

from __future__ import annotations

from pathlib import Path

from ragd.serve.disk_calls import MAX_STUCK
from tests.support.daemon import Daemon
from tests.support.hung_stat import SHORT_DEADLINE, HungStat, answers_of_many_calls

CLIENT_WAIT_S = 60.0  # how long a call may take before the test calls it hung


def test_an_ingest_on_a_stalled_mount_holds_no_worker(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    stalled = tmp_path / "hung-mount"
    stalled.mkdir()
    (stalled / "buoy.md").write_text("# Buoy\n\nThe buoytoken is painted red.\n")
    hung = HungStat(tmp_path, "hung-*")
    daemon = Daemon(tmp_path / "d", [root], env=hung.env() | SHORT_DEADLINE).start()
    try:
        daemon.wait_idle()
        answers = answers_of_many_calls(
            daemon, "ingest", MAX_STUCK + 2, CLIENT_WAIT_S, path=str(stalled)
        )
        assert len(answers) == MAX_STUCK + 2
        for answer in answers:
            assert "did not answer within" in answer and "hung-mount" in answer, answer
            assert str(tmp_path) not in answer  # no absolute path echoed
        assert hung.calls()  # the look-up did reach the stalled path

        # The pool is free: a plain search is answered while the mount still hangs, and
        # `rag ingest` says so in one line.
        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)
        result = daemon.rag("ingest", str(stalled), timeout=CLIENT_WAIT_S)
        assert result.returncode != 0
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "did not answer within" in result.stderr

        # The mount answers again: the folder is added and indexed.
        hung.release()
        added = daemon.call("ingest", timeout=CLIENT_WAIT_S, path=str(stalled))
        assert added["added"] is True
        daemon.wait_searchable("buoytoken", "hung-mount/buoy.md")
    finally:
        hung.release()
        assert daemon.stop() == 0
