"""The stores with the real model: cosine space, self-similarity, stemming, rebuilds."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.core.roots import Roots
from ragd.core.vector_store import VectorStore
from ragd.index import writer as writer_module
from ragd.index.consistency import compare
from ragd.index.space import Interrupted
from ragd.index.store import Stores, fingerprint
from ragd.index.writer import IndexWriter
from ragd.ingest.assembly import build_indexer
from ragd.ingest.chunking import ChunkParams, chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import parse
from ragd.ingest.parse_pool import shared_pool
from ragd.ingest.planner import FileRules, Planner
from ragd.ingest.work_queue import WorkQueue


@pytest.fixture
def indexed(tmp_path: Path, embedder):  # type: ignore[no-untyped-def]
    return index_two_files(tmp_path, embedder)


def index_two_files(tmp_path: Path, embedder, where: VectorStore | None = None):  # type: ignore[no-untyped-def]
    """Two small files indexed into fresh stores (a server: tests/daemon/test_vector_server.py)."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "billing.md").write_text(
        "# Billing\n\n## Refunds\n\nWe charged the member twice and refunded the charge.\n\n"
        "## Invoices\n\nInvoices are emailed on the first working day of the month.\n"
    )
    (root / "garden.txt").write_text("Tomatoes need six hours of sun and regular watering.\n")
    stores = Stores.open(tmp_path / "data", where=where)
    roots = Roots([str(root)])
    indexer = build_indexer(
        IndexWriter(stores, embedder),
        Planner(embedder, rules=lambda: FileRules(20 << 20)),
        shared_pool(),
        roots,
        PathFilter(("*.md", "*.txt")),
        WorkQueue(),
    )
    for name in ("billing.md", "garden.txt"):
        indexer.sync(str(root), name)
    return stores, indexer, root


def test_dense_space_is_cosine_and_a_chunk_scores_one_against_itself(indexed, embedder) -> None:  # type: ignore[no-untyped-def]
    stores, _, root = indexed
    assert stores.dense.space() == "cosine"
    assert stores.dense.hnsw_settings()["space"] == "cosine"
    chunk = stores.manifest.chunks_of(str(root), "billing.md")[0]
    embedded_text = f"{chunk.heading}\n{chunk.text}"  # what the window holds
    hits = stores.dense.query(embedder.embed([embedded_text], lane="query")[0], 3)
    assert hits[0][0] == chunk.windows[0]  # the vector's id: its window's text hash
    assert hits[0][1] == pytest.approx(1.0, abs=1e-3)


def test_the_manifest_counts_what_the_indexes_hold(indexed) -> None:  # type: ignore[no-untyped-def]
    """`chunk_totals` (SQLite's count, asked every `unwatched_rescan_s` on a vector
    server) agrees with the rows read one by one and with both indexes."""
    stores, _, _ = indexed
    windows = stores.manifest.all_chunk_windows()
    texts = {h for row in stores.manifest.chunk_rows(windows).values() for h in row.windows}
    assert stores.manifest.chunk_totals() == (len(windows), len(texts))
    assert stores.manifest.chunk_totals() == (stores.lexical.num_docs(), stores.dense.count())
    assert len(windows) >= 3


def test_lexical_stemming_finds_inflected_forms(indexed) -> None:  # type: ignore[no-untyped-def]
    stores, _, root = indexed
    ids = {c.chunk_id for c in stores.manifest.chunks_of(str(root), "billing.md")}
    for query in ("charging", "charge", "refunds", "REFUNDING"):
        hits = [cid for cid, _ in stores.lexical.search(query, 5)]
        assert hits and hits[0] in ids, query


def test_lexical_query_syntax_is_never_interpreted(indexed) -> None:  # type: ignore[no-untyped-def]
    stores, _, _ = indexed
    for hostile in ('"unbalanced', "a AND (", "field:value", "*", "NOT", ""):
        stores.lexical.search(hostile, 5)  # must not raise


def test_corrupt_lexical_index_is_rebuilt_from_the_manifest(indexed, embedder, tmp_path) -> None:  # type: ignore[no-untyped-def]
    stores, _, _ = indexed
    stores.lexical.close()
    (tmp_path / "data" / "tantivy" / "meta.json").write_text("{ not json")
    reopened = Stores.open(tmp_path / "data")
    assert reopened.lexical.rebuilt_because.startswith("the lexical index would not open")
    report = compare(reopened)
    assert report.lexical_missing and not report.dense_missing
    repair(reopened, embedder, report)
    assert compare(reopened).consistent
    assert reopened.lexical.search("invoices emailed", 3)


def test_orphans_are_removed_and_missing_vectors_restored(indexed, embedder) -> None:  # type: ignore[no-untyped-def]
    stores, _, root = indexed
    chunk = stores.manifest.chunks_of(str(root), "garden.txt")[0]
    stores.dense.delete([chunk.windows[0]])
    import numpy as np

    stores.dense.upsert(["ghost"], np.ones((1, 384), dtype=np.float32) / np.sqrt(384))
    report = compare(stores)
    assert report.dense_missing == {chunk.windows[0]}
    assert report.dense_orphans == {"ghost"}
    assert repair(stores, embedder, report) == 0  # restored from the embedding cache
    assert compare(stores).consistent


def test_fingerprint_change_drops_the_indexes(indexed, embedder) -> None:  # type: ignore[no-untyped-def]
    stores, indexer, _ = indexed
    current = fingerprint(embedder.model_id, 384, 256, ChunkParams().fingerprint())
    stores.manifest.set_meta("fingerprint", current)
    assert indexer.writer.ensure_fingerprint(current) is False
    changed = fingerprint(embedder.model_id, 384, 256, ChunkParams(400, 40).fingerprint())
    assert indexer.writer.ensure_fingerprint(changed)
    assert stores.manifest.counts() == (0, 0)
    assert stores.dense.count() == 0 and stores.lexical.num_docs() == 0


def test_unchanged_save_and_one_paragraph_edit(indexed, embedder) -> None:  # type: ignore[no-untyped-def]
    stores, indexer, root = indexed
    sections = "\n\n".join(
        f"## Section {i}\n\nSection {i} explains procedure {i} in enough words to matter. "
        f"It has a second sentence about item {i}.\n\nAnd a second paragraph for {i}."
        for i in range(45)
    )
    big = root / "big.md"
    big.write_text(f"# Big manual\n\n{sections}\n")
    indexer.sync(str(root), "big.md")
    assert len(stores.manifest.chunks_of(str(root), "big.md")) >= 40
    before = indexer.counters.embeddings_computed
    big.write_text(big.read_text())  # same bytes, new mtime
    indexer.sync(str(root), "big.md")
    assert indexer.counters.embeddings_computed == before
    big.write_text(big.read_text().replace("procedure 17 in", "procedure seventeen, revised, in"))
    indexer.sync(str(root), "big.md")
    assert 1 <= indexer.counters.embeddings_computed - before <= 3
    assert compare(stores).consistent


def test_a_file_excluded_after_indexing_is_removed(indexed) -> None:  # type: ignore[no-untyped-def]
    stores, indexer, root = indexed
    assert stores.manifest.file(str(root), "garden.txt") is not None
    # (as after a restart with new patterns: the reconcile sees the new filter)
    indexer.reconcile.filter = PathFilter(("*.md", "*.txt"), exclude=("garden.txt",))
    indexer.sync(str(root), "garden.txt")
    assert stores.manifest.file(str(root), "garden.txt") is None
    assert compare(stores).consistent


def test_edits_inside_long_sections_re_embed_only_nearby_windows(indexed) -> None:  # type: ignore[no-untyped-def]
    stores, indexer, root = indexed
    vocabulary = "ferry harbour ticket crew schedule weather vessel manifest kiosk refund".split()
    paragraphs = [
        f"Paragraph {i} " + " ".join(vocabulary[(i * 7 + j * 3) % 10] for j in range(30 + i % 25))
        for i in range(90)
    ]

    def write() -> None:
        sections = [
            f"## Part {s}\n\n" + "\n\n".join(paragraphs[s * 30 : (s + 1) * 30]) for s in range(3)
        ]
        (root / "long.md").write_text("# Long manual\n\n" + "\n\n".join(sections))

    write()
    indexer.sync(str(root), "long.md")
    assert len(stores.manifest.chunks_of(str(root), "long.md")) >= 12
    for k in (5, 20, 33, 47, 61, 88):
        words = paragraphs[k].split()
        words.insert(len(words) // 2, "now revised with several extra words")
        paragraphs[k] = " ".join(words)
        before = indexer.counters.embeddings_computed
        write()
        indexer.sync(str(root), "long.md")
        assert indexer.counters.embeddings_computed - before <= 3, k
    assert compare(stores).consistent


def test_a_paragraph_pushed_into_the_next_chunk_keeps_its_embedding(indexed) -> None:  # type: ignore[no-untyped-def]
    """The worst case for re-embedding: one appended sentence makes a paragraph no longer
    fit its chunk, so chunk boundaries move. Still ≤ 3 embeddings, and undoing the edit
    computes none (every window is back in the cache)."""
    stores, indexer, root = indexed
    vocabulary = "pier berth tide kiosk crew ramp cabin deck fare gangway".split()
    original = [
        f"Note {i}: "
        + " ".join(vocabulary[(i * 3 + j) % 10] for j in range(40 + (i * 17) % 70))
        + "."
        for i in range(48)
    ]
    extra = (
        " The harbour master added one more sentence to this note,"
        " and then a second clause that makes it longer still."
    )

    def text(edited: int | None = None) -> str:
        paragraphs = [p + extra if i == edited else p for i, p in enumerate(original)]
        return "# Harbour notes\n\n" + "\n\n".join(
            f"## Part {part}\n\n" + "\n\n".join(paragraphs[part * 24 : part * 24 + 24])
            for part in range(2)
        )

    def layout(markdown: str) -> list[str]:  # where each chunk's own (non-overlap) text starts
        return [c.embed_text[:12] for c in chunk_document(parse("notes.md", markdown.encode()))]

    shifting = [k for k in range(len(original)) if layout(text(k)) != layout(text())]
    assert len(shifting) >= 2, "the document no longer exercises a boundary shift"
    path = root / "notes.md"
    path.write_text(text())
    indexer.sync(str(root), "notes.md")
    assert len(layout(text())) >= 12
    for k in shifting:
        before = indexer.counters.embeddings_computed
        path.write_text(text(k))
        indexer.sync(str(root), "notes.md")
        assert 1 <= indexer.counters.embeddings_computed - before <= 3, k
        before = indexer.counters.embeddings_computed
        path.write_text(text())
        indexer.sync(str(root), "notes.md")
        assert indexer.counters.embeddings_computed == before, k
    assert compare(stores).consistent


def test_a_vector_lost_from_cache_and_index_is_rebuilt_from_its_window_text(  # type: ignore[no-untyped-def]
    indexed, embedder
) -> None:
    stores, indexer, root = indexed
    paragraphs = [
        f"Item {i} explains the ferry timetable rule number {i} in words." for i in range(80)
    ]
    (root / "rules.md").write_text("# Rules\n\n" + "\n\n".join(paragraphs))
    indexer.sync(str(root), "rules.md")
    chunks = stores.manifest.chunks_of(str(root), "rules.md")
    assert len(chunks) >= 2
    victim = chunks[1]  # starts with overlap carried from chunk 0
    db = stores.manifest._db()
    db.execute("DELETE FROM embeddings WHERE text_hash=?", (victim.windows[0],))
    stores.dense.delete([victim.windows[0]])
    report = compare(stores)
    assert report.dense_missing == {victim.windows[0]}
    assert repair(stores, embedder, report) == 1
    assert compare(stores).consistent
    assert stores.manifest.file(str(root), "rules.md") is not None


class _StopAfterFirstSlice:
    """The real embedder; shutdown is requested while the first slice is being encoded."""

    def __init__(self, embedder, indexer) -> None:  # type: ignore[no-untyped-def]
        self._embedder, self._indexer = embedder, indexer

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self._embedder, name)

    def embed(self, texts, lane="index"):  # type: ignore[no-untyped-def]
        vectors = self._embedder.embed(texts, lane)
        self._indexer.writer.stopping.set()
        return vectors


def test_a_stop_mid_file_keeps_the_finished_slices_for_the_next_start(  # type: ignore[no-untyped-def]
    indexed, embedder, monkeypatch
) -> None:
    stores, indexer, root = indexed
    monkeypatch.setattr(writer_module, "EMBED_SLICE", 4)
    paragraphs = [f"Rule {i}: the ramp closes {i} minutes before sailing." for i in range(12)]
    (root / "rules.md").write_text("# Ramp rules\n\n" + "\n\n".join(paragraphs))
    before = indexer.counters.embeddings_computed
    indexer.writer.embedder = _StopAfterFirstSlice(embedder, indexer)
    with pytest.raises(Interrupted):
        indexer.sync(str(root), "rules.md")
    assert indexer.counters.embeddings_computed - before == 4
    assert stores.manifest.file(str(root), "rules.md") is None  # nothing half-applied
    indexer.writer.embedder, before = embedder, indexer.counters.embeddings_computed
    indexer.writer.stopping.clear()
    indexer.sync(str(root), "rules.md")  # what the next start's reconcile does
    assert indexer.counters.embeddings_computed - before == 12 - 4  # the slice was kept
    assert stores.manifest.file(str(root), "rules.md") is not None
    assert compare(stores).consistent


def repair(stores: Stores, embedder, report) -> int:  # type: ignore[no-untyped-def]
    """Start-up repair as the daemon runs it: the writer, rebuilding windows by the planner."""
    return IndexWriter(stores, embedder).repair(report, Planner(embedder).window_text)


def test_a_folder_moved_away_is_removed_with_a_few_commits_and_no_embedding(  # type: ignore[no-untyped-def]
    indexed, monkeypatch
) -> None:
    """A folder of files renamed: its old paths leave the indexes in REMOVE_BATCH slices,
    one tantivy commit each (not one per file), and the new paths reuse every embedding,
    searchable and scoped under the new name. The slice is made small (8) so a few dozen
    files cross it several times: each file synced here costs a commit of its own."""
    from ragd.index.chunk_paths import scope_key

    monkeypatch.setattr(writer_module, "REMOVE_BATCH", 8)
    files = 30
    stores, indexer, root = indexed
    (root / "burrows").mkdir()
    for i in range(files):
        (root / "burrows" / f"note{i}.md").write_text(f"# Note {i}\n\nWombat burrow {i} digs.\n")
    for i in range(files):
        indexer.sync(str(root), f"burrows/note{i}.md")
    assert len(stores.manifest.files_under(str(root), "burrows")) == files
    commits = 0
    real_commit = stores.lexical.commit

    def counted() -> None:  # the real commit, counted
        nonlocal commits
        commits += 1
        real_commit()

    stores.lexical.commit = counted
    computed = indexer.counters.embeddings_computed
    (root / "burrows").rename(root / "tunnelsMoved")
    indexer.sync(str(root), "burrows")
    assert stores.manifest.files_under(str(root), "burrows") == []
    assert 1 < commits <= -(-files // writer_module.REMOVE_BATCH) + 1, commits
    for i in range(files):
        indexer.sync(str(root), f"tunnelsMoved/note{i}.md")
    assert indexer.counters.embeddings_computed == computed
    hits = stores.lexical.search("tunnels moved", 5, [scope_key(str(root), "tunnelsMoved")])
    assert len(hits) == 5
    assert compare(stores).consistent


def test_the_writer_clears_the_clean_stop_flag_before_its_first_write(tmp_path, embedder) -> None:  # type: ignore[no-untyped-def]
    stores = Stores.open(tmp_path / "data")
    writer = IndexWriter(stores, embedder)
    writer.mark_clean(True)  # as an orderly stop leaves it
    writer.remove(str(tmp_path), "absent.md")  # a write that changes nothing still counts
    assert stores.manifest.get_meta("clean_shutdown") == "0"
    writer.mark_clean(True)
    writer.remove(str(tmp_path), "absent.md")
    assert stores.manifest.get_meta("clean_shutdown") == "1"  # cleared once, not per write


def test_a_file_growing_past_the_cap_is_warned_about_once(indexed, caplog) -> None:  # type: ignore[no-untyped-def]
    """A log past the size cap that keeps growing (or a file seen mid-write and again once
    whole): one warning, and the recorded reason always gives the latest size."""
    stores, indexer, root = indexed
    line = b"The growing log repeats the same line until it is past the cap.\n"
    grown = root / "growing.txt"
    warned = []
    for megabytes in (21, 22, 23):
        grown.write_bytes(line * (megabytes * 1024 * 1024 // len(line) + 1))
        caplog.clear()
        with caplog.at_level("DEBUG", logger="ragd.indexer"):
            indexer.sync(str(root), "growing.txt")
        warned += [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
        reason = stores.manifest.problem(str(root), "growing.txt")[0]
        assert reason.startswith(f"too large ({megabytes} MB, cap 20 MB)"), reason
    assert warned == ["skipped growing.txt: too large (21 MB, cap 20 MB)"]
    (root / "other.txt").write_bytes(line * ((21 << 20) // len(line) + 1))
    with caplog.at_level("WARNING", logger="ragd.indexer"):
        indexer.sync(str(root), "other.txt")
    assert any("skipped other.txt" in r.getMessage() for r in caplog.records), "another file"


def test_a_fingerprint_change_tries_the_files_skipped_under_the_old_one_again(  # type: ignore[no-untyped-def]
    indexed, embedder
) -> None:
    """attack77: a new chunker version (a reader that now reads what an older one
    refused: a UTF-16 text with one lone surrogate, Sphinx files of only autodoc
    directives) rebuilt every index from the documents, but a file skipped under the old
    version stayed held back by its recorded size and mtime: still skipped, its old
    reason in `rag status`, until the file changed or `rag ingest FILE`."""
    stores, indexer, root = indexed
    later = root / "later.md"
    later.write_text("# Later\n\nThe quokka ledger is kept in the west wing.\n")
    seen = later.stat()
    stores.manifest.record_problem(
        str(root), "later.md", "invalid UTF-16 text", seen.st_size, seen.st_mtime_ns
    )
    indexer.sync(str(root), "later.md")
    assert stores.manifest.chunks_of(str(root), "later.md") == []  # held, as before
    current = fingerprint(embedder.model_id, 384, 256, ChunkParams().fingerprint())
    stores.manifest.set_meta("fingerprint", current)
    changed = fingerprint(embedder.model_id, 384, 256, ChunkParams(400, 40).fingerprint())
    assert indexer.writer.ensure_fingerprint(changed)
    indexer.sync(str(root), "later.md")
    assert stores.manifest.chunks_of(str(root), "later.md")
    assert stores.manifest.problem(str(root), "later.md") is None
