"""The instance locks and the socket probe, in-process (the real-process view is in
test_service_instance.py)."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragd.app.instance import AlreadyRunning, Held, Instance, InstanceLock, socket_peer_pid


def test_a_held_lock_names_its_holder(tmp_path: Path) -> None:
    first = InstanceLock(tmp_path / "ragd.lock")
    first.acquire({"pid": 4242, "socket": "ipc:///x.sock"})
    with pytest.raises(Held) as info:
        InstanceLock(tmp_path / "ragd.lock").acquire({"pid": 1})
    assert info.value.holder == {"pid": 4242, "socket": "ipc:///x.sock"}
    first.release()
    again = InstanceLock(tmp_path / "ragd.lock")
    again.acquire({"pid": 7})  # released: free again, and the record is replaced
    assert '"pid": 7' in (tmp_path / "ragd.lock").read_text()
    again.release()


def test_claim_checks_data_dir_then_socket(tmp_path: Path) -> None:
    sock = f"ipc://{tmp_path / 'run' / 'ragd.sock'}"
    running = Instance(tmp_path / "data", sock)
    running.claim()
    try:
        with pytest.raises(AlreadyRunning, match=f"pid {os.getpid()}, socket {sock}"):
            Instance(tmp_path / "data", f"ipc://{tmp_path / 'other.sock'}").claim()
        loser = Instance(tmp_path / "data2", sock)
        with pytest.raises(AlreadyRunning, match="is already listening on"):
            loser.claim()
        assert not loser.data_lock.held  # gave its data dir back
    finally:
        running.release()
    Instance(tmp_path / "data2", sock).claim()  # both free now


def test_probe_tells_a_live_socket_from_a_leftover(tmp_path: Path) -> None:
    path = tmp_path / "s.sock"
    assert socket_peer_pid(f"ipc://{path}") is None  # no file
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    assert socket_peer_pid(f"ipc://{path}") == os.getpid()
    server.close()  # like kill -9: the file stays, nobody listens
    assert path.exists()
    assert socket_peer_pid(f"ipc://{path}") is None
    assert socket_peer_pid("tcp://127.0.0.1:5555") is None  # not a file: nothing to probe


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a socket to another uid")
def test_another_users_listener_on_the_socket_is_not_called_a_ragd(tmp_path: Path) -> None:
    """`--socket /tmp/x.sock`: another local user listens on that name first. Found by
    attack (uid 1001 by `runuser`): `another ragd (pid 4380) is already listening …; stop
    it first`, exit 3 — a process that need not be ragd, which the user cannot stop."""
    from ragproto.errors import ConfigError

    path = tmp_path / "x.sock"
    theirs = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    theirs.bind(str(path))
    theirs.listen()
    os.chown(path, 65534, 65534)
    try:
        loser = Instance(tmp_path / "data", f"ipc://{path}")
        with pytest.raises(ConfigError, match="belongs to uid 65534, not to you") as refused:
            loser.claim()
        assert "another ragd" not in str(refused.value)
        assert not loser.data_lock.held  # gave its data dir back
    finally:
        theirs.close()


def test_a_refused_claim_removes_the_lock_file_it_made_and_keeps_one_that_was_there(
    tmp_path: Path,
) -> None:
    """fix25: a claim refused for a busy data dir left `<socket>.lock` behind."""
    running = Instance(tmp_path / "data", f"ipc://{tmp_path / 'run' / 'a.sock'}")
    running.claim()
    try:
        (tmp_path / "run" / "b.sock.lock").write_text("")  # a lock file from an earlier run
        for name in ("b.sock", "c.sock"):
            loser = Instance(tmp_path / "data", f"ipc://{tmp_path / 'run' / name}")
            with pytest.raises(AlreadyRunning, match="already using the data dir"):
                loser.claim()
        assert sorted(p.name for p in (tmp_path / "run").iterdir()) == [
            "a.sock.lock",
            "b.sock.lock",
        ]
    finally:
        running.release()


def test_two_starts_at_once_never_leave_the_served_data_dir_open_to_others(
    tmp_path: Path,
) -> None:
    """review25: an existing data dir of mode 755, two starts at once. The one refused
    put back the mode it had read before the other made the folder private, so the daemon
    that won served from a folder open to every user; and a start whose bind failed put
    the mode back after the winner had checked it. Each start now closes the folder while
    holding its lock, and a refused start puts the mode back only while it holds it."""
    data = tmp_path / "data"

    def instances() -> tuple[Instance, Instance]:
        data.mkdir(exist_ok=True)
        data.chmod(0o755)
        sockets = [f"ipc://{tmp_path / 'run' / name}" for name in ("a.sock", "b.sock")]
        return Instance(data, sockets[0]), Instance(data, sockets[1])

    def just_before(lock: InstanceLock, step: Callable[[], None]) -> None:
        """Run `step` as `lock` is about to be taken: another start's move in the race."""
        acquire = lock.acquire

        def racing(record: dict[str, Any]) -> None:
            step()
            acquire(record)

        lock.acquire = racing  # type: ignore[method-assign]

    # The loser looked at the folder first; the winner claimed it before the loser's lock.
    winner, loser = instances()
    just_before(loser.data_lock, winner.claim)
    with pytest.raises(AlreadyRunning, match="already using the data dir"):
        loser.claim()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    winner.release()

    # The first start held the folder and its bind failed while the second one started.
    failed, winner = instances()
    failed.claim()
    just_before(winner.data_lock, failed.abandon)
    winner.claim()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    winner.abandon()  # its bind failed too: the folder is the user's again, as it was
    assert stat.S_IMODE(data.stat().st_mode) == 0o755
