"""The real-document corpus of `bench/scale.py --phases real` (bench/real_corpus.py).

The fast test builds a small one from /usr/share/doc and checks it is what it claims: the
packages' own texts, byte for byte, no licence boilerplate or duplicates, chunk counts as
ragd's chunker makes them. The `stress` test runs the whole real phase at ≈ 100 chunks in
both store modes (a daemon, a `chroma run`, the raw-encode baseline).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ragd.ingest.chunking import ChunkParams, chunk_document
from ragd.ingest.loaders import parse
from tests.support.daemon import REPO

sys.path.insert(0, str(REPO / "bench"))
import real_corpus  # a bench module, found through the path above

pytestmark = pytest.mark.skipif(
    not real_corpus.DOC.is_dir(), reason="no /usr/share/doc on this machine"
)


def test_the_corpus_is_the_packages_own_text_counted_by_ragds_chunker(tmp_path: Path) -> None:
    out = tmp_path / "corpus"
    files = real_corpus.build(out, 150, seed=3)
    summary = real_corpus.summary(files)
    assert summary["chunks"] >= 150
    assert summary["files"] == len(list(p for p in out.rglob("*") if p.is_file()))
    contents = set()
    for f in files:
        source = Path(f.source)
        data = source.read_bytes()
        if source.name.endswith(".gz"):
            data = gzip.decompress(data)
        written = (out / f.path).read_bytes()
        assert written == data and len(data) == f.bytes
        assert not source.name.startswith("copyright")
        assert f.chunks == len(chunk_document(parse(f.path, written), ChunkParams()))
        contents.add(written)
    assert len(contents) == len(files)  # no file twice under two names

    stamp = (out / files[0].path).stat().st_mtime_ns
    assert real_corpus.build(out, 150, seed=3) == files  # reused, not rebuilt
    assert (out / files[0].path).stat().st_mtime_ns == stamp


@pytest.mark.stress
def test_the_real_phase_runs_in_both_store_modes(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    args = ["--phases", "real", "--real-chunks", "100", "--queries", "10"]
    args += ["--baseline-windows", "24", "--work", str(tmp_path / "work"), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "scale.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    real = json.loads(out.read_text())["real"]
    for mode in ("embedded", "server"):
        result = real[mode]
        assert result["files"] == real["corpus"]["files"]
        assert result["chunks"] == real["corpus"]["chunks"]
        assert result["embeddings_computed"] >= real["corpus"]["distinct_windows"]
        assert result["search_after"]["n"] == 10
        assert result["ratio_to_raw_encode"] > 0
    assert real["server"]["server_disk_mb"] > 0
