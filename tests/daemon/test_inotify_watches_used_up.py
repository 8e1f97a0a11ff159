"""A root the kernel will not watch (the user's inotify watches used up) costs that root its
events, not the daemon its life.

`fs.inotify.max_user_watches` is shared by every program of the user (editors, sync
clients, other daemons). Before: with the watches used up, the first root whose watch could
not be set ended `ragd serve` at start-up ("start-up failed while starting the watcher",
OSError: inotify watch limit reached), so nothing was served; added later by `rag ingest`,
such a root was indexed once and then silently never again.

The limit is set for the daemon alone: it runs in a user namespace of its own
(`unshare --user --map-root-user`), whose `/proc/sys/user/max_inotify_watches` it may lower
without touching the machine's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for

WATCHES = 2  # three roots of one folder each: one is left without a watch
RESCAN_WAIT_S = 120.0  # the rescan comes every 30 s; this is only the test's deadline


def _can_limit_watches() -> str:
    unshare = shutil.which("unshare")
    if unshare is None:
        return "unshare is not installed"
    probe = subprocess.run(
        [
            unshare,
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            "echo 5 > /proc/sys/user/max_inotify_watches",
        ],
        capture_output=True,
        text=True,
    )
    return "" if probe.returncode == 0 else f"no user namespace here: {probe.stderr.strip()}"


class WatchLimited(Daemon):
    def command_prefix(self) -> list[str]:
        return [
            "unshare",
            "--user",
            "--map-root-user",
            "sh",
            "-c",
            f'echo {WATCHES} > /proc/sys/user/max_inotify_watches && exec "$@"',
            "sh",
        ]


def _found(daemon: Daemon, token: str) -> bool:
    hits = daemon.search(token, mode="bm25")["results"]
    return any(token in hit["text"] for hit in hits)


def test_a_root_left_without_a_watch_is_rescanned_and_the_daemon_serves(tmp_path: Path) -> None:
    why = _can_limit_watches()
    if why:
        pytest.skip(why)
    roots = []
    for name in ("anchors", "buoys", "cleats"):
        root = tmp_path / name
        root.mkdir()
        (root / "note.md").write_text(f"# {name}\n\nThe {name}firsttoken note is here.\n")
        roots.append(root)
    daemon = WatchLimited(tmp_path / "d", roots)
    daemon.start()  # before: exited at start-up
    try:
        status = daemon.wait_idle()
        unwatched = [e for e in status["errors"] if "not watched" in e["reason"]]
        assert len(unwatched) == 1, status["errors"]
        assert "fs.inotify.max_user_watches" in unwatched[0]["reason"]
        left = tmp_path / unwatched[0]["source"]
        assert left in roots
        for root in roots:
            assert _found(daemon, f"{root.name}firsttoken")
        assert daemon.log().count("cannot watch root") == 1

        # A change in the root without a watch reaches the index by the rescan; one in a
        # watched root by its event, as always.
        (left / "later.md").write_text("# Later\n\nThe laterwavetoken arrived after start.\n")
        watched = next(r for r in roots if r != left)
        (watched / "later.md").write_text("# Later\n\nThe watchedwavetoken arrived too.\n")
        wait_for(lambda: _found(daemon, "watchedwavetoken"), 60, "the watched root's edit")
        wait_for(lambda: _found(daemon, "laterwavetoken"), RESCAN_WAIT_S, "the rescan")
        assert daemon.log().count("cannot watch root") == 1  # said once, not per retry
    finally:
        assert daemon.stop() == 0
