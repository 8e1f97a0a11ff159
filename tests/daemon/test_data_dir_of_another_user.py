"""A data dir that belongs to another user is refused in one line.

Before: `ragd serve --data-dir /tmp/shared` on a folder another user made (mode 777) only
logged a warning and indexed into it; with mode 700 it said nothing at all. The folder's
owner can rename, delete and replace what ragd writes there (a folder's owner may), so a
manifest or an index of theirs would put their text in the answers.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.daemon import BIN, base_env
from tests.support.users import planted_link, throwaway_user


def ragd(tmp_path: Path, *argv: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [BIN / "ragd", *map(str, argv)],
        env=base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_data_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    with throwaway_user() as (other, reason):
        if other is None:
            pytest.skip(reason)
        shared = tmp_path / "shared"
        shared.mkdir()
        os.chown(shared, other.uid, other.gid)
        shared.chmod(0o777)
        for argv in (
            ["serve", tmp_path, "--data-dir", shared, "--socket", tmp_path / "s.sock"],
            ["reset", "--data-dir", shared],
        ):
            out = ragd(tmp_path, *argv)
            assert out.returncode != 0 and out.stderr.count("\n") == 1, out.stderr
            assert f"belongs to uid {other.uid}, not to you" in out.stderr, out.stderr
        assert list(shared.iterdir()) == []  # nothing written there


def test_a_data_dir_through_another_users_link_is_refused(tmp_path: Path) -> None:
    """attack73: in a sticky shared folder (fs.protected_symlinks = 0 here) another user
    planted `ragd-data` -> a folder of ours holding a file. Before: `ragd serve --data-dir
    shared/ragd-data` wrote its index beside our file and made the folder 700; the link's
    owner then pointed it at a folder of theirs and the running daemon restarted onto it,
    was refused, and exited. Now serve and reset refuse the link in one line; a link of
    our own still leads to our data dir."""
    if os.geteuid() != 0:
        pytest.skip("giving a link to another uid needs root")
    ours, link = planted_link(tmp_path, "ragd-data")
    shared = link.parent
    (ours / "mine.txt").write_text("keep\n")
    empty = tmp_path / "empty"  # (a reset refuses a folder holding files of ours anyway)
    empty.mkdir()
    to_empty = shared / "ragd-empty"
    to_empty.symlink_to(empty)
    os.lchown(to_empty, 54321, 54321)
    # review74: a link of our own that leads through theirs (`my-data` -> their
    # `shared/ragd-data` -> ours) had passed: only the links on the path as written were
    # looked at, and theirs can be pointed anywhere.
    through_theirs = tmp_path / "my-data"
    through_theirs.symlink_to(link)
    for argv, data_dir, through in (
        (["serve", tmp_path, "--socket", tmp_path / "s.sock"], link, link),
        (["serve", tmp_path, "--socket", tmp_path / "s.sock"], through_theirs, link),
        (["serve", tmp_path, "--socket", tmp_path / "s.sock"], link / "deeper", link),
        (["reset"], to_empty, to_empty),
    ):
        out = ragd(tmp_path, *argv, "--data-dir", data_dir)
        assert out.returncode != 0 and out.stderr.count("\n") == 1, out.stderr
        assert f"{through}, a symbolic link that uid 54321 owns" in out.stderr, out.stderr
    assert sorted(p.name for p in ours.iterdir()) == ["mine.txt"]
    assert list(empty.iterdir()) == []
    assert ours.stat().st_mode & 0o777 == 0o755
    # Our own link to a folder of ours is a data dir as before.
    mine = tmp_path / "my-link"
    mine.symlink_to(empty)
    out = ragd(tmp_path, "reset", "--data-dir", mine)
    assert out.returncode == 0, out.stderr
    assert (empty / "manifest.sqlite3").exists()
