"""When the connection guard drops every connection (serve/connection_guard.py), the
server unbinds and binds its ipc:// socket again. If that bind fails, the daemon listens
nowhere: it must say why in one line and stop (CannotListen), never carry on deaf.

On real ZeroMQ sockets and real connections; only the guard's limit is lowered, so that
a few dozen connections reach it instead of thousands.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from ragd.serve.connection_guard import open_descriptors
from ragd.serve.server import Server
from ragproto.errors import CannotListen


def test_a_socket_folder_that_cannot_take_the_socket_again_stops_the_daemon_in_one_line(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    server = Server(f"ipc://{run / 's.sock'}", pending=lambda: 0)
    server.bind()
    peers: list[socket.socket] = []
    try:
        guard = server._guard
        assert guard is not None  # ipc:// under a finite open-file limit
        guard.limit = open_descriptors() + guard.reserve + 8
        # The folder goes (a cleaner, a logout) and a file takes its name: the socket,
        # still reachable through the moved folder, cannot be made there again.
        moved = tmp_path / "moved"
        run.rename(moved)
        run.write_text("not a folder\n")
        with pytest.raises(CannotListen) as raised:
            for _ in range(guard.limit):
                peer = socket.socket(socket.AF_UNIX)
                peers.append(peer)
                peer.connect(str(moved / "s.sock"))
                server.poll_once(20)
        assert str(run / "s.sock") in str(raised.value)
        assert "connections" in str(raised.value)
    finally:
        for peer in peers:
            peer.close()
        server.close()
        shutil.rmtree(tmp_path / "moved", ignore_errors=True)
