"""`rag chat`'s history file made a FIFO or a link to /dev/zero: one line, chat goes on.

readline reads the history by name and whole, before the first prompt. Before: a FIFO at
`$XDG_STATE_HOME/ragd/chat_history` held `rag chat` for ever (waiting for a writer), and a
link to /dev/zero read without end. The subprocess timeout is a guard against that hang,
not a measure.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.commands import run_python
from tests.support.daemon import base_env

# chat_history.enable() as `rag chat` calls it on a terminal (stdin taken for one).
ENABLE = """
import sys
class Terminal:
    def isatty(self):
        return True
sys.stdin = Terminal()
from ragcli import chat_history
print(chat_history.enable())
"""


def _enable(tmp_path: Path) -> subprocess.CompletedProcess:
    env = base_env(tmp_path) | {"XDG_STATE_HOME": str(tmp_path / "state")}
    return run_python(ENABLE, env=env)


def test_a_history_that_is_no_file_is_left_alone_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "ragd"
    folder.mkdir(parents=True)
    history = folder / "chat_history"
    os.mkfifo(history)
    out = _enable(tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "None", out
    assert out.stderr.count("\n") == 1 and "is not a regular file" in out.stderr, out.stderr
    history.unlink()
    history.symlink_to("/dev/zero")
    out = _enable(tmp_path)
    assert out.stdout.strip() == "None" and "is not a regular file" in out.stderr, out


def test_an_ordinary_history_is_still_read(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "ragd"
    folder.mkdir(parents=True)
    (folder / "chat_history").write_text("how do I book a cabin?\n")
    out = _enable(tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == str(folder / "chat_history"), out
    assert out.stderr == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give files to another uid")
def test_a_history_another_user_planted_is_neither_read_nor_written(tmp_path: Path) -> None:
    """XDG_STATE_HOME in a shared folder: another user made `ragd/` first (777) and put a
    link at `chat_history` to a file of ours (this machine has fs.protected_symlinks = 0),
    or a file of theirs there. Found by attack: enable() took either as the history, and
    readline, which writes by name, would put every question into the file the link names
    (`.bashrc`, say) or into theirs, which they can read."""
    folder = tmp_path / "state" / "ragd"
    folder.mkdir(parents=True)
    victim = tmp_path / "bashrc"
    victim.write_text("alias ll='ls -l'\n")
    history = folder / "chat_history"
    history.symlink_to(victim)
    os.lchown(history, 65534, 65534)
    out = _enable(tmp_path)
    assert out.stdout.strip() == "None" and out.stderr.count("\n") == 1, out
    assert "belongs to uid 65534" in out.stderr, out.stderr
    assert victim.read_text() == "alias ll='ls -l'\n"
    history.unlink()
    os.chmod(folder, 0o777)
    os.chown(folder, 65534, 65534)  # their folder: they may swap the file after any check
    out = _enable(tmp_path)
    assert out.stdout.strip() == "None" and "belongs to uid 65534" in out.stderr, out
    assert not history.exists()


def test_a_history_folder_that_is_a_link_of_ours_to_a_folder_of_ours_is_used(
    tmp_path: Path,
) -> None:
    """`~/.local/state/ragd` kept elsewhere through a link (dotfiles, a synced folder): the
    link is ours and so is the folder it names. The folder check looked at the link itself
    (lstat), whose mode is always 777, and refused every such history as a folder "written
    by any user (mode 777)" (review22)."""
    elsewhere = tmp_path / "synced" / "ragd-state"
    elsewhere.mkdir(parents=True, mode=0o700)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "ragd").symlink_to(elsewhere, target_is_directory=True)
    out = _enable(tmp_path)
    assert out.returncode == 0 and out.stderr == "", out
    assert out.stdout.strip() == str(tmp_path / "state" / "ragd" / "chat_history"), out
    assert (elsewhere / "chat_history").is_file()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give files to another uid")
def test_a_history_folder_linked_to_a_folder_of_another_user_is_refused(tmp_path: Path) -> None:
    """Following the link must not let in a folder that is not ours: its owner could swap
    the history file after any check."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, 65534, 65534)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "ragd").symlink_to(theirs, target_is_directory=True)
    out = _enable(tmp_path)
    assert out.stdout.strip() == "None" and out.stderr.count("\n") == 1, out
    assert "leads to a folder of uid 65534" in out.stderr, out.stderr
    assert not (theirs / "chat_history").exists()
