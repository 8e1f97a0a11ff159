"""When the connection guard drops every connection (serve/connection_guard.py), the
server unbinds and binds its ipc:// socket again, on a thread of its own. A client whose
request was lost in the drop is told so, and to try again, not that ragd stopped; the
drop is kept for `rag status` and STATUS=. If the bind fails, the daemon listens nowhere:
it must say why in one line and stop (CannotListen), never carry on deaf.

On real ZeroMQ sockets and real connections; only the guard's limit is lowered, so that
a few dozen connections reach it instead of thousands.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from ragcli.transport import Connection
from ragd.serve import server as server_module
from ragd.serve.connection_guard import open_descriptors
from ragd.serve.server import Request, Route, Server
from ragproto.errors import Busy, CannotListen, RagError


def lower_limit(server: Server) -> int:
    """The guard trips a few dozen connections from now."""
    guard = server._guard
    assert guard is not None  # ipc:// under a finite open-file limit
    guard.limit = open_descriptors() + guard.reserve + 8
    return guard.limit


def flood(
    path: Path, peers: list[socket.socket], most: int, step: Any = None, until: Any = None
) -> None:
    """Connect up to `most` idle peers to `path`, stopping when it no longer listens (or
    `until()`). They are this process's descriptors too: left open, they would trip the
    guard again once it counts."""
    for _ in range(most):
        if until is not None and until():
            return
        peer = socket.socket(socket.AF_UNIX)
        peers.append(peer)
        try:
            peer.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return  # unbound: the guard has dropped them
        if step is not None:
            step()


def test_a_socket_folder_that_cannot_take_the_socket_again_stops_the_daemon_in_one_line(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    server = Server(f"ipc://{run / 's.sock'}", pending=lambda: 0)
    server.bind()
    peers: list[socket.socket] = []
    try:
        limit = lower_limit(server)
        # The folder goes (a cleaner, a logout) and a file takes its name: the socket,
        # still reachable through the moved folder, cannot be made there again.
        moved = tmp_path / "moved"
        run.rename(moved)
        run.write_text("not a folder\n")
        with pytest.raises(CannotListen) as raised:
            flood(moved / "s.sock", peers, limit, step=lambda: server.poll_once(20))
            for _ in range(500):  # the bind's thread fails; the loop then says it
                server.poll_once(20)
        assert str(run / "s.sock") in str(raised.value)
        assert "connections" in str(raised.value)
    finally:
        for peer in peers:
            peer.close()
        server.close()
        shutil.rmtree(tmp_path / "moved", ignore_errors=True)


def test_the_folder_calls_of_binding_again_do_not_hold_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The socket's folder on a stalled mount: its checks wait as long as the mount
    hangs. They ran on the loop, which then answered nobody; now the loop turns while
    they wait, and listens again once they are done."""
    stalled, called_on = threading.Event(), []
    prepare = server_module.prepare_socket_dir

    def stalled_folder(path: Path) -> None:
        called_on.append(threading.current_thread())
        if len(called_on) > 1:  # the first is bind()'s, at start
            stalled.wait(60)
        prepare(path)

    monkeypatch.setattr(server_module, "prepare_socket_dir", stalled_folder)
    path = tmp_path / "run" / "s.sock"
    server = Server(f"ipc://{path}", pending=lambda: 0)
    server.bind()
    peers: list[socket.socket] = []
    try:
        flood(path, peers, lower_limit(server), step=lambda: server.poll_once(20))
        assert server.drops.times == 1
        for _ in range(5):  # the loop turns while the folder's calls wait
            assert server.poll_once(20) == 0
        assert len(called_on) == 2 and called_on[1] is not threading.main_thread()
        assert not stalled.is_set()
        stalled.set()
        for _ in range(500):
            server.poll_once(20)
            if server._rebind is None:
                break
        with contextlib.closing(socket.socket(socket.AF_UNIX)) as again:
            again.connect(str(path))  # listening again
    finally:
        stalled.set()
        for peer in peers:
            peer.close()
        server.close()


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
    peers: list[socket.socket] = []
    try:
        assert running.wait(30)
        flood(path, peers, lower_limit(server), until=lambda: server.drops.times)
        for peer in peers:
            peer.close()
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
        for peer in peers:
            peer.close()
        server.close()


def test_binding_again_leaves_folders_made_meanwhile_usable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The umask is the process's, not the thread's: while the rebind's thread binds (for
    as long as a stalled mount holds it), the indexer's threads make folders under the
    umask it set. One of 0o177 made them 0600, folders the daemon could not enter."""
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
