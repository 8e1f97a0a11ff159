"""A root whose folder becomes a link to another root's folder is not indexed twice.

`rm -rf beta; ln -s alpha beta` under a live daemon watching both: before, the root check
saw beta's new folder, watched and synced it, and alpha's files were indexed a second
time as `beta/…`, so every search found each of alpha's passages twice (and an edit in
alpha was indexed twice). `rag ingest` of such a link already re-reads the root it leads
to instead; now the running daemon does the same (one warning, neither watched nor
walked), and watches beta again once it is a folder of its own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.support.daemon import Daemon, wait_for


def _sources(daemon: Daemon, token: str) -> list[str]:
    hits = daemon.search(token, top_k=10, mode="bm25")["results"]
    return sorted(hit["source"] for hit in hits if token in hit["text"])


def test_a_root_replaced_by_a_link_to_another_root_is_not_indexed_twice(tmp_path: Path) -> None:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    (alpha / "winch.md").write_text("# Winch\n\nThe winch holds gribbletoken line.\n")
    (beta / "keel.md").write_text("# Keel\n\nThe keel holds keelonlytoken ballast.\n")
    daemon = Daemon(tmp_path / "d", [alpha, beta]).start()
    try:
        daemon.wait_idle()
        assert _sources(daemon, "gribbletoken") == ["alpha/winch.md"]

        before = len(daemon.log())
        shutil.rmtree(beta)
        os.symlink("alpha", beta)
        # The root check has looked at beta's new folder (before: "watching root beta
        # afresh and syncing it"), and the removal was seen; the watcher and the indexer
        # log these from their own threads, in either order.
        daemon.wait_log("removed beta/keel.md", after=before)
        daemon.wait_log("root beta", after=before)
        daemon.wait_idle()
        assert _sources(daemon, "keelonlytoken") == []  # its own file is gone
        assert _sources(daemon, "gribbletoken") == ["alpha/winch.md"]  # before: and beta/…
        (alpha / "later.md").write_text("# Later\n\nThe later note says twinetoken.\n")
        wait_for(lambda: _sources(daemon, "twinetoken"), 60, "alpha's new file")
        daemon.wait_idle()
        assert _sources(daemon, "twinetoken") == ["alpha/later.md"]
        assert "not watching root beta: it now leads to the folder of root alpha" in daemon.log()

        # A folder of its own again: watched and synced as before.
        beta.unlink()
        beta.mkdir()
        (beta / "mast.md").write_text("# Mast\n\nThe mast carries masttoken sails.\n")
        wait_for(lambda: _sources(daemon, "masttoken"), 60, "beta's new file")
        assert _sources(daemon, "gribbletoken") == ["alpha/winch.md"]
    finally:
        assert daemon.stop() == 0
