"""Things ChromaDB never writes, put in its folder, are damage found at once (not read).

Before: a FIFO named `header.bin` in the HNSW segment folder held the start-up probe for its
whole timeout (600 s: `ragd serve` stayed "starting", by hand still so after 60 s), and
`ragd check` on a stopped daemon's data dir copied a link to `/dev/zero` into its temporary
folder until the disk was full (`shutil.copytree` refuses FIFOs only).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from ragd.index.dense import ChromaStore
from ragd.index.manifest import ChunkRow, FileRow, Manifest
from ragd.index.verify import prepare_dense
from tests.support.daemon import base_env

MODEL = "test-model"
VECTORS = 1200  # past ChromaDB's sync threshold (1000), so the HNSW files are on disk
GUARD_S = 120.0  # only for the broken behaviour: a probe that waits on the FIFO
COPY_LIMIT = 64 * 1024 * 1024  # what `ragd check` may write in the test before SIGXFSZ


def _data_dir(folder: Path) -> tuple[Path, Manifest]:
    data = folder / "data"
    data.mkdir()
    manifest = Manifest(data / "manifest.sqlite3")
    v = np.random.default_rng(0).standard_normal((VECTORS, 384)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    rows = [
        ChunkRow(f"c{i:05d}", "/r", "f.md", i, "h", f"text {i}", None, (f"hash{i}",))
        for i in range(VECTORS)
    ]
    manifest.commit_file(FileRow("/r", "f.md", 1, 1, "sha", tuple(r.chunk_id for r in rows)), rows)
    manifest.store_vectors(MODEL, {f"hash{i}": v[i] for i in range(VECTORS)})
    store = ChromaStore(data / "chroma")
    store.upsert([f"c{i:05d}#0" for i in range(VECTORS)], v)
    store.close()
    return data, manifest


def _replace(data: Path, name: str, how: str) -> None:
    segment = next(p for p in (data / "chroma").iterdir() if p.is_dir())
    target = segment / name
    assert target.is_file()
    target.unlink()
    if how == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(how)


ODD = [("header.bin", "fifo"), ("data_level0.bin", "/dev/zero")]


@pytest.mark.parametrize(("name", "how"), ODD)
def test_the_start_up_probe_calls_it_damage_without_reading_it(
    tmp_path: Path, name: str, how: str
) -> None:
    data, manifest = _data_dir(tmp_path)
    _replace(data, name, how)
    found: list[str | None] = []
    probe = threading.Thread(target=lambda: found.append(prepare_dense(data, manifest, MODEL)))
    probe.daemon = True
    probe.start()
    probe.join(GUARD_S)
    assert found, f"the probe was still reading after {GUARD_S:g} s"
    assert found[0] is not None and "not a file ChromaDB writes" in found[0]
    assert name in found[0]
    assert not (data / "chroma").exists()  # removed, for the repair to rebuild


def _limit_writes() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (COPY_LIMIT, COPY_LIMIT))


def test_ragd_check_names_a_link_to_a_device_and_copies_nothing(tmp_path: Path) -> None:
    data, manifest = _data_dir(tmp_path)
    manifest.close()
    _replace(data, "data_level0.bin", "/dev/zero")
    env = base_env(tmp_path) | {"TMPDIR": str(tmp_path / "tmp")}
    (tmp_path / "tmp").mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "ragd", "check", "--data-dir", str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        preexec_fn=_limit_writes,  # before the fix: killed by SIGXFSZ mid-copy
    )
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout + done.stderr
    assert "data_level0.bin is a symbolic link, not a file ChromaDB writes" in out
    assert "Traceback" not in out
    assert list((tmp_path / "tmp").iterdir()) == []
