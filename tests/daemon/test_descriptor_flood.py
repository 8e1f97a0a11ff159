"""Peers that take every file descriptor of a tcp:// daemon leave no file skipped for good.

Anyone who can reach a tcp:// port can connect without a key: libzmq accepts the
connection and waits for the CURVE handshake, holding a descriptor for as long as the peer
stays silent. With the daemon at its open-file limit, a file saved meanwhile could not be
opened and was recorded as "read failed (Too many open files)", not retried until it
changed: after the flood its text was never found (or its old text still answered). Now
the writer reads such a file again once descriptors are free.
"""

from __future__ import annotations

import resource
import socket
from pathlib import Path

import pytest

from tests.daemon.test_tcp_auth import free_port
from tests.support.daemon import Daemon, wait_for

LIMIT = 512  # soft and hard: the daemon cannot raise it


def test_a_file_saved_while_silent_peers_hold_every_descriptor_is_indexed_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# A\n\nThe zebrafinch sings at dawn.\n")
    d = Daemon(tmp_path, [root], limits={resource.RLIMIT_NOFILE: (LIMIT, LIMIT)})
    port = free_port()
    d.socket = f"tcp://127.0.0.1:{port}"  # type: ignore[assignment]  # str() is all it needs
    d.env["RAG_SOCKET"] = str(d.socket)
    monkeypatch.setenv("XDG_CONFIG_HOME", d.env["XDG_CONFIG_HOME"])  # the test's client keys
    d.start()
    silent: list[socket.socket] = []
    try:
        d.wait_idle()
        fds = Path(f"/proc/{d.proc.pid}/fd")  # type: ignore[union-attr]

        def full() -> bool:
            while len(silent) < 2 * LIMIT and len(list(fds.iterdir())) < LIMIT - 1:
                silent.append(socket.create_connection(("127.0.0.1", port)))
            return len(list(fds.iterdir())) >= LIMIT - 1

        # From before the flood: the root's own look during it may meet the full table
        # first, and the line is said once a minute (a clean-clone CI under load: the
        # root's line came before b.md was written, and b.md's was not said again).
        mark = len(d.log())
        wait_for(full, 60, "the daemon's descriptors all taken")
        (root / "b.md").write_text("# B\n\nThe ptarmiganite gleams in the snow.\n")
        # The writer met the full table: before, it skipped the file for good; now it
        # says so (once a minute) and tries again.
        tried = ("no file descriptor left", "skipped b.md")
        wait_for(lambda: any(t in d.log()[mark:] for t in tried), 60, "b.md tried")
        for peer in silent:
            peer.close()
        silent.clear()
        wait_for(lambda: d.sources("ptarmiganite") == ["b.md"], 60, "b.md indexed after")
        assert "skipped b.md" not in d.log(), d.log_tail()
        status = d.status()
        assert not [e for e in status["errors"] if "Too many open files" in str(e)], status
        d.assert_alive()
    finally:
        for peer in silent:
            peer.close()
        d.stop()
