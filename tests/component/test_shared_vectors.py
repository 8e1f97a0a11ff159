"""One vector per distinct window text (ragd/index/shared_vectors.py), with the real
ChromaDB, the real model and the real writer: a text many files share is stored once,
found from any of their folders, and leaves with its last holder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragd.core.config import LiveSettings, Settings
from ragd.core.roots import Roots
from ragd.index import shared_vectors
from ragd.index.chunk_paths import scope_key
from ragd.index.consistency import compare
from ragd.index.manifest import Manifest
from ragd.index.plan import FilePlan
from ragd.index.store import Stores
from ragd.index.writer import IndexWriter
from ragd.ingest.planner import Planner
from ragd.query.retrieval import COPIES_RANKED, Retriever

LICENCE = (
    "# Licence\n\nPermission is hereby granted, free of charge, to any person obtaining a "
    "copy of this software, to deal in the software without restriction.\n"
)
FOG = "# Crossings\n\nWhen fog comes down during a crossing, the crew sounds the horn twice.\n"


class Folder:
    """A root of files indexed through the real planner and writer."""

    def __init__(self, tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
        self.root = tmp_path / "notes"
        self.root.mkdir()
        self.stores = Stores.open(tmp_path / "data")
        self.writer = IndexWriter(self.stores, embedder)
        self.planner = Planner(embedder)
        self.retriever = Retriever(
            self.stores, embedder, Roots([str(self.root)]), LiveSettings(Settings())
        )
        self.embedder = embedder

    def put(self, files: dict[str, str]) -> None:
        plans = []
        for relpath, text in files.items():
            planned = self.planner.plan_bytes(str(self.root), relpath, text.encode())
            assert isinstance(planned, FilePlan)
            plans.append(planned)
        self.writer.index_files(plans)

    def remove(self, *relpaths: str) -> None:
        self.writer.remove_files(str(self.root), list(relpaths))

    def found(self, question: str, folder: str | None = None) -> list[str]:
        """The files of the dense ranking's chunks (in `folder` only, if given)."""
        scope = None if folder is None else [scope_key(str(self.root), folder)]
        vector = self.embedder.embed([question], lane="query")[0]
        chunk_ids = self.retriever.dense_ranking(vector, scope).ranking(100)
        rows = self.stores.manifest.chunk_rows(chunk_ids)
        return [rows[c].relpath for c in chunk_ids if c in rows]

    def scope_of(self, text_hash: str) -> list[str]:
        collection = self.stores.dense._collection  # type: ignore[attr-defined]
        got = collection.get(ids=[text_hash], include=["metadatas"])
        return list(got["metadatas"][0]["scope"]) if got["ids"] else []

    def licence_hash(self) -> str:
        rows = self.stores.manifest.chunks_of(str(self.root), "a/LICENSE.md")
        return rows[0].windows[0]


def licence_in(tmp_path: Path, files: int) -> Manifest:
    """A manifest (no model, no vector store) whose `files` files each hold one chunk of
    the same window text, "lic"."""
    from ragd.index.manifest import ChunkRow, FileRow

    manifest = Manifest(tmp_path / "manifest.sqlite3")
    rows = [
        ChunkRow(f"c{i:04}", "/r", f"pkg{i:04}/LICENSE", 0, "h", "t", None, ("lic",))
        for i in range(files)
    ]
    manifest.commit_files([(FileRow("/r", r.relpath, 1, 1, "s", (r.chunk_id,)), [r]) for r in rows])
    return manifest


@pytest.fixture
def folder(tmp_path: Path, embedder) -> Folder:  # type: ignore[no-untyped-def]
    return Folder(tmp_path, embedder)


def test_a_text_many_files_share_is_one_vector_and_the_rest_stay_findable(
    folder: Folder,
) -> None:
    """Before, each of 300 copies of a licence was its own vector: identical vectors
    close HNSW's graph around themselves (the module docstring). Now the copies are one
    vector, the distinct passages stay findable, and every copy is still a chunk."""
    copies = {f"pkg{i:03}/LICENSE.md": LICENCE for i in range(300)}
    folder.put({**copies, "ferry/crossings.md": FOG})
    chunks = folder.stores.manifest.counts()[1]
    assert chunks == 301
    assert folder.stores.dense.count() == 2  # the licence once, the fog passage once
    assert compare(folder.stores).consistent
    assert folder.found("what does the crew do in fog")[0] == "ferry/crossings.md"
    # The licence's hit stands for every copy. A ranking takes COPIES_RANKED of them, so
    # the next text (the fog passage) is ranked too: 20 copies took every place before.
    licensed = folder.found("permission to deal in the software free of charge")
    assert len(licensed) == COPIES_RANKED + 1
    assert set(licensed[:COPIES_RANKED]) <= set(copies)
    assert licensed[-1] == "ferry/crossings.md"


def test_the_copy_bm25_finds_by_its_folder_keeps_its_vector_rank(folder: Folder) -> None:
    """Of a text's copies a dense ranking keeps COPIES_RANKED, and first the ones BM25
    found too: a question naming a folder finds that folder's copy by both retrievers."""
    copies = {f"pkg{i:03}/LICENSE.md": LICENCE for i in range(40)}
    folder.put({**copies, "ferry/crossings.md": FOG})
    result = folder.retriever.search("the licence of pkg037: may I deal in the software?")
    named = next(c for c in result.candidates if c.source == "pkg037/LICENSE.md")
    assert named.vector_rank == 1 and named.bm25_rank == 1
    assert result.chunks[0].source == "pkg037/LICENSE.md"
    ranked = [c for c in result.candidates if c.vector_rank is not None]
    assert sum(c.source in copies for c in ranked) == COPIES_RANKED
    assert "ferry/crossings.md" in {c.source for c in ranked}
    # `--mode vector` asks BM25 which copies to keep, not how to rank: the named one
    # leads (4 of 30 folders' own copies led there before, attack50).
    vector = folder.retriever.search(
        "the licence of pkg037: may I deal in the software?", mode="vector"
    )
    assert vector.chunks[0].source == "pkg037/LICENSE.md"
    assert all(c.bm25_rank is None for c in vector.candidates)
    assert vector.chunks[0].support == pytest.approx(named.support)


def test_a_shared_text_is_found_from_each_holders_folder_and_leaves_with_the_last(
    folder: Folder,
) -> None:
    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE, "c/fog.md": FOG})
    text = folder.licence_hash()
    question = "permission to deal in the software"
    assert folder.found(question, "a")[:1] == ["a/LICENSE.md"]
    assert folder.found(question, "b")[:1] == ["b/LICENSE.md"]
    assert "a/LICENSE.md" not in folder.found(question, "c")
    # The first holder goes: the text stays for the second, and its scope narrows.
    folder.remove("a/LICENSE.md")
    assert folder.stores.dense.count() == 2
    assert folder.found(question, "b")[:1] == ["b/LICENSE.md"]
    assert folder.found(question, "a") == []
    assert scope_key(str(folder.root), "a") not in folder.scope_of(text)
    assert compare(folder.stores).consistent
    # The last holder goes: so does the vector.
    folder.remove("b/LICENSE.md")
    assert folder.stores.dense.count() == 1
    assert folder.scope_of(text) == []
    assert compare(folder.stores).consistent


def test_an_edit_that_keeps_a_shared_text_keeps_its_vector(folder: Folder) -> None:
    """A file edited around a text it shares: its old chunk leaves, its new chunk holds
    the same text, and the vector (one for both files) is neither lost nor doubled."""
    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE})
    folder.put({"a/LICENSE.md": LICENCE + "\nExtra terms: none.\n"})
    rows = folder.stores.manifest.chunks_of(str(folder.root), "a/LICENSE.md")
    assert rows and compare(folder.stores).consistent
    assert folder.found("permission to deal in the software", "a")[:1] == ["a/LICENSE.md"]
    assert folder.found("permission to deal in the software", "b")[:1] == ["b/LICENSE.md"]


def test_a_text_held_too_widely_to_list_is_wide_and_filtered_by_its_holders(
    folder: Folder,
) -> None:
    """Past MAX_SCOPE_KEYS the scope is the wildcard: a search in a holder's folder still
    finds it, one in a folder without a holder does not serve it."""
    many = {f"pkg{i:03}/LICENSE.md": LICENCE for i in range(shared_vectors.MAX_SCOPE_KEYS)}
    folder.put({**many, "ferry/crossings.md": FOG})
    text = folder.stores.manifest.chunks_of(str(folder.root), "pkg007/LICENSE.md")[0].windows[0]
    assert folder.scope_of(text) == [shared_vectors.WIDE]
    question = "permission to deal in the software"
    assert folder.found(question, "pkg007") == ["pkg007/LICENSE.md"]
    assert all(not p.startswith("pkg") for p in folder.found(question, "ferry"))


def test_start_up_repair_restores_a_shared_text_with_every_holders_scope(
    folder: Folder, embedder
) -> None:  # type: ignore[no-untyped-def]
    from tests.component.test_index_stores import repair

    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE})
    text = folder.licence_hash()
    folder.stores.dense.delete([text])
    report = compare(folder.stores)
    assert report.dense_missing == {text}
    assert repair(folder.stores, embedder, report) == 0  # from the embedding cache
    assert compare(folder.stores).consistent
    keys = folder.scope_of(text)
    assert scope_key(str(folder.root), "a") in keys and scope_key(str(folder.root), "b") in keys


def test_a_manifest_from_before_the_windows_table_is_read_from_its_chunks(
    folder: Folder,
) -> None:
    """An older manifest has chunk rows but no `windows` rows: opened for writing, the
    table is filled from the chunks; opened read-only (`ragd check`), they are read."""
    folder.put({"a/LICENSE.md": LICENCE, "c/fog.md": FOG})
    manifest = folder.stores.manifest
    expected = manifest.window_hashes()
    path = manifest.path
    db = manifest._db()
    db.execute("DROP TABLE windows")
    manifest.close()
    read_only = Manifest(path, read_only=True)
    assert read_only.window_hashes() == expected
    assert set(read_only.window_holders(expected)) == expected
    read_only.close()
    reopened = Manifest(path)
    assert reopened.window_hashes() == expected
    holders = reopened.window_holders(expected)
    assert sorted(h[3] for held in holders.values() for h in held) == ["a/LICENSE.md", "c/fog.md"]
    reopened.close()


def test_vectors_read_back_by_text_are_the_cached_ones(folder: Folder) -> None:
    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE})
    text = folder.licence_hash()
    stored = folder.stores.dense.vectors([text, text])
    cached = folder.writer.cached([text])
    assert list(stored) == [text]
    assert np.allclose(stored[text], cached[text], atol=1e-5)


def test_a_search_reads_no_more_holders_of_a_text_than_it_can_keep(tmp_path: Path) -> None:
    """A search maps a hit to `candidates` holders at most, in chunk id order, and only
    those in its scope: a text in 2,000 files is read as 20 rows, not 2,000."""
    manifest = licence_in(tmp_path, 2000)
    every = manifest.window_holders(["lic"])["lic"]
    assert len(every) == 2000
    first = manifest.window_holders(["lic", "absent"], per_text=20)
    assert list(first) == ["lic"] and first["lic"] == every[:20]
    scoped = manifest.window_holders(["lic"], per_text=20, places=[("/r", "pkg1234")])
    assert [h[3] for h in scoped["lic"]] == ["pkg1234/LICENSE"]
    assert manifest.window_holders(["lic"], per_text=20, places=[("/other", "")]) == {}
    manifest.close()


def test_a_removal_stopped_before_the_manifest_leaves_the_scope_wide_enough(
    folder: Folder,
) -> None:
    """A removal writes the indexes first and the manifest last. Its scope narrowing used
    to come first too: stopped there (a crash), the manifest still named a/LICENSE.md but
    the text's scope had lost folder `a`, and a `--in a` search missed it for good (start-up
    repair compares ids, not scopes). Now only the deletes of unheld texts come first;
    the narrowing waits for the manifest."""
    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE})
    rows = folder.stores.manifest.chunks_of(str(folder.root), "a/LICENSE.md")
    folder.writer.vectors.drop_unheld(rows, leaving=True)  # ... and the process stops here
    assert folder.found("permission to deal in the software", "a")[:1] == ["a/LICENSE.md"]
    assert compare(folder.stores).consistent


def test_a_new_holder_puts_back_a_text_the_store_lost(folder: Folder) -> None:
    """The store lost a text the manifest holds (a server put back to an older copy): a
    file that also holds it is not left without its vector until the next repair."""
    folder.put({"a/LICENSE.md": LICENCE})
    text = folder.licence_hash()
    folder.stores.dense.delete([text])
    folder.put({"b/LICENSE.md": LICENCE})
    assert folder.stores.dense.vectors([text])
    assert compare(folder.stores).consistent
    assert folder.found("permission to deal in the software", "b")[:1] == ["b/LICENSE.md"]


def test_the_writer_reads_a_bounded_number_of_files_per_text(tmp_path: Path) -> None:
    manifest = licence_in(tmp_path, 500)
    held = manifest.holding_files(["lic", "absent"], shared_vectors.MAX_SCOPE_KEYS + 1)
    assert list(held) == ["lic"] and len(held["lic"]) == shared_vectors.MAX_SCOPE_KEYS + 1
    assert shared_vectors.scope_of(held["lic"]) == [shared_vectors.WIDE]
    manifest.close()


def test_check_says_an_index_of_the_older_kind_is_rebuilt_not_damaged(folder: Folder) -> None:
    """`ragd check` run after an upgrade, before the daemon's first start, finds vectors of
    the older kind (one per window): said as such, not as damage."""
    import json

    from ragd.engine.checkup import built_by_an_older_ragd

    manifest = folder.stores.manifest
    assert built_by_an_older_ragd(manifest) is None  # nothing stored yet: cannot be told
    manifest.set_meta("fingerprint", json.dumps({"dense_metadata": 1, "model": "m"}))
    said = built_by_an_older_ragd(manifest)
    assert said is not None and "rebuilds it" in said
    from ragd.index.dense import METADATA_VERSION

    manifest.set_meta("fingerprint", json.dumps({"dense_metadata": METADATA_VERSION}))
    assert built_by_an_older_ragd(manifest) is None


def test_a_chunk_holding_a_text_many_times_counts_once_among_its_holders(
    tmp_path: Path,
) -> None:
    """One chunk holding a paragraph 25 times (a repeated "N/A") filled the per-text limit
    with its own windows, and every other chunk holding the text lost it (attack49b)."""
    from ragd.index.manifest import ChunkRow, FileRow

    manifest = Manifest(tmp_path / "manifest.sqlite3")
    rows = [ChunkRow("a-multi", "/r", "multi.md", 0, "h", "t", None, ("na",) * 25)]
    rows += [ChunkRow(f"b{i}", "/r", f"single{i}.md", 0, "h", "t", None, ("na",)) for i in range(9)]
    manifest.commit_files([(FileRow("/r", r.relpath, 1, 1, "s", (r.chunk_id,)), [r]) for r in rows])
    held = manifest.window_holders(["na"], per_text=5)["na"]
    assert [h[0] for h in held] == ["a-multi", "b0", "b1", "b2", "b3"]
    assert held[0][1] == 0  # its first window holding the text
    manifest.close()


def test_a_text_in_many_files_of_few_folders_is_scoped_by_its_folders(folder: Folder) -> None:
    """Texts held in 33 folders (67 scope keys with their files') were all WIDE, so a
    `--in` search asked for them apart, where the 60 nearest WIDE texts held only outside
    the scope pushed the one in scope out (attack49b: `target/q.md` missing from the
    vector results). They are now scoped by their folders' keys, and a file scope asks
    for its folder's."""
    from ragd.index.dense import IN_FOLDER

    fed = "# Feeding\n\nFish brought to the walrus enclosure is written down in the ledger.\n"
    sections = "".join(
        f"\n\n## Pier {n}\n\nThe walrus ledger records the fish deliveries for pier {n}."
        for n in range(70)
    )
    files = {f"q{i:02}/q.md": fed for i in range(33)}
    files |= {f"p{i:02}/p.md": "# Ledger" + sections + "\n" for i in range(33)}
    files |= {"target/q.md": fed, "target/other.md": "# Other\n\nThe gate opens at nine.\n"}
    folder.put(files)
    text = folder.stores.manifest.chunks_of(str(folder.root), "target/q.md")[0].windows[0]
    scope = folder.scope_of(text)
    target = scope_key(str(folder.root), "target")
    assert target in scope and target + IN_FOLDER in scope  # (no file's own key)
    assert scope_key(str(folder.root), "target/q.md") not in scope
    question = "walrus ledger records fish deliveries for the pier"
    assert folder.found(question, "target/q.md") == ["target/q.md"]
    assert folder.found(question, "target")[:1] == ["target/q.md"]
    assert folder.found(question, "q07") == ["q07/q.md"]


def test_a_text_put_back_with_an_older_scope_is_relabelled_from_its_holders(
    folder: Folder,
) -> None:
    """A vector server put back to an older copy of its data holds a text with the scope
    it had then, and its id agrees with the manifest, so the repair sees nothing:
    `rescope` gives it its holders' scope again (attack51)."""
    folder.put({"a/LICENSE.md": LICENCE, "b/LICENSE.md": LICENCE})
    text = folder.licence_hash()
    root = str(folder.root)
    older = [scope_key(root, ""), scope_key(root, "a"), scope_key(root, "a/LICENSE.md")]
    folder.stores.dense.relabel([text], [older])
    assert compare(folder.stores).consistent  # what the id-by-id repair sees
    assert folder.found("permission to deal in the software", "b") == []
    assert folder.writer.rescope() == 1
    assert folder.found("permission to deal in the software", "b") == ["b/LICENSE.md"]
    assert folder.writer.rescope() == 0  # nothing differs any more: nothing written


def test_a_forgotten_roots_copies_do_not_hide_the_copy_a_watched_root_holds(
    folder: Folder, tmp_path: Path
) -> None:
    """`rag forget` takes a root away at once; its chunks wait for the writer's prune.
    Before, a search read a text's first `candidates` holders by chunk id, all of them
    the forgotten root's, then served none: the copy the watched root holds was never
    shown until the prune (attack51: 200 copies, the other root's copy missing)."""
    folder.put({"keep/LICENSE.md": LICENCE})
    [kept] = folder.stores.manifest.chunks_of(str(folder.root), "keep/LICENSE.md")
    gone = tmp_path / "forgotten"  # indexed, not among the retriever's roots
    plans, before = [], 0
    while before < folder.retriever.candidates:  # enough copies sort before the kept one
        planned = folder.planner.plan_bytes(
            str(gone), f"p{len(plans)}/LICENSE.md", LICENCE.encode()
        )
        assert isinstance(planned, FilePlan)
        plans.append(planned)
        before += planned.chunks[0].row.chunk_id < kept.chunk_id
    folder.writer.index_files(plans)
    assert folder.found("permission to deal in the software free of charge") == ["keep/LICENSE.md"]


def test_a_forgotten_roots_copies_do_not_hide_a_watched_roots_copy_from_bm25(
    folder: Folder, tmp_path: Path
) -> None:
    """The same for BM25 (attack51): its `candidates` best were the forgotten root's
    copies, indexed first and tied with the kept one, and none is served."""
    gone = tmp_path / "forgotten"  # indexed, not among the retriever's roots
    plans = []
    for n in range(2 * folder.retriever.candidates):
        planned = folder.planner.plan_bytes(str(gone), f"p{n}/LICENSE.md", LICENCE.encode())
        assert isinstance(planned, FilePlan)
        plans.append(planned)
    folder.writer.index_files(plans)
    folder.put({"keep/LICENSE.md": LICENCE})
    result = folder.retriever.search("permission to deal in the software", mode="bm25")
    assert [c.source for c in result.chunks] == ["keep/LICENSE.md"]
    folder.writer.forget_root(str(gone), lambda relpath, chunks: None)  # the prune
    assert folder.stores.manifest.chunk_roots() == [str(folder.root)]
    result = folder.retriever.search("permission to deal in the software", mode="bm25")
    assert [c.source for c in result.chunks] == ["keep/LICENSE.md"]
