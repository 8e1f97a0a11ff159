"""A thousand idle connections to the socket cannot kill the daemon.

libzmq aborts the process when it accepts a connection past the open-file limit. Under a
soft limit of 1,024 (a login shell's, a systemd service's), 1,100 connections that never
speak killed the daemon with SIGABRT ("Too many open files (src/ipc_listener.cpp:297)").
The daemon now raises its soft limit to the hard one at start (`core/open_files.py`).
A hard limit too low to serve anyone is refused at start, in one line. The connections
are held by the door (serve/door.py), the process of its own that listens on the socket:
when it dies, the daemon starts another and goes on serving.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import socket
import stat
import subprocess
import time
from pathlib import Path

from ragcli.drop_probe import dropped_since
from ragd.core.exit_codes import ServeExit
from ragd.core.proc_stat import proc_stat
from tests.support.daemon import BIN, Daemon, base_env, wait_for
from tests.support.processes import live_children

DOOR = "ragd.serve.door"


def the_door(d: Daemon) -> int:
    """The pid of the daemon's door, once there is one."""
    pid: int = wait_for(
        lambda: min(live_children(d.proc.pid, DOOR), default=0),  # type: ignore[union-attr]
        30,
        "the door",
    )
    return pid


SOFT, HARD = 1024, 4096
CONNECTIONS = 1100


def test_a_thousand_idle_connections_leave_the_daemon_serving(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    # Started as a desktop starts it: 1,024 open files (soft), more allowed (hard).
    d = Daemon(tmp_path, [root], limits={resource.RLIMIT_NOFILE: (SOFT, HARD)}).start()
    idle: list[socket.socket] = []
    try:
        d.wait_idle()
        door = the_door(d)
        for pid in (d.proc.pid, door):  # type: ignore[union-attr]
            assert f"Max open files            {HARD}" in Path(f"/proc/{pid}/limits").read_text()
        fds = Path(f"/proc/{door}/fd")
        for _ in range(CONNECTIONS):
            idle.append(connected(d.socket))
        # Every connection accepted (libzmq takes them from a backlog of 100 at its pace)
        wait_for(lambda: len(list(fds.iterdir())) > CONNECTIONS, 60, "the connections taken")
        (root / "b.md").write_text("# B\n\nThe ptarmiganite gleams in the snow.\n")
        wait_for(lambda: d.sources("ptarmiganite") == ["b.md"], 60, "b.md indexed")
        d.assert_alive()
        assert d.rag("status").returncode == 0
    finally:
        hang_up(idle)
        d.stop()


def test_a_hard_limit_too_low_to_serve_is_refused_at_start(tmp_path: Path) -> None:
    """Under `prlimit --nofile=48:48` the daemon started, used 43 descriptors by itself,
    skipped its root ("cannot read folder (Too many open files)") and died of SIGABRT at
    the first `rag status` (libzmq: "Too many open files (src/ipc_listener.cpp:297)")."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))

    command = [str(BIN / "ragd"), "serve", str(root), "--data-dir", str(tmp_path / "d")]
    command += ["--socket", str(tmp_path / "s.sock")]
    with subprocess.Popen(
        command,
        env=base_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=low_limit,
    ) as proc:
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise AssertionError("ragd started under 48 open files; it dies at a client") from None
    assert proc.returncode == ServeExit.NEEDS_FIX, err
    assert err.splitlines() == [
        "ragd: ragd may have only 48 open files (RLIMIT_NOFILE; its hard limit is 48); it uses "
        "about 50 itself and one for each client connected, and libzmq ends the process when "
        "none is left: raise the limit to at least 256 (`ulimit -n 256` before `ragd serve`, "
        "LimitNOFILE= in a systemd unit)"
    ]
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").iterdir())


def test_connections_up_to_a_low_hard_limit_are_dropped_not_fatal(tmp_path: Path) -> None:
    """Under a hard limit of 300 (allowed: at least 256), about 260 idle connections took
    every descriptor and libzmq ended the daemon with SIGABRT ("Too many open files
    (src/ipc_listener.cpp:297)"). Now the connection guard drops them before that."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    limit = 300
    started = time.time()
    d = Daemon(tmp_path, [root], limits={resource.RLIMIT_NOFILE: (limit, limit)}).start()
    idle: list[socket.socket] = []
    try:
        d.wait_idle()
        while len(idle) < limit + 50 and d.proc.poll() is None:  # type: ignore[union-attr]
            with contextlib.suppress(FileNotFoundError):  # the instant it listens again
                idle.append(connected(d.socket))
        # The guard's drop, or (a flood faster than its loop) libzmq's abort of the door:
        # either way one line, and the daemon listens again.
        d.wait_log("listening again")
        d.assert_alive()
        hang_up(idle)
        status = d.rag("status")
        assert status.returncode == 0
        # Said for a while after, not only in the log; and a client that lost its request
        # to the drop learns it from `ping` (the daemon's real handler).
        assert "dropped    every connection" in status.stdout, status.stdout
        said = dropped_since(f"ipc://{d.socket}", opened_at=started)
        assert said is not None and "try again" in str(said)
        assert dropped_since(f"ipc://{d.socket}", opened_at=time.time()) is None
    finally:
        hang_up(idle)
        d.stop()


def hang_up(peers: list[socket.socket]) -> None:
    for peer in peers:
        peer.close()
    peers.clear()


def connected(path: Path) -> socket.socket:
    """A connection that never speaks; retried while the listen backlog is full."""

    def attempt() -> socket.socket | None:
        peer = socket.socket(socket.AF_UNIX)
        try:
            peer.connect(str(path))
        except (BlockingIOError, ConnectionRefusedError):
            peer.close()
            return None
        return peer

    peer: socket.socket = wait_for(attempt, 30, "a connection", interval=0.01)
    return peer


def test_a_door_that_dies_is_replaced_and_the_daemon_serves_on(tmp_path: Path) -> None:
    """libzmq aborts the process whose ipc:// listener meets EMFILE, faster than any guard
    reading its monitor can prevent in a flood: 350 connections in a tight loop under a
    limit of 300 killed the daemon with SIGABRT in 1 of 3 runs. That process is now the
    door alone. Here it dies as libzmq ends it (SIGABRT), and then as a user's `kill -9`
    would: each time the daemon says so in one line, starts another, answers through it,
    and the index is untouched."""
    d = Daemon(tmp_path, [zebrafinch_notes(tmp_path)]).start()
    try:
        d.wait_idle()
        seen = 0
        for sig in (signal.SIGABRT, signal.SIGKILL):
            door = the_door(d)
            os.kill(door, sig)
            seen = d.wait_log(f"(serve/door.py) was ended by {sig.name}", after=seen)
            seen = d.wait_log("listening again", after=seen)
            wait_for(lambda door=door: the_door(d) != door, 30, "another door")
            assert d.sources("zebrafinch") == ["a.md"]
            d.assert_alive()
        assert mode(d.socket) == 0o600
        # Its private socket is beside the public one, owner-only, and the only other name.
        beside = [p for p in d.socket.parent.iterdir() if p.name.startswith(".")]
        assert len(beside) == 1 and mode(beside[0]) == 0o600
    finally:
        d.stop()
    assert not live_children(d.proc.pid, DOOR)  # type: ignore[union-attr]
    assert not d.socket.exists() and not beside[0].exists()


def test_the_door_leaves_with_a_daemon_that_is_killed(tmp_path: Path) -> None:
    """A daemon killed outright (the OOM killer, `kill -9`) must not leave its door
    listening: a new daemon would find the socket taken by a process that relays to
    nobody."""
    d = Daemon(tmp_path, [zebrafinch_notes(tmp_path)]).start()
    try:
        d.wait_idle()
        door = the_door(d)
        d.proc.kill()  # type: ignore[union-attr]
        d.proc.wait()  # type: ignore[union-attr]
        wait_for(lambda: not Path(f"/proc/{door}").exists() or zombie(door), 30, "the door gone")
    finally:
        d.stop()


def zombie(pid: int) -> bool:
    line = proc_stat(pid)
    return line is None or line.state in ("Z", "X")  # (None: reaped since)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def zebrafinch_notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    return root
