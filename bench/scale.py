"""ragd at scale: ≥ 100,000 chunks, measured on this machine (`make bench-scale`).

    .venv/bin/python bench/scale.py                        # everything, from scratch
    .venv/bin/python bench/scale.py --work /tmp/ragd-scale # keep/reuse corpus and index
    .venv/bin/python bench/scale.py --work DIR --phases serve,recall,hnsw
    .venv/bin/python bench/scale.py --phases real          # real docs, both store modes

The corpus is generated (bench/corpus.py vocabulary): 10,000 Markdown files in 100
folders, each an H1 title and 10 H2 sections of one short paragraph, so every section
is one chunk with one embedding window: 100,000 chunks, 100,000 real MiniLM vectors.
Short windows (≈ 50 word pieces) are what makes a real-model ingest of 100k chunks
fit in well under an hour here; the ingest rate is measured and reported as such.

Phases (each reuses the previous phase's output in --work when it is already there):
    corpus     write the files (skipped when --work holds the same corpus)
    ingest     a real `ragd serve` indexes the corpus from empty; rate sampled from status
    serve      restart with the index built: start-up time to ready, reconcile of the
               10,000 unchanged files (time to idle, files read), RSS, `search` p50/p99
               over one persistent ZeroMQ connection, whole-process `rag search` p50/p99,
               index size on disk; plus the reconcile scan timed in-process
    recall     the daemon's own collection vs exact brute-force cosine over the same
               100k vectors: recall@10 for real queries (bench/questions.jsonl and
               questions made from corpus sentences)
    hnsw       the trade-off: the same vectors in fresh in-process collections with
               ChromaDB's defaults and candidate settings: build time, recall@10, p50/p99

Results: bench/out/scale.json and a table on stdout. Nothing is asserted; the targets
are printed beside the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import corpus
from harness import BIN, BenchDaemon, isolated_env, percentile
from ragd.core import environment
from ragd.core.layout import MANIFEST, DataDir
from real_ingest import copy_sample, real_ingest, render_real, until_indexed

BENCH = Path(__file__).resolve().parent
environment.apply_defaults()  # as ragd's own main sets them
QUESTIONS = BENCH / "questions.jsonl"
PHASES = ("corpus", "build", "ingest", "serve", "recall", "hnsw")
# Opt-in (≈ 36 min per store mode at 20,000 real chunks, quiet): `--phases real` (real_ingest.py).
EXTRA_PHASES = ("real",)
TARGETS = {
    "search_p50_ms": 25,
    "search_p99_ms": 80,
    "rss_mb": 1536,
    "reconcile_s": 5,
    "recall_at_10": 0.95,
}


def say(message: str) -> None:
    print(f"[scale {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- corpus ------------------------------------------------------------------------------
def scale_document(rng: random.Random, i: int, sections: int) -> str:
    kind = sorted(corpus.KINDS)[i % len(corpus.KINDS)]
    title = corpus._fill(rng, corpus.KINDS[kind])
    parts = [f"# {title} ({i})"]
    for n, heading in enumerate(rng.sample(corpus.HEADINGS, min(sections, len(corpus.HEADINGS)))):
        parts.append(f"## {heading}")
        parts.append(corpus.paragraph(rng, 1, 3))
        if n + 1 >= sections:
            break
    for n in range(len(corpus.HEADINGS), sections):  # more sections than stock headings
        parts.append(f"## Note {n + 1}")
        parts.append(corpus.paragraph(rng, 1, 3))
    return "\n\n".join(parts) + "\n"


def write_scale_corpus(root: Path, files: int, sections: int, seed: int) -> None:
    for i in range(files):
        rng = random.Random(f"{seed}:scale:{i}")
        folder = root / f"d{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i:05d}.md").write_text(scale_document(rng, i, sections), encoding="utf-8")


def ensure_corpus(work: Path, args: argparse.Namespace) -> Path:
    root = work / "corpus"
    spec = {"files": args.files, "sections": args.sections, "seed": args.seed, "version": 1}
    marker = work / "corpus.json"
    if marker.exists() and json.loads(marker.read_text()) == spec:
        say(f"corpus: reusing {root}")
        return root
    shutil.rmtree(root, ignore_errors=True)
    for stale in ("scale", "ingest", "ingest-sample"):  # built from another corpus
        shutil.rmtree(work / stale, ignore_errors=True)
    for stale in ("build.json", "ingest.json"):
        (work / stale).unlink(missing_ok=True)
    started = time.perf_counter()
    write_scale_corpus(root, args.files, args.sections, args.seed)
    say(f"corpus: {args.files} files written in {time.perf_counter() - started:.1f} s")
    marker.write_text(json.dumps(spec))
    return root


def du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_blocks * 512
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            with contextlib.suppress(OSError):  # vanished meanwhile
                total += os.stat(os.path.join(dirpath, name), follow_symlinks=False).st_blocks * 512
    return total


# -- build -------------------------------------------------------------------------------
def corpus_windows(root: Path, model: Any) -> dict[str, str]:
    """Window hash → window text for the whole corpus, planned as the writer plans it."""
    from ragd.ingest.planner import Planner, Skip

    planner = Planner(model)
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*.md")):
        plan = planner.plan_bytes(str(root), path.relative_to(root).as_posix(), path.read_bytes())
        if not isinstance(plan, Skip):
            out.update(plan.windows())
    return out


def bench_vectors(
    windows: dict[str, str], model: Any, real: int, seed: int
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Real MiniLM vectors for `real` windows; realistic synthetic ones for the rest.

    A synthetic vector is normalise(r_j + 0.5·r_k + σ·g): a blend of two real window
    embeddings of this corpus plus Gaussian noise (σ uniform in 0.15–0.45 of the blend's
    norm), so the set keeps MiniLM's anisotropy and topical clusters without being a few
    tight clumps of near-copies.
    """
    rng = np.random.default_rng(seed)
    hashes = list(windows)
    order = rng.permutation(len(hashes))
    real_hashes = [hashes[i] for i in order[:real]]
    started = time.perf_counter()
    real_vectors = model.embed([windows[h] for h in real_hashes], lane="index")
    embed_s = time.perf_counter() - started
    vectors = dict(zip(real_hashes, real_vectors, strict=True))
    rest = [hashes[i] for i in order[real:]]
    j = rng.integers(0, len(real_hashes), len(rest))
    k = rng.integers(0, len(real_hashes), len(rest))
    blend = real_vectors[j] + 0.5 * real_vectors[k]
    norms = np.linalg.norm(blend, axis=1, keepdims=True)
    sigma = rng.uniform(0.15, 0.45, (len(rest), 1)) * norms
    noise = rng.standard_normal(blend.shape).astype(np.float32) / np.sqrt(blend.shape[1])
    synthetic = blend + sigma * noise
    synthetic /= np.linalg.norm(synthetic, axis=1, keepdims=True)
    vectors.update(zip(rest, synthetic.astype(np.float32), strict=True))
    info = {
        "windows": len(hashes),
        "real_vectors": len(real_hashes),
        "synthetic_vectors": len(rest),
        "real_embed_s": round(embed_s, 1),
        "real_embed_per_s": round(len(real_hashes) / max(1e-9, embed_s), 1),
    }
    return vectors, info


def build(work: Path, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The index of the whole corpus, written by ragd's own Indexer (in-process).

    The embedding cache is seeded first (see `bench_vectors`), so the writer computes no
    embedding; everything else — read, hash, parse, chunk, window, chunk ids, ChromaDB
    upsert, tantivy commit, manifest commit, one file at a time — is the daemon's code.
    The fingerprint, roots and clean-shutdown flag are set as the daemon leaves them, so
    the daemon started on this data dir sees 10,000 unchanged files.
    """
    done = work / "build.json"
    if done.exists():
        say("build: reusing the built index")
        return dict(json.loads(done.read_text()))
    from ragd.index.embedder import MiniLMEmbedder

    data = work / "scale" / "data"
    shutil.rmtree(data, ignore_errors=True)
    model = MiniLMEmbedder()
    vectors, info = seed_vectors(work, root, model, args)
    info |= write_index(data, root, model, vectors)
    done.write_text(json.dumps(info, indent=2))
    chunks, vectors_n, apply_s = info["chunks"], info["dense_vectors"], info["apply_s"]
    say(f"build: {chunks:,} chunks, {vectors_n:,} vectors in {apply_s:.0f} s")
    return info


def seed_vectors(
    work: Path, root: Path, model: Any, args: argparse.Namespace
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Every window of the corpus with a vector (`bench_vectors`), saved for the next run."""
    say("build: windowing the corpus")
    windows = corpus_windows(root, model)
    say(f"build: {len(windows):,} windows; embedding {args.real_vectors:,} of them for real")
    # v2: windows of each chunk's own text, as the writer embeds them (v1 used the text
    # with its overlap, so the writer had to embed every chunk that carried one).
    cache = work / f"vectors-{args.real_vectors}-v2.npz"
    if cache.exists():
        saved = np.load(cache)
        vectors = dict(zip(saved["hashes"].tolist(), saved["vectors"], strict=True))
        info = json.loads(str(saved["info"]))
    else:
        vectors, info = bench_vectors(windows, model, args.real_vectors, args.seed)
        np.savez(
            cache,
            hashes=np.array(list(vectors)),
            vectors=np.stack(list(vectors.values())),
            info=json.dumps(info),
        )
    say(f"build: real MiniLM at {info['real_embed_per_s']} windows/s in-process")
    return vectors, info


def write_index(data: Path, root: Path, model: Any, vectors: dict[str, np.ndarray]) -> dict:
    """Seed the embedding cache with `vectors` (emptied), then index the corpus on the
    daemon's writer thread."""
    from ragd.core.config import load_settings
    from ragd.core.roots import Roots
    from ragd.index.store import Stores, fingerprint
    from ragd.index.writer import IndexWriter
    from ragd.ingest.assembly import build_indexer
    from ragd.ingest.chunking import ChunkParams
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.parse_pool import shared_pool
    from ragd.ingest.planner import FileRules, Planner
    from ragd.ingest.work_queue import Job, WorkQueue

    settings, _ = load_settings(None, {"data_dir": str(data)})
    stores = Stores.open(data)
    writer = IndexWriter(stores, model)
    chunker = ChunkParams().fingerprint()
    writer.ensure_fingerprint(
        fingerprint(model.model_id, model.dimension, model.max_tokens, chunker)
    )
    roots = Roots()
    roots.add(str(root))
    writer.remember_roots(roots.to_json())
    hashes = list(vectors)
    for start in range(0, len(hashes), 5000):
        writer.cache_vectors({h: vectors[h] for h in hashes[start : start + 5000]})
    vectors.clear()  # in the cache now: not held in memory while the corpus is indexed
    queue = WorkQueue(debounce_s=0.0)
    accepted = PathFilter(settings.include, settings.exclude, data)
    planner = Planner(model, ChunkParams(), lambda: FileRules(settings.max_file_bytes))
    indexer = build_indexer(writer, planner, shared_pool(), roots, accepted, queue)
    # The daemon's own writer thread, fed the start-up job the daemon would queue.
    started = time.perf_counter()
    indexer.start()
    queue.put(Job("sync", next(iter(roots)), ""), debounce=False)
    last = 0.0
    while queue.pending():
        time.sleep(0.5)  # progress sampling of the bench, not a wait for state
        if time.perf_counter() - last > 60:
            last = time.perf_counter()
            files = stores.manifest.counts()[0]
            say(f"build: {files:,} files applied, {files / (last - started):.0f} files/s")
    indexer.stop(120)
    apply_s = time.perf_counter() - started
    stores.lexical.close()
    writer.mark_clean(True)
    files, chunks = stores.manifest.counts()
    out = {
        "files": files,
        "chunks": chunks,
        "dense_vectors": stores.dense.count(),
        "embeddings_computed_by_writer": indexer.counters.embeddings_computed,
        "apply_s": round(apply_s, 1),
        "apply_files_per_s": round(files / apply_s, 1),
    }
    stores.manifest.close()
    return out


# -- ingest ------------------------------------------------------------------------------
def ingest(work: Path, root: Path, env: dict[str, str], args: argparse.Namespace) -> dict:
    """The daemon's real ingest rate: a fresh `ragd serve` over the first N corpus files."""
    done = work / "ingest.json"
    if done.exists():
        say("ingest: reusing the measured sample ingest")
        return dict(json.loads(done.read_text()))
    sample = work / "ingest-sample"
    shutil.rmtree(work / "ingest", ignore_errors=True)
    count = copy_sample(root, sample, args.ingest_files)
    daemon = BenchDaemon(work, "ingest", [sample], env)
    say(f"ingest: a fresh daemon indexes {count} corpus files with the real model")
    samples: list[tuple[float, int, int]] = []
    try:
        daemon.start(timeout=300)
        for now, status in until_indexed(daemon, count, args.sample_s):
            samples.append((round(now, 2), int(status["files"]), int(status["chunks"])))
        total_s = samples[-1][0]
        status = daemon.status()
        memory = daemon.memory_kb()
    finally:
        daemon.stop(timeout=120)
    # The steady rate, from the first file indexed to the last (model loading excluded).
    first = next(s for s in samples if s[1] > 0)
    rate = (samples[-1][2] - first[2]) / max(1e-9, samples[-1][0] - first[0])
    result = {
        "files": status["files"],
        "chunks": status["chunks"],
        "embeddings_computed": status["embeddings"]["computed"],
        "wall_s_from_exec": round(total_s, 1),
        "ready_s": round(daemon.ready_s, 1),
        "steady_chunks_per_s": round(rate, 2),
        "loadavg_after": os.getloadavg(),
        "rss_mb_at_end": round(memory.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
    }
    done.write_text(json.dumps(result, indent=2))
    say(f"ingest: {result['chunks']:,} chunks in {total_s:.0f} s ({rate:.1f} chunks/s steady)")
    return result


# -- serve -------------------------------------------------------------------------------
def ms(values: Sequence[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50) * 1000, 1),
        "p90_ms": round(percentile(values, 90) * 1000, 1),
        "p99_ms": round(percentile(values, 99) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
    }


def search_queries(root: Path, seed: int, count: int) -> list[str]:
    """People-phrased queries in the corpus vocabulary plus sentences taken from it."""
    rng = random.Random(f"{seed}:scale-queries")
    asked = corpus.queries(seed, count // 2)
    files = sorted(root.rglob("*.md"))
    taken: list[str] = []
    while len(taken) < count - len(asked):
        lines = rng.choice(files).read_text(encoding="utf-8").split("\n\n")
        paragraph = rng.choice([p for p in lines if not p.startswith("#")])
        words = paragraph.split(". ")[0].split()
        keep = sorted(rng.sample(range(len(words)), max(3, int(len(words) * 0.7))))
        taken.append(" ".join(words[i] for i in keep))  # a sentence with words dropped
    out = [q for pair in zip(asked, taken, strict=False) for q in pair]
    return out + asked[len(taken) :] + taken[len(asked) :]


def timed_calls(daemon: BenchDaemon, queries: Sequence[str], **args: Any) -> list[float]:
    latencies = []
    for query in queries:
        started = time.perf_counter()
        daemon.call("search", query=query, top_k=5, **args)
        latencies.append(time.perf_counter() - started)
    return latencies


def reconcile_in_process(data: Path, root: Path, rounds: int = 3) -> dict[str, Any]:
    """The start-up reconcile of every file (`Reconciler.scan`), timed without the daemon."""
    from ragd.core.config import load_settings
    from ragd.core.roots import Roots
    from ragd.index.store import Stores
    from ragd.index.writer import IndexWriter
    from ragd.ingest.assembly import build_indexer
    from ragd.ingest.filters import PathFilter
    from ragd.ingest.parse_pool import shared_pool
    from ragd.ingest.planner import FileRules, Planner
    from ragd.ingest.work_queue import WorkQueue

    settings, _ = load_settings(None, {"data_dir": str(data)})
    started = time.perf_counter()
    stores = Stores.open(data)
    open_s = time.perf_counter() - started
    roots = Roots()
    roots.add(str(root))
    queue = WorkQueue(debounce_s=0.0)
    writer = IndexWriter(stores, None)  # type: ignore[arg-type]  # a scan never embeds
    indexer = build_indexer(
        writer,
        Planner(None, rules=lambda: FileRules(settings.max_file_bytes)),  # type: ignore[arg-type]
        shared_pool(),
        roots,
        PathFilter(settings.include, settings.exclude, data),
        queue,
    )
    times, queued = [], []
    for _ in range(rounds):
        started = time.perf_counter()
        queued.append(indexer.reconcile.scan(next(iter(roots))))
        times.append(time.perf_counter() - started)
    stores.lexical.close()
    stores.manifest.close()
    return {
        "files": stores.manifest.counts()[0],
        "stores_open_s": round(open_s, 2),
        "scan_s": [round(t, 2) for t in times],
        "files_queued": queued,
    }


def index_bytes(data: Path) -> dict[str, int]:
    return {
        "total": du(data),
        "chroma": du(DataDir(data).vectors),
        "tantivy": du(DataDir(data).lexical),
        "manifest": sum(du(p) for p in data.glob(MANIFEST + "*")),
    }


def cli_search_walls(daemon: BenchDaemon, queries: list[str]) -> list[float]:
    """Wall time of whole `rag search` processes, start-up included."""
    walls = []
    for query in queries:
        started = time.perf_counter()
        done = subprocess.run(
            [str(BIN / "rag"), "search", query],
            env=daemon.env,
            capture_output=True,
            check=False,
            cwd=daemon.home,
        )
        walls.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"rag search failed: {done.stderr.decode()}")
    return walls


def serve(work: Path, root: Path, env: dict[str, str], args: argparse.Namespace) -> dict:
    data = work / "scale" / "data"
    out: dict[str, Any] = {"index_bytes": index_bytes(data), "corpus_bytes": du(root)}
    queries = search_queries(root, args.seed, args.queries + 300)
    daemon = BenchDaemon(work, "scale", [root], env)
    say("serve: starting the daemon on the built index")
    try:
        daemon.start(timeout=600)
        ready = time.perf_counter()
        status = daemon.wait_idle(timeout=600, interval=0.02)
        idle = time.perf_counter()
        out["startup"] = {
            "ready_s": round(daemon.ready_s, 2),
            "idle_s_from_exec": round(idle - daemon.started_at, 2),
            "reconcile_s_after_ready": round(idle - ready, 2),
            "files": status["files"],
            "chunks": status["chunks"],
            "files_read": status["activity"]["files_read"],
            "embeddings_computed": status["embeddings"]["computed"],
        }
        out["rss_mb_idle"] = round(daemon.memory_kb()["VmRSS"] / 1024, 1)
        say(f"serve: ready in {daemon.ready_s:.1f} s; {args.queries} searches")
        timed_calls(daemon, queries[:20])  # warm-up
        timed = queries[20 : 20 + args.queries]
        rest = queries[20 + args.queries :]
        out["search_in_daemon"] = {
            "hybrid": ms(timed_calls(daemon, timed)),
            "vector": ms(timed_calls(daemon, rest[:100], mode="vector")),
            "bm25": ms(timed_calls(daemon, rest[100:200], mode="bm25")),
        }
        say(f"serve: {args.cli_runs} × `rag search` processes")
        out["search_whole_process"] = ms(cli_search_walls(daemon, rest[200 : 200 + args.cli_runs]))
        memory = daemon.memory_kb()
        out["rss_mb_after_searches"] = round(memory["VmRSS"] / 1024, 1)
        out["peak_rss_mb"] = round(memory["VmHWM"] / 1024, 1)
        out["stats"] = {k: v for k, v in daemon.call("stats").items() if k != "_pending"}
    finally:
        started = time.perf_counter()
        daemon.stop(timeout=120)
        out["shutdown_s"] = round(time.perf_counter() - started, 2)
    say("serve: the reconcile scan in-process")
    out["reconcile_in_process"] = reconcile_in_process(data, root)
    return out


# -- recall ------------------------------------------------------------------------------
def recall_queries(root: Path, seed: int, count: int) -> list[str]:
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows] + search_queries(root, seed + 1, count)


def all_vectors(collection: Any) -> tuple[list[str], np.ndarray]:
    ids: list[str] = []
    parts = []
    offset = 0
    while True:
        page = collection.get(include=["embeddings"], limit=5000, offset=offset)
        if not page["ids"]:
            break
        ids.extend(page["ids"])
        parts.append(np.asarray(page["embeddings"], dtype=np.float32))
        offset += len(page["ids"])
    return ids, np.concatenate(parts)


def exact_top(matrix: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    scores = queries @ matrix.T
    top = np.argpartition(-scores, k, axis=1)[:, :k]
    order = np.take_along_axis(scores, top, axis=1).argsort(axis=1)[:, ::-1]
    return np.take_along_axis(top, order, axis=1)


def hnsw_recall(
    collection: Any, ids: Sequence[str], exact: np.ndarray, queries: np.ndarray, k: int = 10
) -> dict[str, Any]:
    hits, latencies = [], []
    for vector, truth in zip(queries, exact, strict=True):
        started = time.perf_counter()
        got = collection.query(query_embeddings=vector.reshape(1, -1), n_results=k, include=[])
        latencies.append(time.perf_counter() - started)
        want = {ids[i] for i in truth[:k]}
        hits.append(len(want & set(got["ids"][0])) / k)
    return {
        "recall_at_10": round(float(np.mean(hits)), 4),
        "queries_below_0.8": int(sum(h < 0.8 for h in hits)),
        "query": ms(latencies),
    }


def query_vectors(work: Path, root: Path, args: argparse.Namespace) -> np.ndarray:
    """Real MiniLM embeddings of the recall queries (computed once per work folder)."""
    cache = work / f"recall-queries-{args.recall_queries}.npy"
    if cache.exists():
        return np.load(cache)
    from ragd.index.embedder import MiniLMEmbedder

    texts = recall_queries(root, args.seed, args.recall_queries)
    queries = MiniLMEmbedder().embed(texts, lane="query")
    np.save(cache, queries)
    return queries


def recall(work: Path, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The daemon's own collection vs exact cosine over the same vectors."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from ragd.index.dense import COLLECTION

    queries = query_vectors(work, root, args)
    client = chromadb.PersistentClient(
        path=str(DataDir(work / "scale" / "data").vectors),
        settings=ChromaSettings(anonymized_telemetry=False, allow_reset=True),
    )
    collection = client.get_collection(COLLECTION)
    ids, matrix = all_vectors(collection)
    exact = exact_top(matrix, queries, 10)
    say(f"recall: {len(queries)} queries against {len(ids):,} vectors")
    result = hnsw_recall(collection, ids, exact, queries)
    result |= {
        "vectors": len(ids),
        "queries": len(queries),
        "hnsw": (collection.configuration_json or {}).get("hnsw"),
        "top1_cosine_p50": round(float(np.median((queries @ matrix.T).max(axis=1))), 3),
    }
    return result


# -- hnsw trade-off ----------------------------------------------------------------------
def cached_vectors(work: Path) -> tuple[list[str], np.ndarray]:
    """Every window vector of the corpus, from the manifest's embedding cache."""
    import sqlite3

    db = sqlite3.connect(f"file:{DataDir(work / 'scale' / 'data').manifest}?mode=ro", uri=True)
    rows = db.execute("SELECT text_hash, vector FROM embeddings").fetchall()
    db.close()
    ids = [r[0] for r in rows]
    return ids, np.stack([np.frombuffer(r[1], dtype=np.float32) for r in rows])


def planted_neighbours(queries: np.ndarray, seed: int) -> np.ndarray:
    """One vector per query at cosine 0.56 to it (the issue's failing case)."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(queries.shape).astype(np.float32)
    noise -= (noise * queries).sum(axis=1, keepdims=True) * queries
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    return np.asarray(0.56 * queries + np.sqrt(1 - 0.56**2) * noise)


def planted_hits(collection: Any, queries: np.ndarray, planted_in_exact: list[bool]) -> int:
    """Queries whose planted neighbour is in the exact top 10 and in HNSW's top 10 too."""
    found = 0
    for i, vector in enumerate(queries):
        got = collection.query(query_embeddings=vector.reshape(1, -1), n_results=10, include=[])
        found += planted_in_exact[i] and f"planted-{i}" in got["ids"][0]
    return found


def build_collection(path: Path, m: int, efc: int, ids: list[str], vectors: np.ndarray) -> Any:
    """A fresh persisted collection of `vectors` with these HNSW build parameters; the
    first query forces the index to be built, so the caller's timing includes it."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from ragd.index.dense import COLLECTION

    client = chromadb.PersistentClient(
        path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
    )
    config: Any = {"hnsw": {"space": "cosine", "max_neighbors": m, "ef_construction": efc}}
    collection = client.create_collection(COLLECTION, configuration=config, embedding_function=None)
    for start in range(0, len(ids), 4000):
        collection.add(ids=ids[start : start + 4000], embeddings=vectors[start : start + 4000])
    collection.query(query_embeddings=vectors[:1], n_results=1)
    return collection


def hnsw_sweep(work: Path, root: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Fresh collections of the same vectors (+ one planted neighbour per query)."""
    import chromadb
    from chromadb.api.client import SharedSystemClient
    from chromadb.config import Settings as ChromaSettings

    from ragd.index.dense import COLLECTION, HNSW

    ids, matrix = cached_vectors(work)
    say(f"hnsw: {len(ids):,} vectors from the embedding cache")
    queries = query_vectors(work, root, args)
    planted = planted_neighbours(queries, args.seed)
    all_ids = [*ids, *(f"planted-{i}" for i in range(len(queries)))]
    everything = np.concatenate([matrix, planted.astype(np.float32)])
    exact = exact_top(everything, queries, 10)
    planted_in_exact = [len(ids) + i in set(row) for i, row in enumerate(exact)]
    out = []
    for build_key in args.hnsw_builds.split(";"):
        m, efc = (int(x) for x in build_key.split(","))
        path = Path(tempfile.mkdtemp(prefix="hnsw-", dir=work))
        say(f"hnsw: building max_neighbors={m} ef_construction={efc}")
        started = time.perf_counter()
        collection = build_collection(path, m, efc, all_ids, everything)
        build_s = time.perf_counter() - started
        for ef in (int(x) for x in args.hnsw_ef.split(",")):
            collection.modify(configuration={"hnsw": {"ef_search": ef}})  # type: ignore[arg-type]
            SharedSystemClient.clear_system_cache()  # ef_search applies on reopening
            client = chromadb.PersistentClient(
                path=str(path), settings=ChromaSettings(anonymized_telemetry=False)
            )
            collection = client.get_collection(COLLECTION)
            collection.query(query_embeddings=queries[:1], n_results=1)  # load
            result = hnsw_recall(collection, all_ids, exact, queries)
            planted_found = planted_hits(collection, queries, planted_in_exact)
            row = {
                "max_neighbors": m,
                "ef_construction": efc,
                "ef_search": ef,
                "effective": (collection.configuration_json or {}).get("hnsw"),
                "build_s": round(build_s, 1),
                "bytes": du(path),
                "recall_at_10": result["recall_at_10"],
                # Of the queries whose planted neighbour is in the exact top 10, the share
                # whose HNSW top 10 holds it too.
                "planted_in_top10": round(planted_found / max(1, sum(planted_in_exact)), 4),
                "planted_in_exact_top10": round(float(np.mean(planted_in_exact)), 4),
                "query": result["query"],
                "ragd": m == HNSW["max_neighbors"]
                and efc == HNSW["ef_construction"]
                and ef == HNSW["ef_search"],
            }
            say(
                f"hnsw: M={m} efc={efc} ef={ef}: recall@10 {row['recall_at_10']}, planted "
                f"{row['planted_in_top10']}, p50 {result['query']['p50_ms']} ms"
            )
            out.append(row)
        SharedSystemClient.clear_system_cache()
        shutil.rmtree(path, ignore_errors=True)
    return out


def render(report: dict[str, Any]) -> str:
    lines = [f"ragd at scale ({report['command']})", ""]
    b = report.get("build")
    if b:
        lines.append(
            f"index: {b['files']:,} files, {b['chunks']:,} chunks, {b['dense_vectors']:,} "
            f"vectors ({b['real_vectors']:,} real MiniLM, {b['synthetic_vectors']:,} synthetic)"
        )
    i = report.get("ingest")
    if i:
        lines.append(
            f"real daemon ingest ({i['files']} files, {i['chunks']} chunks): "
            f"{i['steady_chunks_per_s']} chunks/s steady, load avg {i['loadavg_after']}"
        )
    s = report.get("serve")
    if s:
        t = report["targets"]
        sz = s["index_bytes"]
        lines += [
            f"index on disk: {sz['total'] / 2**20:,.0f} MB (chroma {sz['chroma'] / 2**20:,.0f}, "
            f"tantivy {sz['tantivy'] / 2**20:,.0f}, manifest {sz['manifest'] / 2**20:,.0f})",
            f"start-up to ready: {s['startup']['ready_s']} s; reconcile of "
            f"{s['startup']['files']:,} unchanged files: {s['startup']['reconcile_s_after_ready']}"
            f" s after ready ({s['startup']['files_read']} read); in-process scan "
            f"{s['reconcile_in_process']['scan_s']} s (target ≤ {t['reconcile_s']} s)",
            f"search in daemon (hybrid): p50 {s['search_in_daemon']['hybrid']['p50_ms']} ms, "
            f"p99 {s['search_in_daemon']['hybrid']['p99_ms']} ms (targets ≤ "
            f"{t['search_p50_ms']} / ≤ {t['search_p99_ms']})",
            f"  vector p50 {s['search_in_daemon']['vector']['p50_ms']} ms, bm25 p50 "
            f"{s['search_in_daemon']['bm25']['p50_ms']} ms",
            f"`rag search` whole process: p50 {s['search_whole_process']['p50_ms']} ms, "
            f"p99 {s['search_whole_process']['p99_ms']} ms",
            f"RSS: {s['rss_mb_idle']} MB idle, {s['rss_mb_after_searches']} MB after searches, "
            f"peak {s['peak_rss_mb']} MB (target ≤ {t['rss_mb']})",
        ]
    r = report.get("recall")
    if r:
        lines.append(
            f"dense recall@10 of the daemon's collection ({r['hnsw']}): {r['recall_at_10']} over "
            f"{r['queries']} queries; in-process query p50 {r['query']['p50_ms']} ms"
        )
    if report.get("hnsw"):
        lines.append("")
        lines.append("M   efc  ef   build s  recall@10  planted@10  p50 ms  p99 ms")
        for row in report["hnsw"]:
            lines.append(
                f"{row['max_neighbors']:<3} {row['ef_construction']:<4} {row['ef_search']:<4} "
                f"{row['build_s']:>7}  {row['recall_at_10']:>9}  {row['planted_in_top10']:>10}  "
                f"{row['query']['p50_ms']:>6}  {row['query']['p99_ms']:>6}"
                + ("  ← ragd" if row["ragd"] else "")
            )
    if report.get("real"):
        lines += render_real(report["real"])
    lines.append(f"load average at start {report['loadavg_at_start']}")
    return "\n".join(lines)


def main_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=None, help="keep/reuse corpus and index")
    parser.add_argument("--phases", default=",".join(PHASES), metavar="corpus,ingest,…")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=10, help="chunks per file")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--queries", type=int, default=500, help="timed in-daemon searches")
    parser.add_argument("--cli-runs", type=int, default=60, help="timed `rag search` processes")
    parser.add_argument("--sample-s", type=float, default=0.5, help="ingest progress sampling")
    parser.add_argument("--real-vectors", type=int, default=3000, help="real MiniLM vectors")
    parser.add_argument("--ingest-files", type=int, default=100, help="real daemon ingest")
    parser.add_argument("--recall-queries", type=int, default=400, help="plus questions.jsonl")
    parser.add_argument("--hnsw-builds", default="16,100;16,200;32,200", metavar="M,EFC;…")
    parser.add_argument("--hnsw-ef", default="64,100,128,256", metavar="EF,…")
    parser.add_argument("--real-chunks", type=int, default=20_000, help="real ingest size")
    parser.add_argument("--baseline-windows", type=int, default=300, help="raw encode sample")
    parser.add_argument("--store-modes", default="embedded,server", help="real ingest modes")
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "scale.json")
    args = parser.parse_args(argv)
    args.phases = [p for p in args.phases.split(",") if p]
    unknown = set(args.phases) - set(PHASES) - set(EXTRA_PHASES)
    if unknown:
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = main_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="ragd-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    env = isolated_env(work)
    os.environ.update(env)
    started = time.perf_counter()
    report: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": " ".join(["bench/scale.py", *(argv if argv is not None else sys.argv[1:])]),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "targets": TARGETS,
    }
    try:
        generated = set(args.phases) - set(EXTRA_PHASES)
        root = ensure_corpus(work, args) if generated else work / "corpus"
        if {"build", "serve", "recall"} & set(args.phases):
            report["build"] = build(work, root, args)
        if "ingest" in args.phases:
            report["ingest"] = ingest(work, root, env, args)
        if "serve" in args.phases:
            report["serve"] = serve(work, root, env, args)
        if "recall" in args.phases:
            report["recall"] = recall(work, root, args)
        if "hnsw" in args.phases:
            report["hnsw"] = hnsw_sweep(work, root, args)
        if "real" in args.phases:
            report["real"] = real_ingest(work, env, args)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    report["duration_s"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print(render(report))
    print(f"\nresults: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
