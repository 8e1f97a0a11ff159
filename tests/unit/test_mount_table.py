"""The mount table's changes, as the watcher asks them once a second (`core/mount_points.py`)."""

from __future__ import annotations

from pathlib import Path

from ragd.core.mount_points import MountTable
from tests.support.mounts import mount_tmpfs, unmount


def test_a_table_that_cannot_be_polled_or_read_never_changes(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"  # a regular file: polling it never says it changed
    info.write_text("42 27 8:2 / /home rw - ext4 /dev/sda2 rw\n")
    table = MountTable(info)
    info.write_text("43 27 8:3 / /srv rw - ext4 /dev/sda3 rw\n")
    assert table.changes() == frozenset()
    table.close()
    assert MountTable(tmp_path / "absent").changes() == frozenset()


def test_a_mount_and_an_unmount_are_each_one_change(tmp_path: Path) -> None:
    point = tmp_path / "usb stick"  # mountinfo writes the space as \040
    point.mkdir()
    table = MountTable()
    assert table.changes() == frozenset()
    mount_tmpfs(point, "1m")
    try:
        assert table.changes() == {str(point)}
        assert table.changes() == frozenset()  # said once
    finally:
        unmount(point, lazy=True)
    assert table.changes() == {str(point)}
    table.close()
