"""Verifying a data dir's stores before they are trusted, at start-up and in `ragd check`.

What can be rebuilt is rebuilt: ChromaDB from the embedding cache in the manifest, tantivy
from the manifest's text, the remembered roots from the manifest's files. The manifest
itself cannot be rebuilt from anything in the data dir; a damaged one stops the daemon
with one line naming the file and the command that starts over from the documents
(`ragd reset`), and exit status 2 so systemd does not restart it in a loop.
"""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np

from ragd.core.layout import DataDir
from ragd.index.dense_probe import ProbeResult, probe
from ragd.index.manifest import Manifest, ManifestDamaged
from ragd.index.space import DiskGuard, is_space_error

log = logging.getLogger("ragd")


class DataDamaged(Exception):
    """A store that cannot be rebuilt here is damaged; the message is the one line to show."""


def reset_command(data_dir: Path) -> str:
    return f"ragd reset --data-dir {data_dir}"


def open_manifest(
    data_dir: Path, read_only: bool = False, guard: DiskGuard | None = None
) -> Manifest:
    """The manifest, opened and checked page by page by SQLite (`pragma integrity_check`);
    with the daemon's `guard`, each write waits for disk space."""
    path = DataDir(data_dir).manifest
    try:
        manifest = Manifest(path, read_only=read_only, guard=guard)
        problem = manifest.integrity_problem()
    except ManifestDamaged as exc:
        problem = str(exc)
    else:
        if problem is None:
            return manifest
        manifest.close()
    raise DataDamaged(
        f"the manifest {path} is damaged ({problem}); `{reset_command(data_dir)}` "
        "rebuilds the index from your documents"
    )


def remembered_roots(manifest: Manifest) -> tuple[list[str], str | None]:
    """The roots the manifest remembers, and a note when they had to be recovered.

    A malformed `roots` value is rebuilt from the roots of the indexed files, so a damaged
    value never makes the daemon forget (and so drop) everything it indexed.
    """
    raw = manifest.get_meta("roots")
    try:
        value = json.loads(raw) if raw else []
        if isinstance(value, list) and all(isinstance(r, str) for r in value):
            return value, None
    except ValueError:
        pass
    recovered = sorted(manifest.counts_by_root())
    return recovered, (
        f"the remembered roots in {manifest.path} were unreadable; recovered "
        f"{len(recovered)} from the indexed files"
    )


def dense_problem(manifest: Manifest, result: ProbeResult, model: str) -> str | None:
    """What is wrong with the vector index the probe read, or None.

    Beyond what the probe saw, each sampled vector must be the one ragd stored: the
    embedding cache holds it under its window's text hash.
    """
    if result.problem:
        return result.problem
    if not result.sample:
        return None
    # A vector's id is its window's text hash, the cache's key (index/shared_vectors.py).
    cached = manifest.cached_vectors(model, list(result.sample))
    compared = differ = 0
    for text_hash, stored in result.sample.items():
        if text_hash not in cached:
            continue
        compared += 1
        truth = cached[text_hash]
        if stored.shape != truth.shape or not np.allclose(stored, truth, atol=1e-3):
            differ += 1
    if differ and differ * 10 >= compared:
        return f"{differ} of {compared} sampled vectors differ from the ones ragd stored"
    return None


def prepare_dense(data_dir: Path, manifest: Manifest, model: str, room: bool = True) -> str | None:
    """Start-up: probe ChromaDB in a child process; a damaged store is removed, to be
    rebuilt from the embedding cache by the repair that follows. Returns what was wrong."""
    path = DataDir(data_dir).vectors
    problem = dense_problem(manifest, probe(path), model)
    if problem is None:
        return None
    if not room or is_space_error(RuntimeError(problem)):
        # On a full disk ChromaDB may fail only for want of space, and a rebuild could
        # not be written anyway: keep what there is.
        log.warning("could not verify the vector index %s on a full disk: %s", path, problem)
        return None
    log.warning(
        "the vector index %s is damaged: %s; rebuilding it from the embedding cache",
        path,
        problem,
    )
    shutil.rmtree(path)
    return f"the vector index was damaged ({problem})"
