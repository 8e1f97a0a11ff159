"""The process's mount table: where file systems are mounted, and what changed since.

A file system mounted on a folder inside a watched root hides that folder's inode, which
is what inotify watches: nothing written on the mounted file system is reported, and
an unmount makes its files vanish without an event. The watcher asks `MountTable` once a
second (`ingest/watcher.py`) and sets the root's watches again and syncs it when a mount
point inside it came or went. `core/kernel_fs.py` reads the same table for the kernel's
file systems below a would-be root.

The kernel says when the mount table changed: `/proc/self/mountinfo`, polled, reports
POLLPRI (the poll itself takes the news), so the table is read again only then —
nothing is parsed while mounts stay as they are, however many there are. Where there is
no such file (off Linux, /proc not mounted), the table is empty and never changes.
"""

from __future__ import annotations

import os
import select
from pathlib import Path

MOUNTINFO = Path("/proc/self/mountinfo")
_MOUNTINFO_LIMIT = 4 << 20  # a machine with thousands of mounts has well under this
_CHANGED = select.POLLPRI | select.POLLERR


def mounts(table: str) -> list[tuple[str, str]]:
    """(mount point, file system type) for each line of a mountinfo table."""
    found = []
    for line in table.splitlines():
        # "36 35 98:0 /root /mnt/point options [optional…] - fstype source super-options"
        before, dash, after = line.partition(" - ")
        fields = before.split(" ")
        if dash and len(fields) >= 5:
            found.append((_unescape(fields[4]), after.split(" ", 1)[0]))
    return found


def read_mounts(mountinfo: Path = MOUNTINFO) -> list[tuple[str, str]]:
    """The mount table now (empty when it cannot be read)."""
    try:
        with open(mountinfo, "rb") as handle:
            return mounts(_decoded(handle.read(_MOUNTINFO_LIMIT)))
    except OSError:
        return []


def _decoded(table: bytes) -> str:
    return table.decode("utf-8", "surrogateescape")  # a path's bytes as os.fsdecode keeps them


def _unescape(field: str) -> str:
    """A mount point as mountinfo writes it: space, tab, newline and backslash as \\ooo."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        code = field[i + 1 : i + 4]
        if field[i] == "\\" and len(code) == 3 and all(c in "01234567" for c in code):
            out.append(chr(int(code, 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


class MountTable:
    """The mount points the daemon sees, kept up to date by `changes`."""

    def __init__(self, mountinfo: Path = MOUNTINFO) -> None:
        self._fd: int | None = None
        self._points: frozenset[str] = frozenset()
        try:
            self._fd = os.open(mountinfo, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
        except OSError:
            return
        self._poll = select.poll()
        self._poll.register(self._fd, _CHANGED)
        self._points = self._read()

    def _read(self) -> frozenset[str]:
        if self._fd is None:
            return frozenset()
        os.lseek(self._fd, 0, os.SEEK_SET)
        pieces, size = [], 0
        while size < _MOUNTINFO_LIMIT and (piece := os.read(self._fd, 1 << 16)):
            pieces.append(piece)
            size += len(piece)
        return frozenset(point for point, _ in mounts(_decoded(b"".join(pieces))))

    def changes(self) -> frozenset[str]:
        """The mount points mounted or unmounted since the last call (none when the table
        did not change, or cannot be read)."""
        if self._fd is None or not any(ev & _CHANGED for _, ev in self._poll.poll(0)):
            return frozenset()
        try:
            now = self._read()
        except OSError:
            return frozenset()
        changed, self._points = now ^ self._points, now
        return changed

    def holds(self, point: str) -> bool:
        """Is a file system mounted at `point`, as of the last `changes`?"""
        return point in self._points

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
