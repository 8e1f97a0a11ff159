"""Roots that hold the kernel's file systems (/, /dev) are refused like /proc itself:
the walk and the watches would go into them. The mount points come from mountinfo."""

from __future__ import annotations

from pathlib import Path

from ragd.core.kernel_fs import kernel_mounts, refusal

MOUNTINFO = (
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "23 27 0:22 / /sys rw,relatime shared:7 - sysfs sysfs rw\n"
    "26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600\n"
    "40 27 8:1 / /srv/my\\040docs rw - ext4 /dev/sda1 rw\n"
    "41 27 0:40 / /srv/odd\\040proc rw - proc proc rw\n"
    "42 27 8:2 / /home rw - ext4 /dev/sda2 rw\n"
    "not a mountinfo line\n"
)


def test_kernel_mounts_are_read_from_mountinfo(tmp_path: Path) -> None:
    info = tmp_path / "mountinfo"
    info.write_text(MOUNTINFO)
    assert kernel_mounts(info) == ["/proc", "/sys", "/dev/pts", "/srv/odd proc"]
    assert kernel_mounts(tmp_path / "absent") == []


def test_a_folder_holding_a_kernel_mount_is_refused(tmp_path: Path) -> None:
    mounts = ["/proc", "/sys", "/dev/pts", "/dev/mqueue", "/srv/odd proc"]
    why = refusal(Path("/"), mounts)
    assert why is not None and why.startswith("/ holds /dev/mqueue, /dev/pts, /proc and 2 more")
    assert refusal(Path("/dev"), mounts) == (
        "dev holds /dev/mqueue, /dev/pts, the kernel's file systems (no documents there): "
        "choose the folders of documents under it"
    )
    assert refusal(Path("/srv"), mounts) is not None
    assert refusal(tmp_path, mounts) is None  # nothing below it
    assert refusal(Path("/devices"), mounts) is None  # a prefix of a name is not a parent
