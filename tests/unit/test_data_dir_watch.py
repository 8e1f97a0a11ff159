"""The lock's look at its own path (`InstanceLock.still_named`), which the daemon's data-dir
watch runs once a second: a data dir moved or replaced is told apart from one it merely
cannot look into, and no look raises (it ran on the main loop first, where an exception
ended the daemon)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.app.instance import InstanceLock


@pytest.fixture
def held(tmp_path: Path):  # type: ignore[no-untyped-def]
    lock = InstanceLock(tmp_path / "data" / "ragd.lock")
    lock.acquire({"pid": os.getpid()})
    yield lock
    lock.release()


def test_the_lock_in_place_is_still_named(held: InstanceLock) -> None:
    assert held.still_named()


def test_a_data_dir_moved_away_and_copied_back_is_not(held: InstanceLock) -> None:
    folder = held.path.parent
    folder.rename(folder.with_name("data.old"))
    folder.mkdir()
    (folder / "ragd.lock").write_text("{}")
    assert not held.still_named()


def test_a_data_dir_replaced_by_a_file_is_not_and_the_look_does_not_raise(
    held: InstanceLock,
) -> None:
    folder = held.path.parent
    folder.rename(folder.with_name("data.old"))
    folder.write_text("not a folder")  # lstat(data/ragd.lock): NotADirectoryError
    assert not held.still_named()


def test_a_look_that_fails_otherwise_says_nothing_moved(
    held: InstanceLock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder made unreadable (EACCES; root is never refused, so injected) or an I/O
    # error tells nothing about where the name leads: the daemon keeps serving.
    def refused(path: object, *args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "lstat", refused)
    assert held.still_named()
