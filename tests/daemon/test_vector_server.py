"""`vector_store = <URL>`: the same stores and daemon against a real `chroma run` server.

One server for the whole module (it starts offline in seconds). The store-level and
daemon sync tests are the embedded suite's own test functions, imported here so they run
again with fixtures that point at the server; then two daemons share the server, and the
daemon outlives the server going away (item 2 of issue 13).
"""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.core.vector_store import VectorStore, from_settings
from ragd.index import machine, precision
from tests.component.test_index_stores import (  # noqa: F401
    index_two_files,
    test_a_file_excluded_after_indexing_is_removed,
    test_dense_space_is_cosine_and_a_chunk_scores_one_against_itself,
    test_fingerprint_change_drops_the_indexes,
    test_orphans_are_removed_and_missing_vectors_restored,
)

# The embedded suites' tests, run again here against the server (their fixtures are below).
from tests.daemon.test_daemon_sync import (  # noqa: F401
    test_folder_moved_out_prunes_everything_under_it,
    test_move_out_is_a_delete_and_move_in_is_a_create,
    test_new_file_becomes_searchable,
)
from tests.support.chroma_server import ChromaServer, served_for_the_module
from tests.support.daemon import Daemon, wait_for


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    yield from served_for_the_module(tmp_path_factory)


@pytest.fixture
def indexed(tmp_path: Path, embedder, server: ChromaServer):  # type: ignore[no-untyped-def]
    """test_index_stores' fixture, with the vectors on the server (own collection per test)."""
    where = from_settings(server.url, (), False)
    stores, indexer, root = index_two_files(tmp_path, embedder, where)
    assert stores.dense.where.url == server.url and not (tmp_path / "data" / "chroma").exists()
    yield stores, indexer, root
    stores.dense.close()


def server_env(server: ChromaServer, collection: str | None = None) -> dict[str, str]:
    url = server.url + (f"?collection={collection}" if collection else "")
    return {"RAG_VECTOR_STORE": url}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, server: ChromaServer) -> Iterator[Daemon]:
    """test_daemon_sync's daemon, on the server, with `embed_precision = auto` (cached)."""
    tmp = tmp_path_factory.mktemp("sync-server")
    root = tmp / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed document mentions zanzibar.\n")
    seed_precision_cache(tmp / "home" / ".cache")  # the daemon's XDG_CACHE_HOME
    env = server_env(server) | {"RAG_EMBED_PRECISION": "auto"}
    daemon = Daemon(tmp, [root], env=env).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def seed_precision_cache(xdg_cache: Path) -> None:
    """A decision for this machine, as an earlier daemon would have cached it (no measuring)."""
    from ragd.index import machine, machine_cache, precision
    from ragd.index.embedder import MODEL_ID

    measured = precision.Measurement(2.0, 1.0, 0.99995, True, 200, min_piece_cosine=0.9999)
    decision = precision.decide(measured)
    path = xdg_cache / "ragd" / precision.CACHE_FILE
    machine_cache.write(path, machine.identity(machine.this_cpu(), MODEL_ID), decision.to_json())


def test_the_daemon_reports_the_server_and_the_cached_precision(
    live: Daemon, server: ChromaServer
) -> None:
    stats = live.rag_json("stats")
    assert stats["vector_store"].startswith(server.url)
    assert stats["collection"] in server.collections()
    assert stats["collection"].startswith("ragd-") and stats["collection"] != "ragd-chunks"
    shown = live.rag("stats").stdout
    if machine.this_cpu().native_bf16:
        assert stats["embedding"]["precision"] == "bfloat16"
        assert "2.00× float32" in stats["embedding"]["precision_reason"]
        assert "bfloat16 (auto: bfloat16 ran at 2.00× float32" in shown
    else:  # the cache is not even read: float32 at once
        assert stats["embedding"]["precision"] == "float32"
        assert f"float32 (auto: {precision.NO_NATIVE_BF16})" in shown
    assert not (live.data_dir / "chroma").exists(), "server mode must not create a local store"


def test_a_scoped_vector_search_filters_on_the_server(live: Daemon) -> None:
    root = live.roots[0]
    (root / "kept").mkdir()
    (root / "kept" / "inside.md").write_text("# Inside\n\nThe lighthouse keeper logs fog.\n")
    (root / "outside.md").write_text("# Outside\n\nThe lighthouse keeper logs fog too.\n")
    live.wait_searchable("lighthouse", "kept/inside.md")
    live.wait_searchable("lighthouse", "outside.md")
    scoped = live.search("lighthouse fog", top_k=10, mode="vector", **{"in": [str(root / "kept")]})
    assert scoped["scope"] == ["kept"]
    assert [h["source"] for h in scoped["results"]] == ["kept/inside.md"]
    everything = live.search("lighthouse fog", top_k=10, mode="vector")["results"]
    assert {"kept/inside.md", "outside.md"} <= {h["source"] for h in everything}


def test_two_daemons_on_one_server_never_see_each_others_chunks(
    live: Daemon, server: ChromaServer, tmp_path: Path
) -> None:
    root = tmp_path / "other"
    root.mkdir()
    (root / "private.md").write_text("# Private\n\nOnly the second daemon knows blorptoken.\n")
    (live.roots[0] / "mine.md").write_text("# Mine\n\nOnly the first daemon knows zibbletoken.\n")
    other = Daemon(tmp_path, [root], env=server_env(server, "second-user")).start()
    try:
        other.wait_idle()
        live.wait_searchable("zibbletoken", "mine.md")
        assert "second-user-chunks" in server.collections()

        def dense_sources(daemon: Daemon, query: str) -> set[str]:
            hits = daemon.search(query, top_k=50, mode="vector")["results"]
            return {h["source"] for h in hits}

        assert dense_sources(other, "zibbletoken zanzibar seed") == {"private.md"}
        assert "private.md" not in dense_sources(live, "blorptoken private second daemon")
        assert "mine.md" in dense_sources(live, "zibbletoken")
    finally:
        other.stop()
    # `ragd check` (on a stopped daemon: it opens the stores itself) against the server
    check = other.ragd("check", "--json", "--data-dir", str(other.data_dir))
    report = json.loads(check.stdout)
    assert check.returncode == 0, report
    assert report["dense_vectors"] == report["manifest_chunks"] == 1


def test_a_collection_another_data_dir_holds_is_refused_not_emptied(
    server: ChromaServer, tmp_path: Path
) -> None:
    """Two data dirs given the same `?collection=` (two users who both chose "notes"):
    before, the second start took the first one's vectors for orphans of its manifest and
    deleted them, and each one's size check (every `unwatched_rescan_s`) deleted the
    other's again. Now the collection records the data dir it belongs to, and the second
    daemon is refused it and says why in `rag status` (its files wait, as for a server that
    is down, until it is given a collection of its own)."""
    from tests.daemon.test_vector_server_states import collection_size

    first_root, second_root = tmp_path / "first", tmp_path / "second"
    first_root.mkdir()
    second_root.mkdir()
    (first_root / "heron.md").write_text("# Herons\n\nGrey herons wade in the shallows.\n")
    (second_root / "otter.md").write_text("# Otters\n\nOtters crack mussels on rocks.\n")
    env = server_env(server, "shared")
    first = Daemon(tmp_path / "one", [first_root], env=env).start()
    second: Daemon | None = None
    try:
        first.wait_idle()
        held = collection_size(server, "shared-chunks")
        assert held >= 1
        second = Daemon(tmp_path / "two", [second_root], env=env).start()
        taken = "holds the vectors of another ragd data dir"
        wait_for(lambda: taken in second.rag("status").stdout, 60, "the refusal in status")
        assert collection_size(server, "shared-chunks") == held  # nothing deleted or added
        hits = first.search("wading birds in shallow water", mode="vector")["results"]
        assert hits and hits[0]["source"] == "heron.md"
        assert second.log().count(taken) == 1  # said once, not at every reconnection try
    finally:
        if second is not None:
            second.stop()
        first.stop()


def test_a_collection_another_program_made_is_refused_not_emptied(
    server: ChromaServer, tmp_path: Path
) -> None:
    """`?collection=mine` naming a collection another program keeps on the same server
    (attack61: 3 vectors of 3 dimensions, ids `other-app-N`, no owner recorded). Before,
    ragd adopted every collection no data dir had claimed: its first comparison took the
    3 for orphans and deleted them, without a word, and filled it with its own (`rag
    status` and `ragd check` clean). Now a collection holding ids ragd never writes is
    refused as one another data dir holds, and left as it was."""
    import chromadb

    from tests.daemon.test_vector_server_states import collection_size

    client = chromadb.HttpClient(host="127.0.0.1", port=int(server.url.rsplit(":", 1)[1]))
    foreign = client.create_collection("mine-chunks", configuration={"hnsw": {"space": "cosine"}})
    ids = ["other-app-1", "other-app-2", "other-app-3"]
    foreign.add(ids=ids, embeddings=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    root = tmp_path / "notes"
    root.mkdir()
    (root / "otter.md").write_text("# Otters\n\nOtters crack mussels on rocks.\n")
    daemon = Daemon(tmp_path / "d", [root], env=server_env(server, "mine")).start()
    try:
        taken = "holds vectors ragd did not write"
        wait_for(lambda: taken in daemon.rag("status").stdout, 60, "the refusal in status")
        assert collection_size(server, "mine-chunks") == 3
        assert sorted(client.get_collection("mine-chunks").get(include=[])["ids"]) == ids
    finally:
        daemon.stop()


def test_a_plain_http_server_elsewhere_is_refused(tmp_path: Path) -> None:
    daemon = Daemon(tmp_path, [], env={"RAG_VECTOR_STORE": "http://192.0.2.7:8000"})
    daemon.start(wait=False)
    assert daemon.wait_exit(60) == 2
    assert "does not enforce its tokens" in daemon.log()


def test_the_url_policy() -> None:
    assert from_settings("embedded", (), False) == VectorStore()
    local = from_settings("http://localhost:8000?tenant=t&database=d&collection=alice", (), False)
    assert (local.tenant, local.database, local.collection) == ("t", "d", "alice-chunks")
    proxy = ("Authorization: Bearer s3cret",)
    assert from_settings("https://vectors.example:443", proxy, False).headers == {
        "Authorization": "Bearer s3cret"
    }
    assert "s3cret" not in from_settings("https://vectors.example", proxy, False).describe()
    for url, headers in (
        ("http://192.0.2.7:8000", ()),  # no TLS, no auth
        ("http://192.0.2.7:8000", proxy),  # auth header in clear text
        ("https://vectors.example", ()),  # TLS, but nobody checks who connects
    ):
        with pytest.raises(ValueError, match="does not enforce"):
            from_settings(url, headers, False)
        assert from_settings(url, headers, True).url == url.rstrip("/")
    for bad in ("ftp://x", "http://127.0.0.1:8000/chroma", "http://127.0.0.1?pool=2"):
        with pytest.raises(ValueError):
            from_settings(bad, (), False)


def test_header_values_never_reach_ragd_config(tmp_path: Path) -> None:
    env = {
        "RAG_VECTOR_STORE": "http://127.0.0.1:9",
        "RAG_VECTOR_STORE_HEADERS": "Authorization: Bearer s3cret",
    }
    daemon = Daemon(tmp_path, [], env=env)
    shown = daemon.ragd("config").stdout
    assert "Authorization: …" in shown and "s3cret" not in shown


def test_the_server_going_away_never_breaks_the_daemon(tmp_path: Path) -> None:
    """kill -9 mid-ingest → catch-up; down at start → BM25 with a note → back, no re-embedding."""
    server = ChromaServer(tmp_path / "db").start()
    root = tmp_path / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe lighthouse keeper logs the fog horn.\n")
    daemon = Daemon(tmp_path, [root], env=server_env(server)).start()
    daemon.wait_idle()
    for i in range(40):
        (root / f"batch{i}.md").write_text(f"# Batch {i}\n\nBatchtoken {i} about tides.\n")
    wait_for(lambda: daemon.status()["embeddings"]["computed"] > 1, 60, "ingest under way")
    server.stop(signal.SIGKILL)  # mid-ingest: the writer waits, searches go on
    assert_bm25_fallback(daemon)
    assert "vector store unreachable" in daemon.status()["vector_store"]
    server.start()
    wait_for(lambda: daemon.status()["files"] == 41, 120, "catch-up")
    daemon.wait_idle()
    assert "unreachable" not in daemon.status()["vector_store"]
    daemon.stop()

    server.stop()
    server.path = tmp_path / "db-lost"  # and it comes back with its data gone
    daemon.start()
    shown = daemon.rag("status").stdout
    assert "vector store unreachable: http://127.0.0.1:" in shown, shown
    assert_bm25_fallback(daemon)
    assert "unreachable" in daemon.rag_json("stats")["vector_store"]
    server.start()
    wait_for(lambda: "unreachable" not in daemon.status()["vector_store"], 60, "reconnect")
    daemon.wait_idle()
    hits = daemon.search("fog horn lighthouse", mode="vector")
    assert hits["results"][0]["source"] == "seed.md" and "note" not in hits
    assert daemon.status()["embeddings"]["computed"] == 0, "restored from the embedding cache"
    daemon.stop()
    check = daemon.ragd("check", "--json", "--data-dir", str(daemon.data_dir))
    assert check.returncode == 0, check.stdout
    assert json.loads(check.stdout)["dense_vectors"] == 41
    server.stop()
    down = daemon.ragd("check", "--data-dir", str(daemon.data_dir))
    shown = down.stdout + down.stderr
    assert down.returncode != 0 and "vector store unreachable: http://" in shown, shown
    assert "Traceback" not in shown


def assert_bm25_fallback(daemon: Daemon) -> None:
    reply = daemon.search("lighthouse fog horn")
    assert reply["results"][0]["source"] == "seed.md"
    assert reply["results"][0]["vector_rank"] is None
    assert "vector store unreachable" in reply["note"] and "BM25 results only" in reply["note"]
    shown = daemon.rag("search", "lighthouse fog horn")
    assert shown.returncode == 0 and "Traceback" not in shown.stdout + shown.stderr
    assert "note: vector store unreachable" in shown.stdout
    # An answer says it too (fixes42): among its warnings, on stderr after the answer
    # (`--json` keeps its documented keys on stdout).
    for flags in ([], ["--json"]):
        asked = daemon.rag("ask", *flags, "Who logs the fog horn?")
        assert asked.returncode == 0 and "seed.md" in asked.stdout, asked.stdout + asked.stderr
        assert "note: vector store unreachable" in asked.stderr, asked.stderr
        assert "BM25 results only" in asked.stderr


def test_switching_stores_and_back_leaves_no_stale_vector(
    tmp_path: Path, server: ChromaServer
) -> None:
    """embedded → server (a file edited there, its window count unchanged) → embedded: the
    embedded store still holds the old vector, with the count the manifest expects. The
    switch alone makes the start compare every id and repair from the embedding cache."""
    root = tmp_path / "notes"
    root.mkdir()
    doc = root / "swap.md"
    doc.write_text("# Swap\n\nThe harbour pilot boards ships at the outer buoy.\n")
    daemon = Daemon(tmp_path, [root]).start()
    daemon.wait_idle()
    daemon.stop()
    embedded_env = dict(daemon.env)
    daemon.env = embedded_env | server_env(server, "switch")
    daemon.start()
    daemon.wait_idle()
    doc.write_text("# Swap\n\nThe glacier guide ropes up below the icefall.\n")
    daemon.wait_searchable("glacier", "swap.md")
    daemon.wait_idle()
    daemon.stop()
    daemon.env = embedded_env
    daemon.start()
    daemon.wait_idle()
    hits = daemon.search("glacier guide icefall", mode="vector")["results"]
    assert [h["source"] for h in hits] == ["swap.md"] and "glacier" in hits[0]["text"]
    assert daemon.status()["embeddings"]["computed"] == 0, "restored from the embedding cache"
    assert "the vector store changed since the last run (http://127.0.0.1:" in daemon.log()
    daemon.stop()
    check = daemon.ragd("check", "--json", "--data-dir", str(daemon.data_dir))
    assert check.returncode == 0, check.stdout
