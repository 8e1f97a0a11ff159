"""`MadeFolders`: a refused start removes the folders it made, and only those."""

from __future__ import annotations

import os
from pathlib import Path

from ragd.app.made_folders import MadeFolders


def test_a_path_through_a_folder_not_there_yet_removes_only_what_it_made(
    tmp_path: Path,
) -> None:
    """review25: `--data-dir NOTYET/../theirs/data` with `theirs` an empty folder of the
    user's. `NOTYET/../theirs` did not exist as a path (NOTYET was missing), so it was
    noted as made, and a refused start removed the user's folder `theirs`."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    for data_dir in (
        tmp_path / "notyet" / ".." / "theirs" / "data",
        tmp_path / "notyet" / "deeper" / ".." / ".." / "theirs" / "data",
    ):
        folders = MadeFolders()
        with folders.making(data_dir):
            data_dir.mkdir(parents=True)
        assert sorted(os.listdir(tmp_path)) == ["notyet", "theirs"]
        folders.remove()
        assert sorted(os.listdir(tmp_path)) == ["theirs"]  # its own folders gone
        assert os.listdir(theirs) == []  # `data` too, and `theirs` kept


def test_only_missing_folders_are_removed_and_only_while_empty(tmp_path: Path) -> None:
    (tmp_path / "kept").mkdir()
    folders = MadeFolders()
    made = tmp_path / "kept" / "new" / "inner"
    with folders.making(made):
        made.mkdir(parents=True)
    (tmp_path / "kept" / "new" / "a file put there meanwhile").write_text("x")
    folders.remove()
    assert sorted(os.listdir(tmp_path / "kept" / "new")) == ["a file put there meanwhile"]
