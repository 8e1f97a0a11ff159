"""The door (serve/door.py) holds the ipc:// socket in a process of its own and relays
to the server. When it ends — its guard dropping every connection near the open-file
limit, libzmq's abort in a flood, a `kill` — the server starts another without holding
its loop, a client whose request was lost is told it was dropped and to try again, and a
door that cannot listen again stops the daemon in one line (CannotListen), never leaving
it deaf.

Real ZeroMQ sockets, real door processes; the doors are ended with signals.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragcli.transport import Connection
from ragd.serve import door_keeper
from ragd.serve import server as server_module
from ragd.serve.server import Request, Route, Server
from ragproto.errors import Busy, CannotListen, RagError


def turn_until(server: Server, done: Callable[[], object], turns: int = 3000) -> None:
    for _ in range(turns):
        if done():
            return
        server.poll_once(20)
    raise AssertionError("the server's loop did not get there")


def door_pid(server: Server) -> int:
    door = server._door
    assert door is not None and door.proc is not None  # ipc://: a door
    return door.proc.pid


def kill_door(server: Server, sig: int = signal.SIGABRT) -> int:
    pid = door_pid(server)
    os.kill(pid, sig)
    return pid


def test_a_door_ended_is_started_again_without_holding_the_loop(tmp_path: Path) -> None:
    """Binding touches the socket's folder (its checks, the stale name's unlink, the
    bind, a chmod), which a stalled mount holds: it happens in the new door's process,
    and the loop turns meanwhile."""
    path = tmp_path / "run" / "s.sock"
    server = pinging_server(path)
    try:
        first = kill_door(server)
        turn_until(server, lambda: door_pid(server) != first)
        # The turn that started the new door returned before it listens: the loop did
        # not wait for it (its "listening" is read on a later turn).
        assert server._door_ended is not None
        assert server.drops.times == 1  # SIGABRT: libzmq's way of ending it
        turn_until(server, lambda: server._door_ended is None)
        answered = call_beside(server, path, "ping")
        assert answered["pong"] is True
        assert stat.S_IMODE(os.lstat(path).st_mode) == 0o600
    finally:
        server.close()
    assert not path.exists()
    assert [p.name for p in path.parent.iterdir()] == []  # the private socket too


def test_a_flood_s_drops_are_said_once_a_minute_and_counted_every_time(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """review46: a sustained flood logged about 1.4 lines a second, one per drop. Now one
    line a minute at most (FLOOD_LINE_S), the next saying how many were not; every drop
    is still noted for `ping` and `rag status`. A `kill` is said every time."""
    path = tmp_path / "run" / "s.sock"
    server = pinging_server(path)
    try:
        with caplog.at_level("WARNING", logger="ragd.serve.server"):
            for sig in (signal.SIGABRT, signal.SIGABRT, signal.SIGABRT, signal.SIGKILL):
                pid = kill_door(server, sig)
                turn_until(
                    server, lambda pid=pid: door_pid(server) != pid and not server._door_ended
                )
        assert server.drops.times == 3  # the three aborts: libzmq's way at the limit
        said = [r.getMessage() for r in caplog.records if "listening again" in r.getMessage()]
        assert len(said) == 2, said
        assert "SIGABRT" in said[0] and "SIGKILL" in said[1]
        assert server._flood_unsaid == 2
        server._flood_said_at -= server_module.FLOOD_LINE_S  # a minute on
        caplog.clear()
        with caplog.at_level("WARNING", logger="ragd.serve.server"):
            pid = kill_door(server)
            turn_until(server, lambda: door_pid(server) != pid and not server._door_ended)
        [line] = [r.getMessage() for r in caplog.records if "listening again" in r.getMessage()]
        assert line.endswith("listening again (2 more such drops since the last line)")
    finally:
        server.close()


def test_a_door_killed_is_no_drop_for_the_open_file_limit(tmp_path: Path) -> None:
    """A `kill -9` of the door is not the limit: the log says how it ended, and `ping`
    does not tell clients it was too many connections."""
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    server.bind()
    try:
        first = kill_door(server, signal.SIGKILL)
        turn_until(server, lambda: door_pid(server) != first and server._door_ended is None)
        assert server.drops.times == 0
    finally:
        server.close()


def test_a_door_ended_before_it_listens_is_started_again(tmp_path: Path) -> None:
    """A door ended while it starts (a second `kill -9`; a flood that aborts it the moment
    it binds) stopped the daemon with CannotListen, though nothing said it could not
    listen: `rag` then found no daemon at all."""
    path = tmp_path / "run" / "s.sock"
    server = pinging_server(path)
    try:
        first = kill_door(server, signal.SIGKILL)
        turn_until(server, lambda: door_pid(server) != first)
        assert server._door is not None and not server._door.listening  # still starting
        second = kill_door(server, signal.SIGKILL)
        turn_until(
            server,
            lambda: door_pid(server) not in (first, second) and server._door_ended is None,
        )
        assert call_beside(server, path, "ping")["pong"] is True
    finally:
        server.close()


def _first_doors_killed(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    """The first `times` doors are killed the moment they are started (a flood aborting
    one as it binds), before they can listen."""
    killed: list[int] = []
    spawn = door_keeper.Door._spawn

    def spawn_and_kill(door: door_keeper.Door) -> None:
        spawn(door)
        if len(killed) < times:
            assert door.proc is not None
            door.proc.kill()
            killed.append(door.proc.pid)

    monkeypatch.setattr(door_keeper.Door, "_spawn", spawn_and_kill)
    return killed


def test_a_first_door_ended_before_it_listens_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """review46: the first start was not tried again, so a door killed as the daemon
    started stopped the daemon, though another door would have listened."""
    killed = _first_doors_killed(monkeypatch, 2)
    path = tmp_path / "run" / "s.sock"
    with caplog.at_level("WARNING", logger="ragd.serve.server"):
        server = pinging_server(path)
    try:
        assert len(killed) == 2 and door_pid(server) not in killed
        assert call_beside(server, path, "ping")["pong"] is True
        said = [r.getMessage() for r in caplog.records]
        assert len([m for m in said if "SIGKILL at start; starting another" in m]) == 2
    finally:
        server.close()


def test_a_first_door_that_keeps_ending_refuses_the_start_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragd.serve.server import DEAF_STARTS

    killed = _first_doors_killed(monkeypatch, 100)
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    with pytest.raises(OSError, match="SIGKILL at start") as raised:
        server.bind()
    assert len(killed) == DEAF_STARTS + 1 and "\n" not in str(raised.value)
    assert not path.exists() and [p.name for p in path.parent.iterdir()] == []


def test_a_door_that_keeps_ending_before_it_listens_stops_the_daemon_in_one_line(
    tmp_path: Path,
) -> None:
    """Started again without end, a door that never gets to listen would leave the daemon
    deaf and spinning: after a few tries, CannotListen."""
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    server.bind()
    ends = 0
    try:
        with pytest.raises(CannotListen) as raised:
            for ends in range(1, 20):  # noqa: B007 (counted for the assertion below)
                pid = kill_door(server, signal.SIGKILL)
                turn_until(server, lambda pid=pid: door_pid(server) != pid)
        said = str(raised.value)
        assert "SIGKILL" in said and str(path) in said and "\n" not in said
        assert 2 < ends < 10
    finally:
        server.close()


def test_a_door_stopped_by_a_signal_is_ended_and_another_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A door stopped (SIGSTOP) holds the socket and answers nobody: every client's
    handshake timed out, `rag status` too, while the daemon ran on and noticed nothing.
    Stopped for its bound (the whole group stopped by Ctrl-Z is continued together), it is
    ended and another listens."""
    monkeypatch.setattr(door_keeper, "STOPPED_S", 0.5)
    path = tmp_path / "run" / "s.sock"
    server = pinging_server(path)
    try:
        stopped = kill_door(server, signal.SIGSTOP)
        turn_until(server, lambda: door_pid(server) != stopped and server._door_ended is None)
        assert call_beside(server, path, "ping")["pong"] is True
        assert server.drops.times == 0  # not the open-file limit
    finally:
        server.close()
    [said] = [r.getMessage() for r in caplog.records if "listening again" in r.getMessage()]
    assert "stopped" in said and str(stopped) in said


def test_a_private_socket_removed_is_made_again_for_the_next_door(tmp_path: Path) -> None:
    """The server's private name beside the socket is a hidden file a cleaner may remove
    (systemd-tmpfiles' age in /tmp, an `rm` of the folder's dot files). The next door
    connected to nobody: it said `listening`, and every request waited out its timeout."""
    path = tmp_path / "run" / "s.sock"
    server = pinging_server(path)
    try:
        [private] = [p for p in path.parent.iterdir() if p.name.startswith(".")]
        private.unlink()
        first = kill_door(server, signal.SIGKILL)
        turn_until(server, lambda: door_pid(server) != first and server._door_ended is None)
        assert call_beside(server, path, "ping")["pong"] is True
        [again] = [p for p in path.parent.iterdir() if p.name.startswith(".")]
        assert stat.S_IMODE(os.lstat(again).st_mode) == 0o600
    finally:
        server.close()
    assert [p.name for p in path.parent.iterdir()] == []


def test_a_socket_folder_that_cannot_take_the_socket_again_stops_the_daemon_in_one_line(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    server = Server(f"ipc://{run / 's.sock'}", pending=lambda: 0)
    server.bind()
    try:
        # The folder goes (a cleaner, a logout) and a file takes its name: the socket
        # cannot be made there again.
        moved = tmp_path / "moved"
        run.rename(moved)
        run.write_text("not a folder\n")
        kill_door(server)
        with pytest.raises(CannotListen) as raised:
            turn_until(server, lambda: False)
        said = str(raised.value)
        assert str(run / "s.sock") in said and "connections" in said
        assert "\n" not in said
    finally:
        server.close()
        shutil.rmtree(tmp_path / "moved", ignore_errors=True)


def test_a_request_lost_in_the_drop_is_told_it_was_dropped_and_to_try_again(
    tmp_path: Path,
) -> None:
    """`rag` said "ragd stopped before answering" while the daemon ran on."""
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    running, release = threading.Event(), threading.Event()

    def slow(request: Request) -> dict[str, Any]:
        running.set()
        release.wait(60)
        return {}

    server.serve(
        [
            Route("slow", "search", slow),
            Route("ping", "loop", lambda r: {"connections_dropped": server.drops.recent()}),
        ]
    )
    server.bind()
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            server.poll_once(20)

    errors: list[RagError] = []

    def ask_slowly() -> None:
        conn = Connection(f"ipc://{path}")
        try:
            conn.call("slow", {}, timeout_s=60)
        except RagError as exc:
            errors.append(exc)
        finally:
            conn.close()

    looper, client = threading.Thread(target=loop), threading.Thread(target=ask_slowly)
    looper.start()
    client.start()
    try:
        assert running.wait(30)
        kill_door(server)  # as libzmq ends it in a flood
        client.join(60)
        assert not client.is_alive()
        assert server.drops.times == 1
        [error] = errors
        assert isinstance(error, Busy)  # exit 4: try again
        said = str(error)
        assert "dropped every connection" in said and "try again" in said
        assert "stopped" not in said
    finally:
        release.set()
        stop.set()
        looper.join(30)
        client.join(30)
        server.close()


def test_binding_leaves_folders_made_meanwhile_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The umask is the process's, not the thread's: while the server binds, the
    indexer's threads make folders under the umask it set. One of 0o177 made them 0600,
    folders the daemon could not enter."""
    made: list[Path] = []
    set_umask = os.umask

    def umask_then_a_folder(mask: int) -> int:
        previous = set_umask(mask)
        made.append(tmp_path / f"made-{len(made)}")
        made[-1].mkdir()  # what another thread does at this moment
        return previous

    monkeypatch.setattr(os, "umask", umask_then_a_folder)
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    try:
        server.bind()
        monkeypatch.undo()
        assert path.stat().st_mode & 0o777 == 0o600  # the socket still ends owner-only
    finally:
        monkeypatch.undo()
        server.close()
    assert made
    for folder in made:
        assert folder.stat().st_mode & stat.S_IRWXU == stat.S_IRWXU, oct(folder.stat().st_mode)


def pinging_server(path: Path) -> Server:
    """A bound server through a door, answering `ping` with pong."""
    server = Server(f"ipc://{path}", pending=lambda: 0)
    server.serve([Route("ping", "loop", lambda r: {"pong": True})])
    server.bind()
    return server


def call_beside(server: Server, path: Path, op: str) -> dict[str, Any]:
    """A client's call, answered by the loop turning on this thread."""
    result: list[dict[str, Any]] = []

    def ask() -> None:
        conn = Connection(f"ipc://{path}")
        try:
            result.append(conn.call(op, {}, timeout_s=10))
        finally:
            conn.close()

    asker = threading.Thread(target=ask)
    asker.start()
    turn_until(server, lambda: not asker.is_alive())
    asker.join()
    assert result, "no answer"
    return result[0]


def test_the_private_socket_takes_a_crashs_leftover_and_never_a_users_file(
    tmp_path: Path,
) -> None:
    """`.NAME.d` beside the socket: a leftover of a daemon killed outright is taken again
    (not one more hidden name per crash); a file of the user's by that name is kept, and
    a name of its own used instead."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    leftover = run / ".s.sock.d"
    with socket.socket(socket.AF_UNIX) as dead:
        dead.bind(str(leftover))  # a socket nobody accepts on, as a crash leaves it
    server = Server(f"ipc://{run / 's.sock'}", pending=lambda: 0)
    server.bind()
    try:
        assert server._inner == leftover
        server.serve([Route("ping", "loop", lambda r: {"pong": True})])
        assert call_beside(server, run / "s.sock", "ping")["pong"] is True
    finally:
        server.close()
    assert not leftover.exists()

    leftover.write_text("the user's own notes\n")
    server = Server(f"ipc://{run / 's.sock'}", pending=lambda: 0)
    server.bind()
    try:
        assert server._inner is not None and server._inner != leftover
        assert len(server._inner.name) <= len("s.sock")
    finally:
        server.close()
    assert leftover.read_text() == "the user's own notes\n"
