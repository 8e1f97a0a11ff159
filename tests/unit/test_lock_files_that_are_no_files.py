"""The data dir's `ragd.lock` and the socket's `<socket>.lock` when something else is there.

Before: a symbolic link at the lock's name was followed, and the file it leads to was
truncated and overwritten with the daemon's JSON record (by hand: `precious.txt` became
`{"pid": …}` after `ragd serve --socket /tmp/a16/s8.sock` with `s8.sock.lock` linked to
it; the socket lock sits in whatever folder `--socket` names, /tmp included); a folder
there was an IsADirectoryError traceback, a FIFO or a link to /dev/null an EINVAL one
from ftruncate; and `ragd check` opened a FIFO lock without O_NONBLOCK and waited for ever.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.app.instance import InstanceLock
from ragd.cli.checking import _lock_fd
from ragproto.errors import ConfigError
from tests.support.commands import run
from tests.support.daemon import BIN, base_env


def test_a_link_at_the_lock_is_refused_and_its_target_kept(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("my notes\n")
    lock = tmp_path / "ragd.sock.lock"
    lock.symlink_to(precious)
    with pytest.raises(ConfigError, match="is a symbolic link"):
        InstanceLock(lock).acquire({"pid": os.getpid()})
    assert precious.read_text() == "my notes\n"


def test_a_folder_fifo_or_device_at_the_lock_is_one_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "folder.lock"
    folder.mkdir()
    fifo = tmp_path / "fifo.lock"
    os.mkfifo(fifo)
    for path, kind in ((folder, "a folder"), (fifo, "a FIFO or a device")):
        with pytest.raises(ConfigError, match=f"is {kind}, not a file ragd made"):
            InstanceLock(path).acquire({"pid": os.getpid()})
    # A real lock file still works, and a second holder is told who holds it.
    ordinary = InstanceLock(tmp_path / "ok.lock")
    ordinary.acquire({"pid": os.getpid()})
    assert ordinary.held
    ordinary.release()


def test_check_and_serve_with_a_fifo_for_the_data_dir_lock(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.mkfifo(data / "ragd.lock")
    assert _lock_fd(data) is None  # no daemon can hold a FIFO; before: open() waited
    root = tmp_path / "notes"
    root.mkdir()
    out = run(
        [BIN / "ragd", "serve", root, "--data-dir", data, "--socket", tmp_path / "s.sock"],
        base_env(tmp_path),
    )
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert "ragd.lock is a FIFO or a device" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another uid")
@pytest.mark.parametrize("held", [True, False])
def test_a_lock_file_of_another_user_is_refused_and_not_written(tmp_path: Path, held: bool) -> None:
    """`--socket /tmp/x.sock` puts `x.sock.lock` in /tmp, where another local user can
    make it first (mode 666, with fs.protected_regular = 0 as here). Found by attack, with
    a second uid holding a flock on it: `ragd serve` exited 3 with `another ragd (pid 1,
    data dir …<ESC>]0;owned<BEL>) is already listening …` — a ragd that does not exist, a
    pid and a terminal escape of the other user's choosing, printed raw. Not held, ragd
    wrote its record (pid, data dir, socket) into the other user's file and went on."""
    import fcntl
    import json

    lock = tmp_path / "x.sock.lock"
    planted = json.dumps({"pid": 1, "data_dir": "/d\x1b]0;owned\x07"}).encode()
    lock.write_bytes(planted)
    os.chmod(lock, 0o666)
    os.chown(lock, 65534, 65534)
    holder = os.open(lock, os.O_RDWR)
    try:
        if held:
            fcntl.flock(holder, fcntl.LOCK_EX)
        with pytest.raises(ConfigError, match="belongs to uid 65534, not to you") as refused:
            InstanceLock(lock).acquire({"pid": os.getpid(), "data_dir": "/mine"})
        assert "\x1b" not in str(refused.value) and "pid 1" not in str(refused.value)
        assert lock.read_bytes() == planted
    finally:
        os.close(holder)
    root = tmp_path / "notes"
    root.mkdir()
    serve = [BIN / "ragd", "serve", root, "--data-dir", tmp_path / "data"]
    out = run([*serve, "--socket", tmp_path / "x.sock"], base_env(tmp_path))
    assert out.returncode == 1 and out.stderr.count("\n") == 1, out.stderr
    assert "x.sock.lock belongs to uid 65534" in out.stderr, out.stderr
