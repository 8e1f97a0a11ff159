"""Trusting the embedded vector index after a clean stop without probing it again.

The start-up probe (ragd.index.dense_probe) reads ChromaDB back in a child process, because
a damaged HNSW file can crash ChromaDB's native code. It costs that child's interpreter,
ChromaDB's import and a read of the store (≈ 1.2 CPU s, a tenth of a restart). Damage
comes from a crash or a power loss mid-write, or from outside (a disk, a person, a copy).
After a clean stop none of these can have gone unseen if all of this holds, so the probe
is skipped only then:

  * the clean stop flushed ChromaDB's files to the disk (fsync) before it sealed them: a
    power loss afterwards cannot tear them;
  * the seal — every file and folder under `chroma/` with its size, inode, mtime and
    ctime — still matches: a write, a replacement, a copy or a restore changes one of them
    (ctime cannot be set back by hand);
  * the seal is removed, durably, before ChromaDB opens the store again (opening rewrites
    its files): a crash from then on finds no seal, and the next start probes.

Anything else (no seal, a seal that differs, an unclean stop, a full disk) probes as before.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ragd.index.manifest import Manifest

SEAL_KEY = "vector_seal"  # manifest meta: the files' state at the last clean stop
CLEAN_KEY = "clean_shutdown"


def files_state(folder: Path) -> str:
    """Every file and folder under `folder` (itself included) as JSON: path, kind, size,
    inode, mtime and ctime in nanoseconds; "" when `folder` is missing."""
    if not folder.is_dir():
        return ""
    entries = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in ["", *sorted(filenames)]:
            path = Path(dirpath, name) if name else Path(dirpath)
            st = os.stat(path, follow_symlinks=False)
            entries.append(
                [
                    str(path.relative_to(folder)),
                    st.st_mode,
                    st.st_size,
                    st.st_ino,
                    st.st_mtime_ns,
                    st.st_ctime_ns,
                ]
            )
    return json.dumps(entries)


class NotSealable(Exception):
    """The folder holds something ChromaDB never writes (a FIFO, a link, a device)."""


def flush(folder: Path) -> None:
    """fsync every file and folder under `folder`, so what the seal describes is on disk.
    Anything else there was put by someone else: opening a FIFO would wait for a writer
    for ever (a stop that never ends), so it is not opened and the store is not sealed."""
    for dirpath, _, filenames in os.walk(folder):
        for path in [*(Path(dirpath, n) for n in filenames), Path(dirpath)]:
            mode = os.lstat(path).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                raise NotSealable(f"{path.relative_to(folder)} is not a file ChromaDB writes")
            kind = os.O_DIRECTORY if stat.S_ISDIR(mode) else 0
            # No link followed and no wait, should it have been swapped since the lstat.
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | kind)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def seal(manifest: Manifest, folder: Path) -> None:
    """At a clean stop, after the last write to the store: flush it and record its state."""
    flush(folder)
    manifest.set_meta(SEAL_KEY, files_state(folder))


def take(manifest: Manifest, folder: Path) -> bool:
    """True when the store is exactly as a clean stop sealed it. The seal is removed either
    way (synced to disk before this returns), because the caller opens the store next."""
    try:
        sealed = manifest.take_meta(SEAL_KEY, durable=True)
    except Exception:  # cannot be removed (a read-only disk, …): do not trust it
        return False
    if not sealed or manifest.get_meta(CLEAN_KEY) != "1":
        return False
    return sealed == files_state(folder)
