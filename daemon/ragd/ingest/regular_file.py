"""The first bytes of a small file the walk reads itself (an ignore file, a script's `#!`
line), opened only when it is a regular file.

Opening a FIFO, even O_NONBLOCK, lets a program blocked opening it to write go on, and
its first write after our close meets a broken pipe; opening a device acts on it (a tape
rewinds, a serial port resets). So the name is stat'ed first and only a regular file is
opened; O_NONBLOCK and an fstat of the descriptor cover a FIFO swapped in between the two.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def read_head(path: Path, most: int, follow_links: bool = True) -> bytes | None:
    """Up to `most` bytes of the regular file at `path`; None for anything else (a FIFO,
    a device, a socket, a folder, and a link when `follow_links` is off) and for a file
    that cannot be read."""
    if regular_stat(path, follow_links) is None:
        return None
    return open_head(path, most, follow_links)


def regular_stat(path: Path, follow_links: bool) -> os.stat_result | None:
    """The stat of the regular file at `path`; None for anything else, or no file."""
    try:
        st = (os.stat if follow_links else os.lstat)(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def open_head(path: Path, most: int, follow_links: bool) -> bytes | None:
    """Up to `most` bytes of `path`, already stat'ed as a regular file (`regular_stat`);
    None when it is not one once opened (swapped in between) or cannot be read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags if follow_links else flags | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        return os.read(fd, most) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)
