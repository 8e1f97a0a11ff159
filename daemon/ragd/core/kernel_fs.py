"""Folders that are the kernel's, not documents: /proc, /sys and their kind.

As a root, /proc would have watchdog set a watch on every process's folders (logging each
clash as a warning tens of kilobytes long), the walk meet processes ending under it (each
a "cannot read folder" error) and the daemon stay `indexing` for as long as processes
come and go. Nothing there is a document, so a root on such a file system is refused in
one line; so is a followed link to a file or folder there (`/proc/self/status`, skipped
with `kernel_file`'s reason; the walk does not enter such a folder). Told apart by the
file system's magic number (`statfs`, linux/magic.h), one system call; off Linux (no
statfs) nothing is refused.
"""

from __future__ import annotations

import ctypes
import functools
import os
from collections.abc import Callable
from pathlib import Path

from ragd.core.mount_points import MOUNTINFO, read_mounts

# linux/magic.h: file systems whose files the kernel makes up as they are read.
KERNEL_FILESYSTEMS = {
    0x9FA0: "proc",
    0x62656572: "sysfs",
    0x1CD1: "devpts",
    0x27E0EB: "cgroup",
    0x63677270: "cgroup2",
    0x64626720: "debugfs",
    0x74726163: "tracefs",
    0x73636673: "securityfs",
    0xCAFE4A11: "bpf",
    0x6165676C: "pstore",
    0x62656570: "configfs",
    0xDE5E81E4: "efivarfs",
    0xF97CFF8C: "selinuxfs",
    0x43415D53: "smackfs",
    0x6E736673: "nsfs",
    0x42494E4D: "binfmt_misc",
    0x19800202: "mqueue",
    0x65735543: "fusectl",
}
# struct statfs is 120 bytes on 64-bit Linux, 64 on 32-bit; its first field, f_type, is a
# C long on both. A larger buffer leaves room for any layout.
_STATFS_BYTES = 512


@functools.cache
def _libc_statfs() -> Callable[[bytes, ctypes.Array[ctypes.c_char]], int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).statfs  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


def kernel_filesystem(path: Path) -> str | None:
    """The name of the kernel file system `path` is on (proc, sysfs, …), or None when it
    is on another one or cannot be asked."""
    statfs = _libc_statfs()
    if statfs is None:
        return None
    buffer = ctypes.create_string_buffer(_STATFS_BYTES)
    if statfs(os.fsencode(path), buffer) != 0:
        return None
    magic = ctypes.c_ulong.from_buffer(buffer).value & 0xFFFFFFFF
    return KERNEL_FILESYSTEMS.get(magic)


def kernel_file(kind: str) -> str:
    """Why a file on a kernel file system is not read (a followed link to /proc/self/status):
    its bytes are made up at each read, so it would be indexed again at every look."""
    return f"on {kind}, a file system the kernel makes up at each read: not a document"


def kernel_mounts(mountinfo: Path = MOUNTINFO) -> list[str]:
    """Where the kernel's file systems are mounted (empty when the mount table cannot be
    read: off Linux, or /proc not mounted)."""
    kinds = set(KERNEL_FILESYSTEMS.values())
    return [point for point, kind in read_mounts(mountinfo) if kind in kinds]


def refusal(root: Path, mounts: list[str] | None = None) -> str | None:
    """Why `root` cannot be a root (one line), or None when it can: it is on a kernel file
    system, or one is mounted below it (`/`, `/dev`: the walk and the watches would go
    into /proc and /sys)."""
    name = root.name or str(root)
    kind = kernel_filesystem(root)
    if kind is not None:
        return f"{name} is on {kind}, a file system the kernel makes up: it holds no documents"
    top = str(root.absolute()).rstrip("/") + "/"
    listed = kernel_mounts() if mounts is None else mounts
    below = sorted({m for m in listed if m.startswith(top)})
    if not below:
        return None
    shown = ", ".join(below[:3]) + (f" and {len(below) - 3} more" if len(below) > 3 else "")
    return (
        f"{name} holds {shown}, the kernel's file systems (no documents there): "
        "choose the folders of documents under it"
    )
