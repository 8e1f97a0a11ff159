"""`--in` a path on a stalled mount fails that request in one line; every other search
is still answered.

A request's file system work runs on the search pool (one worker per core). Before: two
`search --in /…/hung-mount/x.md` (the path's `lstat` hangs, as on a network mount whose
server went away; `tests/support/hung_stat`) held both workers, and a plain search by
anyone went unanswered ("ragd did not answer within 20 s", by hand) for as long as the
mount hung. Now the look-up runs on a thread of its own with a deadline
(`serve/disk_calls.py`), at most `MAX_STUCK` of them parked at once.
"""

from __future__ import annotations

from pathlib import Path

from ragd.serve.disk_calls import MAX_STUCK
from tests.support.daemon import Daemon
from tests.support.hung_stat import HungStat, answers_of_many_calls
from tests.support.reload import Reloader, toml

CLIENT_WAIT_S = 120.0  # how long a call may take before the test calls it hung


def test_a_scope_on_a_stalled_mount_holds_no_search(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    (tmp_path / "hung-mount").mkdir()
    hung = HungStat(tmp_path, "hung-*")
    config = tmp_path / "config.toml"
    base = {"disk_deadline_s": 1.0}
    config.write_text(toml(base))
    daemon = Daemon(tmp_path / "d", [root], env=hung.env(), extra_args=["--config", str(config)])
    daemon.start()
    try:
        daemon.wait_idle()
        stalled = str(tmp_path / "hung-mount" / "x.md")
        answers = answers_of_many_calls(
            daemon, "search", MAX_STUCK + 2, CLIENT_WAIT_S, query="anchortoken", **{"in": [stalled]}
        )
        assert len(answers) == MAX_STUCK + 2
        for answer in answers:
            assert "did not answer within 1 s" in answer and "x.md" in answer, answer
            assert str(tmp_path) not in answer  # no absolute path echoed
        assert hung.calls()  # the look-up did reach the stalled path

        # The pool is free: a plain search is answered while the mount still hangs.
        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken")["results"]
        assert any("anchortoken" in hit["text"] for hit in hits)

        # `disk_deadline_s` is read at each request: a reload changes the next one's wait.
        Reloader(daemon, config, base)(disk_deadline_s=2.0)
        (answer,) = answers_of_many_calls(
            daemon, "search", 1, CLIENT_WAIT_S, query="anchortoken", **{"in": [stalled]}
        )
        assert "did not answer within 2 s" in answer, answer

        hung.release()
        scope = str(root / "anchor.md")
        hits = daemon.call("search", timeout=CLIENT_WAIT_S, query="anchortoken", **{"in": [scope]})
        assert [hit["source"] for hit in hits["results"]] == ["anchor.md"]
    finally:
        hung.release()
        assert daemon.stop() == 0


def test_a_request_s_look_ups_share_one_deadline(tmp_path: Path) -> None:
    """Each `--in` path's look-up had the whole `disk_deadline_s` (fix23, item 5): on a
    slow mount where a look-up takes 0.6 deadlines, a search in two paths waited 1.2
    deadlines and was answered. Now the request's look-ups share one deadline."""
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "anchor.md").write_text("# Anchor\n\nThe anchortoken chain is 40 metres long.\n")
    (root / "sub" / "keel.md").write_text("# Keel\n\nThe anchortoken keel is painted.\n")
    # Outside the root, links to its folders: reaching the root through one takes the
    # `lstat` of its name (`realpath`), which the hook makes take 0.6 deadlines.
    (tmp_path / "slow-a").symlink_to(root)
    (tmp_path / "slow-b").symlink_to(root / "sub")
    deadline = 2.0
    hung = HungStat(tmp_path, "slow-*", for_s=0.6 * deadline)
    env = hung.env() | {"RAG_DISK_DEADLINE_S": str(deadline)}
    daemon = Daemon(tmp_path / "d", [root], env=env).start()
    try:
        daemon.wait_idle()
        one = daemon.call(
            "search",
            timeout=CLIENT_WAIT_S,
            query="anchortoken",
            **{"in": [str(tmp_path / "slow-b")]},
        )
        assert [hit["source"] for hit in one["results"]] == ["sub/keel.md"]  # 0.6 deadlines
        assert hung.calls() == ["slow-b"]

        both = [str(tmp_path / "slow-a"), str(tmp_path / "slow-b")]
        (answer,) = answers_of_many_calls(
            daemon, "search", 1, CLIENT_WAIT_S, query="anchortoken", **{"in": both}
        )
        assert "did not answer within 2 s" in answer and "slow-b" in answer, answer
        assert hung.calls() == ["slow-b", "slow-a", "slow-b"]  # 1.2 deadlines' worth asked
    finally:
        hung.release()
        assert daemon.stop() == 0
