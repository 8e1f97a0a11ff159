"""`bench/scale.py --phases real`: a real ingest of real documents, no synthetic vectors.

The corpus is this machine's package documentation (bench/real_corpus.py: /usr/share/doc
texts, decompressed, ≥ `--real-chunks` chunks by ragd's chunker). A fresh `ragd serve`
indexes it with the real model, once per store mode (`--store-modes embedded,server`;
`server` starts `chroma run` on 127.0.0.1 with a temp path and sets `vector_store`).

Per mode, reported:
  - the baseline: sentence-transformers' raw `encode` of a random sample of the corpus's
    own windows, timed right before the daemon starts and right after it stops (nothing of
    ours competes with it), so the daemon's rate is given as a ratio to the raw rate of the
    same model on the same texts at the same time — absolute rates on a shared machine
    follow its load, the ratio much less;
  - chunks/s and windows (embeddings)/s from READY to the last chunk, wall time;
  - daemon RSS (and the server's) sampled through the ingest, index size on disk;
  - search p50/p99 *during* (one search per progress sample) and *after* (`--queries`
    searches once idle), the queries being sentence fragments from the corpus itself;
  - how many cores other processes kept busy meanwhile (harness.CpuMeter).
A real chunk of these docs is ≈ 6 windows (one per paragraph), so the default 20,000-chunk
folder is ≈ 125,000 embeddings: ≈ 36 min per mode on a quiet 2-core machine (≈ 29 windows
per CPU-second measured here), hours on a loaded one.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import real_corpus
from harness import BenchDaemon, CpuMeter, percentile, wait_for
from ragd.index.dense import HNSW_BUILD

CHROMA_CLI = "from chromadb.cli.cli import app; app()"


def say(message: str) -> None:
    print(f"[scale {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def ms(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50) * 1000, 1),
        "p99_ms": round(percentile(values, 99) * 1000, 1),
    }


def du_mb(path: Path) -> float:
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0
    return round(total / 2**20, 1)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


@contextmanager
def chroma_server(path: Path) -> Iterator[tuple[str, int]]:
    """`chroma run` on a free loopback port; yields (URL, pid)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    args = ["run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)]
    with (path.parent / "chroma.log").open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-c", CHROMA_CLI, *args],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        )

    def up() -> bool:
        try:
            with urllib.request.urlopen(url + "/api/v2/heartbeat", timeout=2):
                return True
        except OSError:
            return False

    try:
        wait_for(up, 60, "chroma run", 0.2)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(30)


def copy_sample(root: Path, target: Path, files: int) -> int:
    """The first `files` Markdown files of the generated corpus (the `ingest` phase)."""
    shutil.rmtree(target, ignore_errors=True)
    paths = sorted(root.rglob("*.md"))[:files]
    for path in paths:
        dest = target / path.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    return len(paths)


def until_indexed(
    daemon: BenchDaemon,
    files: int,
    interval: float,
    between: Callable[[], None] = lambda: None,
    idle_samples: int = 0,
) -> Iterator[tuple[float, dict[str, Any]]]:
    """(seconds since exec, status) at every sample until `files` are indexed and idle, or
    (with `idle_samples`) idle that many samples in a row: a file the daemon skips must not
    make the bench wait forever."""
    idle = 0
    while True:
        daemon.assert_alive()
        status = daemon.status()
        yield time.perf_counter() - daemon.started_at, status
        idle = idle + 1 if status["state"] == "idle" else 0
        if idle and (status["files"] >= files or idle == idle_samples):
            return
        between()
        time.sleep(interval)  # the bench's sampling interval, not a wait for state


# -- baseline and queries ----------------------------------------------------------------
def corpus_windows(root: Path, model: Any) -> tuple[int, list[str]]:
    """(chunks, distinct windows) of the folder, by the daemon's own code path."""
    import inproc

    chunks = inproc.chunk_windows(root, sorted(p for p in root.rglob("*") if p.is_file()), model)
    return len(chunks), inproc.distinct_windows(chunks)


def raw_encode_rate(model: Any, windows: Sequence[str]) -> dict[str, Any]:
    import inproc

    meter = CpuMeter()
    seconds, cpu = inproc.time_raw_encode(model, windows)
    return {
        "windows": len(windows),
        "windows_per_s": round(len(windows) / seconds, 2),
        "cpu_cores": round(cpu / seconds, 2),
        "other_cores": meter.read()["other_cores"],
    }


def real_queries(root: Path, seed: int, count: int) -> list[str]:
    """Fragments of sentences from the corpus (5–9 words), as someone half-remembers them."""
    rng = random.Random(f"{seed}:real-queries")
    paths = sorted(p for p in root.rglob("*") if p.is_file())
    out: list[str] = []
    while len(out) < count:
        text = rng.choice(paths).read_text(encoding="utf-8", errors="replace")
        lines = [w for w in (re.findall(r"[A-Za-z][\w.-]*", ln) for ln in text.splitlines())]
        lines = [w for w in lines if len(w) >= 6]
        if lines:
            words = rng.choice(lines)
            start = rng.randrange(0, len(words) - 4)
            out.append(" ".join(words[start : start + rng.randint(5, 9)]))
    return out


# -- one store mode ----------------------------------------------------------------------
class Progress:
    """Samples of (s since exec, files, chunks, embeddings computed, daemon MB, server MB)."""

    def __init__(self, daemon: BenchDaemon, server_pid: int | None) -> None:
        self.daemon = daemon
        self.server_pid = server_pid
        self.rows: list[tuple[float, int, int, int, float, float]] = []

    def add(self, at: float, status: dict[str, Any]) -> None:
        server = rss_mb(self.server_pid) if self.server_pid else 0.0
        self.rows.append(
            (
                round(at, 1),
                int(status["files"]),
                int(status["chunks"]),
                int(status["embeddings"]["computed"]),
                rss_mb(self.daemon.pid),
                server,
            )
        )

    def every(self, seconds: float) -> list[tuple[float, int, int, int, float, float]]:
        """About one row per `seconds`, for the report (the last row always kept)."""
        out, next_at = [], 0.0
        for row in self.rows:
            if row[0] >= next_at:
                out.append(row)
                next_at = row[0] + seconds
        if out[-1] != self.rows[-1]:
            out.append(self.rows[-1])
        return out


def one_mode(
    work: Path,
    sample: Path,
    files: int,
    env: dict[str, str],
    queries: Sequence[str],
    args: Any,
    server_pid: int | None = None,
) -> dict[str, Any]:
    name = f"real-{args.mode}"
    shutil.rmtree(work / name, ignore_errors=True)
    daemon = BenchDaemon(work, name, [sample], env)
    during: list[float] = []

    def search_once() -> None:
        began = time.perf_counter()
        daemon.call("search", query=queries[len(during) % len(queries)], top_k=5)
        during.append(time.perf_counter() - began)

    try:
        daemon.start(timeout=300)
        progress = Progress(daemon, server_pid)
        meter = CpuMeter(lambda: [daemon.pid, *([server_pid] if server_pid else [])])
        for at, status in until_indexed(daemon, files, args.sample_s, search_once, 20):
            progress.add(at, status)
        load = meter.read()
        after = []
        for query in queries:
            began = time.perf_counter()
            daemon.call("search", query=query, top_k=5)
            after.append(time.perf_counter() - began)
        memory = daemon.memory_kb()
    finally:
        daemon.stop(timeout=120)
    last = progress.rows[-1]
    ingest_s = max(1e-9, last[0] - daemon.ready_s)  # READY (model loaded) → last chunk
    return {
        "files": status["files"],
        "chunks": status["chunks"],
        "embeddings_computed": status["embeddings"]["computed"],
        "ready_s": round(daemon.ready_s, 1),
        "ingest_s": round(ingest_s, 1),
        "chunks_per_s": round(last[2] / ingest_s, 2),
        "windows_per_s": round(last[3] / ingest_s, 2),
        "rss_mb": round(memory.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
        "data_dir_mb": du_mb(daemon.data_dir),
        "search_during": ms(during),
        "search_after": ms(after),
        "cores_during": load,
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "progress": progress.every(60.0),
    }


def measured_mode(
    work: Path, sample: Path, files: int, env: dict[str, str], args: Any, baseline: Callable
) -> dict[str, Any]:
    """Baseline, the daemon's ingest (with a `chroma run` for `server`), baseline again."""
    before = baseline()
    queries = real_queries(sample, args.seed, min(args.queries, 200))
    if args.mode == "server":
        server_dir = work / "real-chroma"
        shutil.rmtree(server_dir, ignore_errors=True)
        server_dir.mkdir(parents=True)
        with chroma_server(server_dir / "db") as (url, pid):
            result = one_mode(
                work, sample, files, dict(env, RAG_VECTOR_STORE=url), queries, args, pid
            )
            result["server_rss_mb"] = rss_mb(pid)
            result["server_disk_mb"] = du_mb(server_dir / "db")
    else:
        result = one_mode(work, sample, files, env, queries, args)
    after = baseline()
    result["baseline_before"], result["baseline_after"] = before, after
    add_ratios(result)
    return result


def add_ratios(result: dict[str, Any]) -> None:
    """The daemon against the raw encode: per wall second (follows the load) and per CPU
    second (how much of its CPU goes into embedding; steadier on a shared machine)."""
    before, after = result["baseline_before"], result["baseline_after"]
    raw = (before["windows_per_s"] + after["windows_per_s"]) / 2
    raw_cpu = sum(b["windows_per_s"] / max(0.01, b["cpu_cores"]) for b in (before, after)) / 2
    ours = result["windows_per_s"] / max(0.01, result["cores_during"]["our_cores"])
    result["raw_windows_per_s"] = round(raw, 2)
    result["ratio_to_raw_encode"] = round(result["windows_per_s"] / raw, 3)
    result["raw_windows_per_cpu_s"] = round(raw_cpu, 1)
    result["windows_per_cpu_s"] = round(ours, 1)
    result["ratio_to_raw_encode_cpu"] = round(ours / raw_cpu, 3)


def real_ingest(work: Path, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    import inproc

    root = work / "real-corpus"
    say(f"real: building ≥ {args.real_chunks:,} chunks of {real_corpus.DOC} texts")
    files = real_corpus.build(root, args.real_chunks, args.seed)
    corpus = real_corpus.summary(files) | {"source": str(real_corpus.DOC), "folder": str(root)}
    model = inproc.embedder("float32")  # the precision isolated_env gives the daemon
    chunks, windows = corpus_windows(root, model)
    corpus |= {"chunks_in_process": chunks, "distinct_windows": len(windows)}
    say(
        f"real: {corpus['files']:,} files, {corpus['bytes']:,} bytes, {chunks:,} chunks, "
        f"{len(windows):,} windows; modes {args.store_modes}"
    )
    probe = random.Random(args.seed).sample(windows, min(args.baseline_windows, len(windows)))

    def baseline() -> dict[str, Any]:
        return raw_encode_rate(model, probe)

    out: dict[str, Any] = {"corpus": corpus}
    for mode in args.store_modes.split(","):
        args.mode = mode
        out[mode] = r = measured_mode(work, root, len(files), env, args, baseline)
        r["extrapolated"] = [extrapolate(out, mode, size) for size in (100_000, 1_000_000)]
        # Each mode takes long: what is measured survives the bench being stopped in the next.
        (work / "real.json").write_text(json.dumps(out, indent=2) + "\n")
        say(
            f"real/{mode}: {r['chunks']:,} chunks, {r['chunks_per_s']} chunks/s "
            f"({r['ratio_to_raw_encode']} × raw encode), RSS {r['rss_mb']} MB, search p50 "
            f"during {r['search_during'].get('p50_ms')} ms, after "
            f"{r['search_after'].get('p50_ms')} ms"
        )
    return out


# -- what a larger folder would cost (extrapolated from one mode's measurements) ----------
def rss_slope(progress: Sequence[Sequence[float]], column: int) -> float:
    """MB of RSS per embedded window over the second half of the ingest (the first half
    includes the allocator and the model's buffers warming up)."""
    last = progress[-1]
    mid = next(r for r in progress if r[3] >= last[3] / 2)
    return (last[column] - mid[column]) / max(1, last[3] - mid[3])


def extrapolate(real: dict[str, Any], mode: str, chunks: int) -> dict[str, Any]:
    """Time, disk and memory for a folder of `chunks` chunks of text like the corpus's.

    Linear in windows (≈ one per paragraph): hours at the measured rate, and on a quiet
    2-core machine (the daemon's windows per CPU-second × 2 cores); disk per chunk as
    measured; what HNSW itself holds in RAM; and RSS as measured at the end plus the growth
    per window of the ingest's second half (daemon, and the server's in server mode) — an
    upper bound: much of the daemon's growth is its allocator keeping freed ingest memory.
    """
    m, c = real[mode], real["corpus"]
    windows = chunks * c["distinct_windows"] / c["chunks"]
    quiet = m["windows_per_cpu_s"] * 2
    extra = windows - m["embeddings_computed"]
    out = {
        "chunks": chunks,
        "windows": round(windows),
        "hours_at_measured_rate": round(windows / m["windows_per_s"] / 3600, 1),
        "hours_quiet_2_cores": round(windows / quiet / 3600, 1),
        "disk_gb": round(
            (m["data_dir_mb"] + m.get("server_disk_mb", 0)) / m["chunks"] * chunks / 1024, 1
        ),
        # What HNSW itself keeps in RAM: each float32 vector plus its level-0 links.
        "hnsw_vectors_gb": round(
            windows * (384 * 4 + 2 * HNSW_BUILD["max_neighbors"] * 4) / 2**30, 2
        ),
        "daemon_rss_gb_linear": round(
            (m["rss_mb"] + rss_slope(m["progress"], 4) * extra) / 1024, 2
        ),
    }
    if "server_rss_mb" in m:
        out["server_rss_gb_linear"] = round(
            (m["server_rss_mb"] + rss_slope(m["progress"], 5) * extra) / 1024, 2
        )
    return out


def render_real(real: dict[str, Any]) -> list[str]:
    c = real["corpus"]
    lines = [
        f"real corpus ({c['source']}): {c['files']:,} files of {c['packages']} packages, "
        f"{c['bytes'] / 2**20:,.1f} MB, {c['chunks']:,} chunks, {c['distinct_windows']:,} windows"
    ]
    for mode in ("embedded", "server"):
        m = real.get(mode)
        if not m:
            continue
        server = ""
        if "server_rss_mb" in m:
            server = f" + server {m['server_rss_mb']} MB RSS, {m['server_disk_mb']} MB disk"
        lines += [
            f"real ingest, {mode}: {m['chunks']:,} chunks, {m['embeddings_computed']:,} "
            f"embeddings in {m['ingest_s']} s after ready ({m['ready_s']} s): "
            f"{m['chunks_per_s']} chunks/s, {m['windows_per_s']} windows/s = "
            f"{m['ratio_to_raw_encode']} × raw encode ({m['raw_windows_per_s']} windows/s); "
            f"per CPU second {m['windows_per_cpu_s']} = {m['ratio_to_raw_encode_cpu']} × raw",
            f"  RSS {m['rss_mb']} MB (peak {m['peak_rss_mb']}), data dir {m['data_dir_mb']} MB"
            f"{server}; other processes kept {m['cores_during']['other_cores']} cores busy",
            f"  search p50/p99 during {m['search_during'].get('p50_ms')}/"
            f"{m['search_during'].get('p99_ms')} ms, after {m['search_after'].get('p50_ms')}/"
            f"{m['search_after'].get('p99_ms')} ms",
        ]
        for size in (100_000, 1_000_000):
            e = extrapolate(real, mode, size)  # from the figures, also for an older report
            server = (
                f", server ≤ {e['server_rss_gb_linear']} GB" if "server_rss_gb_linear" in e else ""
            )
            lines.append(
                f"  extrapolated to {size:,} chunks ({e['windows']:,} windows): "
                f"{e['hours_at_measured_rate']} h at this rate "
                f"({e['hours_quiet_2_cores']} h quiet), "
                f"{e['disk_gb']} GB disk, RSS: daemon ≤ {e['daemon_rss_gb_linear']} GB{server} "
                f"(HNSW vectors and links alone {e['hnsw_vectors_gb']} GB)"
            )
    return lines
