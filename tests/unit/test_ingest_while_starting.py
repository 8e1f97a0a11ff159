"""`rag ingest` sent while the daemon is starting waits for it within --timeout
(ragcli.main.once_started). When --timeout runs out first, the last line must say that
the wait ended and the folder was not added: it repeated the daemon's "ragd is starting
(…)" under the client's own "…; waiting for it", and exited 3, as if still waiting.

A real server on a real socket, whose `ingest` answers as a starting daemon does.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcli.main import main
from ragd.serve.server import Request, Route, Server
from ragproto.errors import Starting


@pytest.fixture
def starting_daemon(tmp_path: Path) -> Iterator[Server]:
    server = Server(f"ipc://{tmp_path / 'run' / 's.sock'}", pending=lambda: 0)
    server.bind()

    def ingest(request: Request) -> dict[str, object]:
        raise Starting("ragd is starting (loading the embedding model)")

    server.serve([Route("ingest", "loop", ingest)])
    stop = threading.Event()
    loop = threading.Thread(target=lambda: [server.poll_once(20) for _ in iter(stop.is_set, True)])
    loop.start()
    yield server
    stop.set()
    loop.join(10)
    server.close()


def test_an_ingest_that_outwaits_its_timeout_says_the_folder_was_not_added(
    starting_daemon: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    with pytest.raises(SystemExit) as exited:
        main(["--socket", starting_daemon.address, "ingest", str(folder), "--timeout", "0"])
    assert exited.value.code == 3  # not serving yet: a script may try again
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "ragd is starting (loading the embedding model)" in last
    assert "--timeout" in last
    assert "not added" in last
