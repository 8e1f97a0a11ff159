"""A `ragd serve` refused before it served leaves nothing it made itself.

Real `ragd serve` processes: one refused because another daemon holds its data dir, others
whose bind fails (a TCP port another process listens on, a socket path that is a folder).
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow


def corpus(folder: Path) -> Path:
    folder.mkdir()
    (folder / "ferry.md").write_text("# Ferry\n\nThe ferry leaves the north pier at seven.\n")
    return folder


def listing(folder: Path) -> list[tuple[str, int]]:
    """What is in `folder` (names and modes, all the way down), and its own mode."""
    found = [
        (str(p.relative_to(folder)), stat.S_IMODE(p.lstat().st_mode)) for p in folder.rglob("*")
    ]
    return sorted([*found, (".", stat.S_IMODE(folder.stat().st_mode))])


def test_a_start_refused_for_a_busy_data_dir_leaves_no_socket_lock_nor_folder(
    tmp_path: Path,
) -> None:
    """fix25: the refused start left `<socket>.lock` (and the socket folder it made)."""
    docs = corpus(tmp_path / "docs")
    first = Daemon(tmp_path, [docs]).start(wait=False)
    try:
        wait_for(lambda: first.answering(), 60, "the first daemon's socket to answer")
        run = first.socket.parent
        before = listing(run)
        for sock in (tmp_path / "new" / "run" / "other.sock", run / "other.sock"):
            refused = first.ragd(
                "serve", str(docs), "--data-dir", str(first.data_dir), "--socket", str(sock)
            )
            assert refused.returncode == 3, refused.stderr
            assert f"already using the data dir {first.data_dir}" in refused.stderr
            assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert not (tmp_path / "new").exists()
        assert listing(run) == before  # the running daemon's folder: no other.sock.lock
        assert first.answering() is not None
    finally:
        first.stop()


def test_a_start_whose_bind_fails_leaves_no_data_dir(tmp_path: Path) -> None:
    """fix25: a bind that failed after the locks were taken left the new data dir (with
    its `ragd.lock`) and `<socket>.lock`; an existing data dir stayed made private."""
    docs = corpus(tmp_path / "docs")
    ragd = Daemon(tmp_path, [docs]).ragd
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        busy = f"tcp://127.0.0.1:{taken.getsockname()[1]}"
        refused = ragd(
            "serve", str(docs), "--data-dir", str(tmp_path / "a" / "data"), "--socket", busy
        )
    finally:
        taken.close()
    assert refused.returncode == 1, refused.stderr
    assert f"cannot listen on {busy}" in refused.stderr
    assert not (tmp_path / "a").exists()

    # an ipc socket whose path is a folder of the user's; a data dir new, then one of theirs
    folder = tmp_path / "run" / "t.sock"
    (folder / "inner").mkdir(parents=True)
    existing = tmp_path / "existing"
    existing.mkdir()
    existing.chmod(0o755)
    (existing / "notes.txt").write_text("the user's own file\n")
    before = listing(tmp_path / "run"), listing(existing)
    for data_dir in (tmp_path / "b" / "data", existing):
        refused = ragd("serve", str(docs), "--data-dir", str(data_dir), "--socket", str(folder))
        assert refused.returncode == 1, refused.stderr
        assert refused.stderr.strip().splitlines()[-1].startswith("ragd: cannot listen on ipc://")
    assert not (tmp_path / "b").exists()
    assert (listing(tmp_path / "run"), listing(existing)) == before
    assert os.path.isdir(folder / "inner")
