"""`bench/scale.py --phases real`: a real ingest at scale, no synthetic vectors.

A fresh `ragd serve` indexes the first `--real-files` corpus files (10 chunks each: the
default 2,000 files are 20,000 chunks) with the real model, once per store mode
(`--store-modes embedded,server`; `server` starts `chroma run` on 127.0.0.1 for it). While
it indexes, one search is timed at every status sample (search latency *during* ingest);
once idle, `--queries` searches are timed (*after*). Reported per mode: chunks/s from
READY to the last chunk, wall time, daemon RSS (and the server's), index size on disk,
search p50/p99 during and after. At ≈ 40 chunks/s on 2 cores, 20,000 chunks take ≈ 8–9 min
per mode on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
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

from harness import BenchDaemon, percentile, wait_for

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
    shutil.rmtree(target, ignore_errors=True)
    paths = sorted(root.rglob("*.md"))[:files]
    for path in paths:
        dest = target / path.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    return len(paths)


def until_indexed(
    daemon: BenchDaemon, files: int, interval: float, between: Callable[[], None] = lambda: None
) -> Iterator[tuple[float, dict[str, Any]]]:
    """(seconds since exec, status) at every sample until `files` are indexed and idle."""
    while True:
        daemon.assert_alive()
        status = daemon.status()
        yield time.perf_counter() - daemon.started_at, status
        if status["state"] == "idle" and status["files"] >= files:
            return
        between()
        time.sleep(interval)  # the bench's sampling interval, not a wait for state


def one_mode(
    work: Path, sample: Path, files: int, env: dict[str, str], queries: Sequence[str], args: Any
) -> dict[str, Any]:
    name = f"real-{args.mode}"
    shutil.rmtree(work / name, ignore_errors=True)
    daemon = BenchDaemon(work, name, [sample], env)
    samples: list[tuple[float, int]] = []
    during: list[float] = []

    def search_once() -> None:
        began = time.perf_counter()
        daemon.call("search", query=queries[len(during) % len(queries)], top_k=5)
        during.append(time.perf_counter() - began)

    try:
        daemon.start(timeout=300)
        for at, status in until_indexed(daemon, files, args.sample_s, search_once):
            samples.append((at, int(status["chunks"])))
        wall = samples[-1][0]
        after = []
        for query in queries:
            began = time.perf_counter()
            daemon.call("search", query=query, top_k=5)
            after.append(time.perf_counter() - began)
        memory = daemon.memory_kb()
    finally:
        daemon.stop(timeout=120)
    # From READY (model loaded) to the last chunk: the walk and the writer, not the start-up.
    rate = samples[-1][1] / max(1e-9, samples[-1][0] - daemon.ready_s)
    return {
        "chunks": status["chunks"],
        "embeddings_computed": status["embeddings"]["computed"],
        "wall_s": round(wall, 1),
        "chunks_per_s": round(rate, 1),
        "rss_mb": round(memory.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
        "data_dir_mb": du_mb(daemon.data_dir),
        "search_during": ms(during),
        "search_after": ms(after),
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


def real_ingest(
    work: Path, root: Path, env: dict[str, str], queries: Sequence[str], args: argparse.Namespace
) -> dict[str, Any]:
    sample = work / "real-sample"
    files = copy_sample(root, sample, args.real_files)
    say(f"real: {files} files (≈ {files * args.sections:,} chunks), modes {args.store_modes}")
    out: dict[str, Any] = {"files": files}
    for mode in args.store_modes.split(","):
        args.mode = mode
        if mode == "server":
            server_dir = work / "real-chroma"
            shutil.rmtree(server_dir, ignore_errors=True)
            server_dir.mkdir(parents=True)
            with chroma_server(server_dir / "db") as (url, pid):
                mode_env = dict(env, RAG_VECTOR_STORE=url)
                out[mode] = one_mode(work, sample, files, mode_env, queries, args)
                out[mode]["server_rss_mb"] = rss_mb(pid)
                out[mode]["server_disk_mb"] = du_mb(server_dir / "db")
        else:
            out[mode] = one_mode(work, sample, files, env, queries, args)
        r = out[mode]
        say(
            f"real/{mode}: {r['chunks']:,} chunks, {r['chunks_per_s']} chunks/s, "
            f"RSS {r['rss_mb']} MB, search during p50 {r['search_during'].get('p50_ms')} ms, "
            f"after p50 {r['search_after'].get('p50_ms')} ms"
        )
    return out
