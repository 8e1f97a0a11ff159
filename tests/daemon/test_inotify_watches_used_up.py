"""A root the kernel will not watch (the user's inotify watches used up) costs that root its
events, not the daemon its life.

`fs.inotify.max_user_watches` is shared by every program of the user (editors, sync
clients, other daemons). Before: with the watches used up, the first root whose watch could
not be set ended `ragd serve` at start-up ("start-up failed while starting the watcher",
OSError: inotify watch limit reached), so nothing was served; added later by `rag ingest`,
such a root was indexed once and then silently never again.

The limit is set for the daemon alone: it runs in a user namespace of its own
(`unshare --user --map-root-user`), whose `/proc/sys/user/max_inotify_watches` it may lower
without touching the machine's.

The rescan period is a setting (`unwatched_rescan_s`, 30 s by default); these daemons run
with RESCAN_S (1 s, the least the setting takes), so a test waits about a second for each
rescan rather than half a minute: the same retry and sync, sooner."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.support.daemon import Daemon, wait_for

WATCHES = 2  # three roots of one folder each: one is left without a watch
RESCAN_S = 1  # `unwatched_rescan_s` for these daemons (RAG_UNWATCHED_RESCAN_S): the least
RESCAN_WAIT_S = 60.0  # the rescan comes every RESCAN_S; this is only the test's deadline


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


class Rescanning(Daemon):
    """A daemon whose roots without (every) watch are rescanned every RESCAN_S."""

    def __init__(self, tmp: Path, roots: list[Path]) -> None:
        super().__init__(tmp, roots, env={"RAG_UNWATCHED_RESCAN_S": str(RESCAN_S)})


class InOwnUserNamespace(Rescanning):
    """Run in a user namespace whose /proc/sys/user `user_limits` are lowered: executed through
    `unshare` and a shell, or forked, the child doing the same itself
    (tests/support/fork_server.py: `enter_user_namespace`)."""

    user_limits: ClassVar[dict[str, int]] = {}

    def command_prefix(self) -> list[str]:
        lowered = " && ".join(f"echo {v} > /proc/sys/user/{k}" for k, v in self.user_limits.items())
        return ["unshare", "--user", "--map-root-user", "sh", "-c", f'{lowered} && exec "$@"', "sh"]

    def instead_of_prefix(self) -> dict[str, Any] | None:
        return {"user_namespace": self.user_limits}


class WatchLimited(InOwnUserNamespace):
    user_limits: ClassVar[dict[str, int]] = {"max_inotify_watches": WATCHES}


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
        assert f"a rescan every {RESCAN_S} s" in unwatched[0]["reason"]  # the setting's
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


SUB_WATCHES = 3  # one root of four folders: the root's watch and two folders' watches
FOLDERS = ("alpha", "bravo", "charlie", "delta")


class SubfolderLimited(InOwnUserNamespace):
    user_limits: ClassVar[dict[str, int]] = {"max_inotify_watches": SUB_WATCHES}


def _partly(daemon: Daemon) -> list[dict[str, str]]:
    return [e for e in daemon.status()["errors"] if "partly watched" in e["reason"]]


def _raise_limit(daemon: Daemon, limit: str, value: int) -> None:
    """Watches or instances free again: `/proc/sys/user/<limit>` raised inside the
    daemon's own user namespace."""
    assert daemon.proc is not None
    subprocess.run(
        [
            "nsenter",
            "--user",
            f"--target={daemon.proc.pid}",
            "sh",
            "-c",
            f"echo {value} > /proc/sys/user/{limit}",
        ],
        check=True,
    )


def test_folders_left_without_a_watch_are_said_and_rescanned(tmp_path: Path) -> None:
    """The root's watch set, some of its folders' refused: watchdog (7.x) skips a folder
    whose watch the kernel refuses without a word, so edits there were never seen."""
    why = _can_limit_watches()
    if why:
        pytest.skip(why)
    root = tmp_path / "docs"
    for name in FOLDERS:
        (root / name).mkdir(parents=True)
        (root / name / "note.md").write_text(f"# {name}\n\nThe {name}firsttoken note.\n")
    daemon = SubfolderLimited(tmp_path / "d", [root])
    daemon.start()
    try:
        daemon.wait_idle()
        # The watches are set beside the first scan, so "idle" can come a moment before
        # the refusal is counted (testtime75's loaded run saw it on the next status).
        partly = wait_for(lambda: _partly(daemon), 60, "the unwatched folders said")
        assert len(partly) == 1, daemon.status()["errors"]
        assert partly[0]["source"] == "docs"
        assert "2 folders unwatched" in partly[0]["reason"]
        assert "fs.inotify.max_user_watches" in partly[0]["reason"]
        assert daemon.log().count("cannot watch 2 folders of root docs") == 1
        for name in FOLDERS:
            assert _found(daemon, f"{name}firsttoken")

        # An edit in every folder: the watched ones by their events, the others by the
        # rescan (before: never, the index stale without a word).
        for name in FOLDERS:
            (root / name / "later.md").write_text(f"# Later\n\nThe {name}latertoken edit.\n")
        for name in FOLDERS:
            wait_for(lambda n=name: _found(daemon, f"{n}latertoken"), RESCAN_WAIT_S, name)

        # A folder made later, when no watch is left: its refusal is counted at once, and
        # a file written into it afterwards is found by the rescan.
        (root / "echo").mkdir()
        wait_for(
            lambda: any("3 folders unwatched" in e["reason"] for e in _partly(daemon)),
            60,
            "the new folder counted as unwatched",
        )
        (root / "echo" / "late.md").write_text("# Late\n\nThe echolatetoken edit.\n")
        wait_for(lambda: _found(daemon, "echolatetoken"), RESCAN_WAIT_S, "the new folder")
        assert daemon.log().count("cannot watch") == 1  # said once, not per retry

        # Watches free again: the root's watches are set again and the error clears; an
        # edit in a folder that had none is then found.
        _raise_limit(daemon, "max_inotify_watches", 100)
        wait_for(lambda: not _partly(daemon), RESCAN_WAIT_S, "the error to clear")
        daemon.wait_log("watching every folder of root docs again")
        (root / "echo" / "last.md").write_text("# Last\n\nThe echolasttoken edit.\n")
        wait_for(lambda: _found(daemon, "echolasttoken"), 60, "the edit after the limit")
    finally:
        assert daemon.stop() == 0


class NoInstances(InOwnUserNamespace):
    """The user's inotify instances used up (`fs.inotify.max_user_instances`, 128 by
    default and one per program watching files): none left for the daemon."""

    user_limits: ClassVar[dict[str, int]] = {"max_inotify_instances": 0}


def test_no_inotify_instance_left_leaves_every_root_rescanned(tmp_path: Path) -> None:
    why = _can_limit_watches()
    if why:
        pytest.skip(why)
    roots = []
    for name in ("anchors", "buoys"):
        root = tmp_path / name
        root.mkdir()
        (root / "note.md").write_text(f"# {name}\n\nThe {name}firsttoken note is here.\n")
        roots.append(root)
    daemon = NoInstances(tmp_path / "d", roots)
    daemon.start()  # before: "start-up failed while starting the watcher", exit 1
    try:
        status = daemon.wait_idle()
        unwatched = [e for e in status["errors"] if "not watched" in e["reason"]]
        assert sorted(e["source"] for e in unwatched) == ["anchors", "buoys"], status["errors"]
        assert all("fs.inotify.max_user_instances" in e["reason"] for e in unwatched)
        for root in roots:
            assert _found(daemon, f"{root.name}firsttoken")
        (roots[0] / "later.md").write_text("# Later\n\nThe laterwavetoken arrived.\n")
        wait_for(lambda: _found(daemon, "laterwavetoken"), RESCAN_WAIT_S, "the rescan")

        # An instance free again: the roots are watched at the next try and the errors clear.
        _raise_limit(daemon, "max_inotify_instances", 8)
        wait_for(
            lambda: not [e for e in daemon.status()["errors"] if "not watched" in e["reason"]],
            RESCAN_WAIT_S,
            "the roots to be watched",
        )
        (roots[1] / "last.md").write_text("# Last\n\nThe lastwavetoken arrived.\n")
        wait_for(lambda: _found(daemon, "lastwavetoken"), 60, "the edit by its event")
    finally:
        assert daemon.stop() == 0
