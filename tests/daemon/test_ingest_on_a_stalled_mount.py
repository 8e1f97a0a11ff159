"""`rag ingest` of a folder on a stalled mount fails that request in one line; every other
search is still answered.

`ingest` runs on the search pool (one worker per core) and looks the path up on the disk
(its stat, the link it may be, the file system it is on). On a network mount whose
server went away (`tests/support/hung_stat`) that look-up waits for as long as the mount
hangs: two `rag ingest /mnt/nas/docs` held both workers, and every search of every client
went unanswered. The look-up now runs as `--in`'s does (`serve/disk_calls.py`).
"""

from __future__ import annotations

import threading
from pathlib import Path

from ragd.serve.disk_calls import MAX_STUCK
from tests.support.daemon import Daemon
from tests.support.hung_stat import HungStat

CLIENT_WAIT_S = 120.0  # how long a call may take before the test calls it hung


def test_an_ingest_on_a_stalled_mount_holds_no_search(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    mount = tmp_path / "hung-mount"
    mount.mkdir()
    (mount / "far.md").write_text("# Far\n\nThe farawaytoken is on the server.\n")
    hung = HungStat(tmp_path, "hung-*")
    daemon = Daemon(tmp_path / "d", [root], env=hung.env()).start()
    try:
        daemon.wait_idle()
        answers: list[str] = []

        def ingest() -> None:
            try:
                daemon.call("ingest", timeout=CLIENT_WAIT_S, path=str(mount))
                answers.append("answered")
            except Exception as exc:  # before: DaemonTimeout, after the client's wait
                answers.append(f"{type(exc).__name__}: {exc}")

        callers = [threading.Thread(target=ingest) for _ in range(MAX_STUCK + 2)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        assert len(answers) == MAX_STUCK + 2
        for answer in answers:
            assert "did not answer within" in answer and "hung-mount" in answer, answer
            assert str(tmp_path) not in answer  # no absolute path echoed
        assert hung.calls()  # the look-up did reach the stalled path

        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)

        hung.release()  # the mount is back: the same request adds the folder
        reply = daemon.call("ingest", timeout=CLIENT_WAIT_S, path=str(mount))
        assert reply["added"] is True, reply
    finally:
        hung.release()
        assert daemon.stop() == 0
