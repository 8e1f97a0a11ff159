"""`ragd reset`: start the index over from the documents.

The fix for a damaged manifest (which nothing in the data dir can rebuild). It holds the
data-dir lock, so it refuses while a daemon runs; it salvages the remembered roots when
the damaged manifest still yields them, so the next `ragd serve` indexes the same folders.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from pathlib import Path

from ragd.app.instance import AlreadyRunning, Held, InstanceLock, make_private
from ragd.core.layout import DATA_LOCK, MANIFEST, STORES, DataDir
from ragd.index.manifest import SQLITE_SIDE_FILES, Manifest
from ragd.index.verify import remembered_roots
from ragproto.errors import ConfigError

log = logging.getLogger("ragd")


def salvage_roots(data_dir: Path) -> list[str]:
    """The folders a (possibly damaged) manifest remembers, or [] when none can be read."""
    path = DataDir(data_dir).manifest
    if not path.exists():
        return []
    try:
        manifest = Manifest(path, read_only=True)
        try:
            return remembered_roots(manifest)[0]
        finally:
            manifest.close()
    except Exception as exc:  # damaged beyond reading: the user names the folders again
        log.debug("no roots salvaged from %s: %s", path, exc)
        return []


def not_a_data_dir(data_dir: Path) -> str | None:
    """Why `data_dir` is no folder ragd made, or None. A reset removes the folders named
    as its indexes (`chroma/`, `tantivy/`), so `ragd reset --data-dir` naming some other
    folder (a typo, a project that uses ChromaDB itself) deleted that folder's own
    `chroma/`. A data dir holds its manifest or its lock file once any ragd used it; an
    empty or missing folder is fine (nothing to lose)."""
    try:
        names = set(os.listdir(data_dir))
    except OSError:  # missing, or not a folder: make_private says which, in one line
        return None
    if not names or names & {MANIFEST, DATA_LOCK, *(MANIFEST + s for s in SQLITE_SIDE_FILES)}:
        return None
    return (
        f"{data_dir} holds no ragd index (no {MANIFEST} nor {DATA_LOCK}); a reset would "
        f"delete its {' and '.join(n + '/' for n in STORES)}: name ragd's data dir"
    )


def reset_data_dir(data_dir: Path) -> list[str]:
    """Delete the manifest and both indexes; returns the roots the fresh manifest keeps."""
    if (why := not_a_data_dir(data_dir)) is not None:
        raise ConfigError(why)
    make_private(data_dir)  # a file or FIFO named as the data dir: one line, not a traceback
    lock = InstanceLock(DataDir(data_dir).lock)
    record = {"pid": os.getpid(), "data_dir": str(data_dir), "command": "ragd reset"}
    try:
        lock.acquire(record | {"started": time.time()})
    except Held as exc:
        raise AlreadyRunning(
            f"ragd pid {exc.holder.get('pid', 'unknown')} is using {data_dir}; stop it first"
        ) from None
    try:
        roots = salvage_roots(data_dir)
        for suffix in SQLITE_SIDE_FILES:
            side = data_dir / (MANIFEST + suffix)
            if side.is_dir() and not side.is_symlink():
                # Not ragd's: a folder is never removed by a reset (what else is in it?).
                raise ConfigError(f"{side} is a folder, not ragd's manifest; move it away")
            side.unlink(missing_ok=True)
        for name in STORES:
            shutil.rmtree(data_dir / name, ignore_errors=True)
        fresh = Manifest(DataDir(data_dir).manifest)
        if roots:
            fresh.set_meta("roots", json.dumps(roots))
        fresh.close()
        return roots
    finally:
        lock.release()
