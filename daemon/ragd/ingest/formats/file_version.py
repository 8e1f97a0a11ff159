"""Whether a file beside the one being read still holds the bytes it held when something
was learnt from it (a sibling chapter's ids, a DTD it read), told by its stat where the
stat can tell and by its bytes where it cannot.

A stat (device, inode, size, mtime and ctime in nanoseconds) changes with every write,
except that a file system stamps times from a coarse clock (a few milliseconds on Linux,
two seconds on FAT): two saves of the same length within one tick look alike. So a
version read within `RACY_NS` of its last change is not `settled`, and is compared by its
bytes' digest until it is (git's "racy clean" rule). Reading a settled version costs one
`lstat`; the bytes of each version are read once.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass

from ragd.ingest.formats.xml_confined import content_digest, read_beside

RACY_NS = 2_000_000_000  # a change this recent may share its timestamps with the next


@dataclass(frozen=True)
class FileVersion:
    stat: tuple[int, int, int, int, int]  # dev, inode, size, mtime_ns, ctime_ns
    digest: bytes
    settled: bool  # its last change was long enough before it was read: the stat tells


def look(folder: str, name: str) -> os.stat_result | None:
    """The file's own stat (a link is not followed), if it is a regular file."""
    try:
        st = os.lstat(os.path.join(folder, name))
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def version_of(st: os.stat_result, data: bytes, looked_ns: int) -> FileVersion:
    """The version `data` is, read after `st` was taken at `looked_ns` (time.time_ns)."""
    changed = max(st.st_mtime_ns, st.st_ctime_ns)
    return FileVersion(_key(st), content_digest(data), looked_ns - changed > RACY_NS)


def current(folder: str, name: str, version: FileVersion) -> FileVersion | None:
    """`version` if the file still holds it (settled once its bytes were found the same
    long enough after its last change), else None."""
    looked = time.time_ns()
    st = look(folder, name)
    if st is None or _key(st) != version.stat:
        return None
    if version.settled:
        return version
    data = read_beside(folder, name, limit=st.st_size)
    if data is None or content_digest(data) != version.digest:
        return None
    return version_of(st, data, looked)


def read_version(folder: str, name: str, limit: int) -> tuple[bytes, FileVersion] | None:
    """The file's bytes (at most `limit`) and their version: stat first, so a write
    between the two leaves a version that no later stat matches."""
    looked = time.time_ns()
    st = look(folder, name)
    data = read_beside(folder, name, limit=limit) if st is not None else None
    if st is None or data is None:
        return None
    return data, version_of(st, data, looked)


def _key(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
