"""Damaged stores are found and rebuilt, or refused with the fix in one line.

Real ChromaDB, tantivy and SQLite, damaged the way disks and people damage them: random
bytes over the HNSW graph (which crashes ChromaDB's native reader with SIGSEGV), the HNSW
segment folder deleted, SQLite files cut in half, pages overwritten, a malformed `roots`
value, NaN in the embedding cache, and a second writer holding tantivy's lock.
"""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from ragd.index.dense import ChromaStore
from ragd.index.dense_probe import Reader, probe
from ragd.index.lexical import LexicalBusy, LexicalDoc, TantivyIndex
from ragd.index.manifest import ChunkRow, FileRow, Manifest
from ragd.index.verify import DataDamaged, open_manifest, prepare_dense, remembered_roots

MODEL = "test-model"
VECTORS = 1200  # past ChromaDB's sync threshold (1000), so the HNSW graph is on disk


def unit_vectors(n: int, seed: int = 0) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, 384)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def vector_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Manifest]:
    """A data dir whose ChromaDB holds VECTORS windows the manifest and its cache know."""
    data = tmp_path_factory.mktemp("dense")
    manifest = Manifest(data / "manifest.sqlite3")
    vectors = unit_vectors(VECTORS)
    rows = [
        ChunkRow(f"c{i:05d}", "/r", "f.md", i, "h", f"text {i}", None, (f"hash{i}",))
        for i in range(VECTORS)
    ]
    manifest.commit_file(FileRow("/r", "f.md", 1, 1, "sha", tuple(r.chunk_id for r in rows)), rows)
    manifest.store_vectors(MODEL, {f"hash{i}": vectors[i] for i in range(VECTORS)})
    ChromaStore(data / "chroma").upsert([f"hash{i}" for i in range(VECTORS)], vectors)
    return data, manifest


def damaged_copy(vector_store: tuple[Path, Manifest], tmp_path: Path, how: str) -> Path:
    data, _ = vector_store
    copy = tmp_path / "chroma"
    shutil.copytree(data / "chroma", copy)
    segment = next(p for p in copy.iterdir() if p.is_dir())
    graph = segment / "data_level0.bin"
    if how == "random bytes over the graph":
        rng = random.Random(1)
        with open(graph, "r+b") as f:
            for _ in range(200):
                f.seek(rng.randrange(graph.stat().st_size))
                f.write(rng.randbytes(8))
    elif how == "segment folder deleted":
        shutil.rmtree(segment)
    elif how == "sqlite cut in half":
        sqlite = copy / "chroma.sqlite3"
        os.truncate(sqlite, sqlite.stat().st_size // 2)
    return copy


def test_a_sound_vector_store_passes_the_probe(vector_store) -> None:  # type: ignore[no-untyped-def]
    data, _ = vector_store
    result = probe(data / "chroma", want_ids=True)
    assert result.problem is None
    assert result.count == VECTORS and len(result.ids) == VECTORS
    assert len(result.sample) == 32


def test_a_probe_child_started_ahead_answers_as_one_started_at_once(  # type: ignore[no-untyped-def]
    vector_store, tmp_path
) -> None:
    """`ragd check` starts its probe child before it has copied the folder to probe
    (`dense_probe.Reader`): it imports ChromaDB, then reads the folder from its stdin. Its
    answers are those of a child started with the folder; one never asked ends."""
    data, _ = vector_store
    sound = probe(data / "chroma", want_ids=True, reader=Reader())
    assert sound.problem is None
    assert sound.count == VECTORS and len(sound.ids) == VECTORS and len(sound.sample) == 32
    damaged = damaged_copy(vector_store, tmp_path, "sqlite cut in half")
    problem = probe(damaged, reader=Reader()).problem
    assert problem is not None and problem == probe(damaged).problem
    unasked = Reader()
    assert unasked.proc.communicate(b"", timeout=60)[0] == b""  # its stdin closed unread
    assert unasked.proc.returncode == 0
    never = Reader()
    never.close()
    assert never.proc.returncode is not None


@pytest.mark.parametrize(
    "how", ["random bytes over the graph", "segment folder deleted", "sqlite cut in half"]
)
def test_a_damaged_vector_store_is_found_without_crashing_and_rebuilt(  # type: ignore[no-untyped-def]
    vector_store, tmp_path, how
) -> None:
    damaged = damaged_copy(vector_store, tmp_path, how)
    # Start-up's check: the probe runs in a child (a SIGSEGV there is a finding, not our
    # death), the damaged folder goes, and the repair refills it from the embedding cache.
    _, manifest = vector_store
    reason = prepare_dense(tmp_path, manifest, MODEL)
    assert reason and "vector index was damaged" in reason, how
    if how == "random bytes over the graph" and "crashed" in reason:
        assert "SIGSEGV" in reason
    assert not damaged.exists()


def test_vectors_that_differ_from_the_cache_are_damage(vector_store, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from ragd.index.dense_probe import ProbeResult
    from ragd.index.verify import dense_problem

    _, manifest = vector_store
    garbage = {f"hash{i}": v for i, v in enumerate(unit_vectors(8, seed=9))}
    assert "differ" in (dense_problem(manifest, ProbeResult(sample=garbage), MODEL) or "")
    truth = {f"hash{i}": v for i, v in enumerate(unit_vectors(8))}
    assert dense_problem(manifest, ProbeResult(sample=truth), MODEL) is None


def small_manifest(data: Path) -> Manifest:
    manifest = Manifest(data / "manifest.sqlite3")
    for f in range(30):
        rows = [
            ChunkRow(f"c{f}_{i}", "/r", f"f{f}.md", i, "h", "text " * 200, None, ("x",))
            for i in range(10)
        ]
        manifest.commit_file(
            FileRow("/r", f"f{f}.md", 1, 1, "s", tuple(r.chunk_id for r in rows)), rows
        )
    manifest.set_meta("roots", '["/r"]')
    manifest._db().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    manifest.close()
    return manifest


@pytest.mark.parametrize("how", ["cut in half", "pages overwritten"])
def test_a_damaged_manifest_is_refused_with_the_command_that_fixes_it(
    tmp_path: Path, how: str
) -> None:
    path = small_manifest(tmp_path).path
    if how == "cut in half":
        os.truncate(path, path.stat().st_size // 2)
    else:
        with open(path, "r+b") as f:
            for page in (3, 7, 12):
                f.seek(page * 4096)
                f.write(random.Random(page).randbytes(4096))
    for read_only in (True, False):
        with pytest.raises(DataDamaged) as caught:
            open_manifest(tmp_path, read_only=read_only)
        line = str(caught.value)
        assert "\n" not in line and str(path) in line
        assert f"ragd reset --data-dir {tmp_path}" in line


@pytest.mark.parametrize("value", ["{not json", '{"a": 1}', "[1, 2]"])
def test_malformed_roots_are_recovered_from_the_indexed_files(tmp_path: Path, value: str) -> None:
    manifest = small_manifest(tmp_path)
    assert remembered_roots(manifest) == (["/r"], None)
    manifest.set_meta("roots", value)
    roots, note = remembered_roots(manifest)
    assert roots == ["/r"] and note and "recovered 1" in note


def test_nan_in_the_embedding_cache_counts_as_not_cached(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "manifest.sqlite3")
    good, bad = unit_vectors(2)
    bad[5] = np.nan
    manifest.store_vectors(MODEL, {"good": good, "bad": bad, "zero": np.zeros(384, np.float32)})
    assert set(manifest.cached_vectors(MODEL, ["good", "bad", "zero"])) == {"good"}


def test_a_busy_lexical_lock_is_busy_not_corruption(tmp_path: Path) -> None:
    path = tmp_path / "tantivy"
    live = TantivyIndex(path)  # the running daemon's writer
    live.add([LexicalDoc("c1", "a.md", "Ferries", "The ferry leaves at noon.")])
    live.commit()
    files = sorted(p.name for p in path.iterdir())
    with pytest.raises(LexicalBusy):
        TantivyIndex(path)
    (path / "meta.json").write_text("{ damaged")  # damaged *and* locked: still never wiped
    with pytest.raises(LexicalBusy):
        TantivyIndex(path)
    assert sorted(p.name for p in path.iterdir()) == files
    assert live.search("ferry", 3)  # the live writer is untouched


def test_the_read_only_lexical_index_works_beside_a_writer(tmp_path: Path) -> None:
    path = tmp_path / "tantivy"
    live = TantivyIndex(path)
    live.add([LexicalDoc("c1", "a.md", "Ferries", "The ferry leaves at noon.")])
    live.commit()
    before = {p.name: p.stat().st_mtime_ns for p in path.iterdir()}
    reader = TantivyIndex(path, read_only=True)
    assert reader.all_ids() == {"c1"} and reader.num_docs() == 1
    assert {p.name: p.stat().st_mtime_ns for p in path.iterdir()} == before


def test_the_read_only_manifest_creates_nothing(tmp_path: Path) -> None:
    small_manifest(tmp_path)
    before = sorted(os.listdir(tmp_path))
    reader = Manifest(tmp_path / "manifest.sqlite3", read_only=True)
    assert reader.counts() == (30, 300) and reader.integrity_problem() is None
    with pytest.raises(sqlite3.OperationalError):
        reader.set_meta("roots", "[]")
    assert sorted(os.listdir(tmp_path)) == before


def _lexical_of_40(path: Path) -> list[LexicalDoc]:
    """A closed tantivy index at `path` of 40 short chunks; returns them."""
    import gc

    docs = [
        LexicalDoc(
            f"{i:032x}",
            f"doc{i}.md",
            f"Ferry note {i}",
            f"The quartz gauge on vessel {i} is calibrated every morning; serial QG-{i:03d}. "
            f"Crew {i} signs the gauge log. " * 3,
        )
        for i in range(40)
    ]
    index = TantivyIndex(path)
    index.add(docs)
    index.commit()
    index.close()
    del index
    gc.collect()  # (its writer lock goes with it)
    return docs


def _fill_middle(path: Path, suffix: str, byte: int) -> None:
    """The middle half of every `*.suffix` file of the index set to `byte` in place, its
    size and footer kept (what a bad sector or a stray write leaves; an index open on it
    reads the new bytes through its mapping)."""
    for segment_file in path.glob(f"*.{suffix}"):
        size = segment_file.stat().st_size
        with segment_file.open("r+b") as f:
            f.seek(size // 4)
            f.write(bytes([byte]) * (3 * size // 4 - size // 4))


@pytest.mark.parametrize("suffix", ["idx", "term"])
def test_segments_damaged_after_the_open_are_lexical_damage_until_rebuilt(
    tmp_path: Path, suffix: str
) -> None:
    """Postings (`.idx`: a panic inside tantivy, a BaseException) or the term dictionary
    (`.term`: tantivy-py's ValueError) damaged under an open index (the open verifies each
    file's checksum since attack75, so damage made while ragd was stopped is rebuilt
    there): every read is `LexicalDamaged`, said by `problem()`, until `rebuild`
    (attack73: the panic had reached the request's thread as `no reply`, the ValueError
    as `internal error`)."""
    from ragd.index.lexical import LexicalDamaged

    path = tmp_path / "tantivy"
    docs = _lexical_of_40(path)
    index = TantivyIndex(path)
    assert index.num_docs() == 40 and index.problem() is None
    _fill_middle(path, suffix, 0)
    with pytest.raises(LexicalDamaged):
        index.search("quartz gauge", 5)
    assert "the lexical index is damaged" in (index.problem() or "")
    with pytest.raises(LexicalDamaged):  # refused at once until it is rebuilt
        index.search("ferry", 5)
    index.rebuild(docs)
    assert index.problem() is None and index.doc_freqs(["quartz"])[0] == 40
    assert len(index.search("quartz gauge", 50)) == 40


def test_a_doc_store_whose_damage_panics_the_open_is_rebuilt(tmp_path: Path) -> None:
    """A doc store (`.store`) damaged so that tantivy's open panics (its skip index: an
    `unwrap` on "Reach end of buffer while reading VInt") is an index that would not open,
    rebuilt, as any other; the read-only reader of `ragd check` says it will not open.
    Before (attack73): the panic, a BaseException, passed `except Exception` out of the
    open: a traceback from every `ragd serve` on that data dir."""
    from ragd.index.lexical import LexicalUnreadable

    path = tmp_path / "tantivy"
    _lexical_of_40(path)
    _fill_middle(path, "store", 0xFF)
    with pytest.raises(LexicalUnreadable, match="will not open"):
        TantivyIndex(path, read_only=True)
    index = TantivyIndex(path)
    assert "would not open" in index.rebuilt_because
    assert index.num_docs() == 0  # the start-up repair refills it from the manifest


def _norms_scrambled(path: Path) -> None:
    """Every field-length byte of the index's segments but the last 40 set at random, the
    file's size and footer kept: each byte still decodes (any value is a length), so reads
    neither panic nor fail, and BM25 ranks by the wrong lengths."""
    import struct

    rng = random.Random(1)
    for norms in path.glob("*.fieldnorm"):
        data = bytearray(norms.read_bytes())
        footer, _ = struct.unpack("<II", data[-8:])
        body = len(data) - 8 - footer
        data[: body - 40] = bytes(rng.randrange(256) for _ in range(body - 40))
        norms.write_bytes(bytes(data))


def test_a_segment_that_decodes_but_fails_its_checksum_is_rebuilt_at_the_open(
    tmp_path: Path,
) -> None:
    """attack75: field lengths changed while ragd was stopped (a bad sector, a stray write)
    decode as any others: before, the open and every read passed, "quartz gauge" ranked
    other chunks first (doc 10 over doc 0), and neither `rag status` nor `ragd check` said
    anything. tantivy's footer holds each file's CRC-32, now verified at the open
    (`index/segment_checksums.py`): the index is rebuilt from the manifest, and the reader
    of `ragd check` says it will not open."""
    from ragd.index.lexical import LexicalUnreadable

    path = tmp_path / "tantivy"
    _lexical_of_40(path)
    _norms_scrambled(path)
    with pytest.raises(LexicalUnreadable, match="fails its checksum"):
        TantivyIndex(path, read_only=True)
    index = TantivyIndex(path)
    assert "fails its checksum" in index.rebuilt_because
    assert index.num_docs() == 0  # the start-up repair refills it from the manifest
