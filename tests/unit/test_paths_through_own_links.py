"""A path the user names through a link that means "this process" (`/proc/self/cwd`,
`/dev/fd/N`, `/dev/stdin`) means something else to the daemon, another process: `rag
ingest /proc/self/cwd` made the daemon's own working folder a root (by hand: the
repository it was started in, 546 files, where the user stood in another folder; under
systemd, `/`). The client sends such a path as the place it leads to for the client."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from ragcli.main import main
from tests.support.fake_zmtp import FakeZmtpServer, ready


def test_a_path_through_the_clients_own_links_is_sent_as_where_it_leads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    monkeypatch.chdir(folder)  # where the user stands; the daemon stands elsewhere
    Path("n.md").write_text("# N\n\nA note.\n")
    commands = [
        ["ingest", "/proc/self/cwd"],
        ["forget", "/proc/thread-self/cwd"],
        ["search", "note", "--in", "/proc/self/cwd/n.md"],
        ["ask", "note", "--in", "/proc/self/cwd/"],
    ]
    with FakeZmtpServer(tmp_path / "f.sock", ready()) as server:
        for command in commands:
            with contextlib.suppress(SystemExit, Exception):  # the fake's reply is a status
                main(["--socket", server.address, *command])
    sent = [json.loads(request)["args"] for request in server.requests]
    assert [args.get("path") or args.get("root") or args.get("in") for args in sent] == [
        str(folder),
        str(folder),
        [str(folder / "n.md")],
        [str(folder)],
    ]
