"""Corpora built from a Debian package that is downloaded, never installed: only the
pinned .deb's bytes are used, only the kept part is written, under the folder asked for.
The .deb is built here with dpkg-deb and put where `apt-get download` would have left it,
so no test needs the network or root."""

from __future__ import annotations

import hashlib
import io
import subprocess
import zipfile
from pathlib import Path

import pytest
from bench import debs
from bench.corpora import Corpus, CorpusUnavailable
from bench.debs import Deb, DebJar


def jar(members: dict[str, bytes]) -> bytes:
    """A Java archive (a zip) holding `members`."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return data.getvalue()


FILES = {
    "usr/share/doc/demo/Guide.txt.gz": b"not really gzip\n",
    "usr/share/doc/demo/copyright": b"MIT\n",
    "usr/share/demo/descript/gods.txt": b"%%%%\nAsha\n\nA god.\n",
    "usr/share/demo/descript/fr/gods.txt": b"%%%%\nAsha\n\nUn dieu.\n",
    # a Clojure library's sources exist only inside its jar (libcore-async-clojure's)
    "usr/share/java/demo.jar": jar(
        {
            "clojure/demo/core.clj": b'(ns demo.core)\n(defn hi "Says hi." [] :hi)\n',
            "META-INF/MANIFEST.MF": b"Manifest-Version: 1.0\n",
            "../escape.clj": b"(ns escape)\n",
        }
    ),
}


def cached_deb(cache: Path, tmp: Path) -> str:
    """A demo_1:2.0-1 .deb in the cache folder apt-get would have downloaded it to; its
    sha256."""
    tree = tmp / "tree"
    for name, data in FILES.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_bytes(data)
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN" / "control").write_text(
        "Package: demo\nVersion: 1:2.0-1\nArchitecture: all\nMaintainer: t <t@example.org>\n"
        "Description: demo\n"
    )
    folder = cache / "demo_1%3a2.0-1"
    folder.mkdir(parents=True)
    deb = folder / "demo_2.0-1_all.deb"
    subprocess.run(
        ["dpkg-deb", "--build", "--root-owner-group", str(tree), str(deb)],
        check=True,
        capture_output=True,
    )
    return hashlib.sha256(deb.read_bytes()).hexdigest()


def test_only_the_kept_part_of_the_pinned_deb_is_built_under_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(debs, "CACHE", tmp_path / "cache")
    digest = cached_deb(tmp_path / "cache", tmp_path)
    guide = Deb(
        "demo",
        "1:2.0-1",
        digest,
        ("usr/share/doc/demo/Guide.txt.gz",),
        under="usr/share/doc/demo",
        to="demo",
    )
    descript = Deb(
        "demo",
        "1:2.0-1",
        digest,
        ("usr/share/demo/descript/*.txt",),
        drop=("usr/share/demo/descript/*/*",),
        under="usr/share/demo/descript",
        to="demo/descript",
    )
    folder = Corpus("demo", tmp_path / "q.jsonl", (guide, descript)).build(tmp_path / "out")
    built = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert built == ["demo/Guide.txt.gz", "demo/descript/gods.txt"]
    assert (folder / "demo/descript/gods.txt").read_bytes() == FILES[
        "usr/share/demo/descript/gods.txt"
    ]


def test_other_bytes_make_the_corpus_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(debs, "CACHE", tmp_path / "cache")
    cached_deb(tmp_path / "cache", tmp_path)
    source = Deb("demo", "1:2.0-1", "0" * 64, ("usr/share/doc/demo/*",))
    with pytest.raises(CorpusUnavailable, match="is pinned"):
        Corpus("demo", tmp_path / "q.jsonl", (source,)).build(tmp_path / "out")


def test_a_jar_s_members_are_built_from_inside_the_pinned_deb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(debs, "CACHE", tmp_path / "cache")
    digest = cached_deb(tmp_path / "cache", tmp_path)
    sources = DebJar(
        "demo",
        "1:2.0-1",
        digest,
        ("usr/share/java/demo.jar",),
        to="src",
        members=("clojure/*", "../*"),  # a member climbing out is never written
    )
    folder = Corpus("demo", tmp_path / "q.jsonl", (sources,)).build(tmp_path / "out")
    built = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert built == ["src/clojure/demo/core.clj"]
    assert b'"Says hi."' in (folder / "src/clojure/demo/core.clj").read_bytes()
    assert not (tmp_path / "out" / "escape.clj").exists()
