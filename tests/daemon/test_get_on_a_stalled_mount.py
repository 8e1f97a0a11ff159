"""`get` of a line range (what `rag mcp`'s `get` sends) from a file on a stalled mount
fails that request in one line; every other search is still answered.

`get` runs on the search pool and, for a line range, opens the file itself. On a
network mount whose server went away (`tests/support/hung_stat`, its opens hanging too)
the open waits for as long as the mount hangs: two agents reading around a hit there
held both workers, and every search of every client went unanswered. The read now runs
as `--in`'s look-up does (`serve/disk_calls.py`). Any client may send `get`.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ragd.serve.disk_calls import MAX_STUCK
from tests.support.daemon import Daemon
from tests.support.hung_stat import HungStat

CLIENT_WAIT_S = 120.0  # how long a call may take before the test calls it hung


def test_a_line_range_on_a_stalled_mount_holds_no_search(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    (root / "hung-pump.md").write_text("# Pump\n\nThe pumptoken runs at 42 bar.\n")
    hung = HungStat(tmp_path, "hung-*", opens=True)
    daemon = Daemon(tmp_path / "d", [root], env=hung.env()).start()
    try:
        hung.release()  # indexed as usual first
        daemon.wait_idle()
        assert daemon.sources("pumptoken") == ["hung-pump.md"]
        hung.rearm()  # then the mount stalls
        answers: list[str] = []

        def get() -> None:
            try:
                daemon.call("get", timeout=CLIENT_WAIT_S, source="hung-pump.md", lines=[1, 3])
                answers.append("answered")
            except Exception as exc:  # before: DaemonTimeout, after the client's wait
                answers.append(f"{type(exc).__name__}: {exc}")

        callers = [threading.Thread(target=get) for _ in range(MAX_STUCK + 2)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        assert len(answers) == MAX_STUCK + 2
        for answer in answers:
            assert "did not answer within" in answer and "hung-pump.md" in answer, answer
            assert str(tmp_path) not in answer
        assert hung.calls()

        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)

        hung.release()
        got = daemon.call("get", timeout=CLIENT_WAIT_S, source="hung-pump.md", lines=[1, 3])
        assert "pumptoken" in got["text"], got
    finally:
        hung.release()
        assert daemon.stop() == 0
