"""(c) ingest throughput of a generated corpus vs the raw encode rate on the same windows.

The daemon side (`bench_ingest`) runs while the corpus daemon is up; the in-process side
(`raw_encode`) after it has stopped, so the two never compete for the cores."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import corpus
from common import TARGETS, Plan, say
from harness import BenchDaemon, BenchError, CpuMeter


def generate(folder: Path, plan: Plan) -> tuple[list[Path], dict[str, Any]]:
    """Write the generated Markdown corpus; its paths and a description for the table."""
    say(f"generating {plan.files} Markdown files (seed {plan.seed})")
    paths = corpus.write_corpus(folder, plan.files, plan.seed)
    sizes = [p.stat().st_size for p in paths]
    generated = {
        "files": len(paths),
        "bytes": sum(sizes),
        "min_bytes": min(sizes),
        "max_bytes": max(sizes),
        "seed": plan.seed,
    }
    return paths, generated


def wait_ingested(daemon: BenchDaemon, started: float) -> dict[str, Any]:
    """Poll status until the daemon is idle again (progress every 20 s); the last status."""
    last_report = started
    while True:
        status = daemon.status()
        now = time.perf_counter()
        if status["state"] == "idle":
            return status
        if now - last_report > 20:
            progress = status.get("progress") or {}
            say(f"    {progress.get('done', '?')}/{progress.get('total', '?')} files")
            last_report = now
        if now - started > 3600:
            raise BenchError("ingest did not finish within an hour")
        daemon.assert_alive()
        time.sleep(0.1)


def bench_ingest(daemon: BenchDaemon, folder: Path, files: int) -> dict[str, Any]:
    before = daemon.status()
    say(f"(c) ingesting {files} files (daemon ready in {daemon.ready_s:.1f} s)")
    meter = CpuMeter(lambda: [daemon.pid])
    cpu = daemon.cpu_seconds()
    started = time.perf_counter()
    daemon.call("ingest", path=str(folder))
    status = wait_ingested(daemon, started)
    elapsed = time.perf_counter() - started
    cpu = daemon.cpu_seconds() - cpu
    computed = status["embeddings"]["computed"] - before["embeddings"]["computed"]
    return {
        "files": status["files"],
        "chunks": status["chunks"],
        "embeddings_computed": computed,
        "errors": len(status.get("errors") or []),
        "daemon_seconds": round(elapsed, 2),
        "daemon_cpu_seconds": round(cpu, 2),
        "daemon_ready_s": round(daemon.ready_s, 2),
        "background": meter.read(),
    }


def raw_encode(result: dict[str, Any], folder: Path, precision: str) -> dict[str, Any]:
    import inproc

    say(f"(c) raw encode of the same windows in-process ({precision})")
    model = inproc.embedder(precision)
    paths = sorted(folder.rglob("*.md"))
    chunks = inproc.chunk_windows(folder, paths, model)
    windows = inproc.distinct_windows(chunks)
    pieces = inproc.word_pieces(model, windows)
    seconds, cpu = inproc.time_raw_encode(model, windows)
    import torch  # loaded by the model above

    daemon_s = result["daemon_seconds"]
    result.update(
        precision=precision,
        batch_size=model.batch_size,
        torch_threads=torch.get_num_threads(),
        omp_wait_policy=os.environ.get("OMP_WAIT_POLICY", "(default)"),
        chunks_in_process=len(chunks),
        windows=len(windows),
        word_pieces=pieces,
        raw_encode_seconds=round(seconds, 2),
        raw_encode_cpu_seconds=round(cpu, 2),
        daemon_chunks_per_s=round(result["chunks"] / daemon_s, 1),
        daemon_word_pieces_per_s=round(pieces / daemon_s),
        raw_chunks_per_s=round(len(chunks) / seconds, 1),
        raw_word_pieces_per_s=round(pieces / seconds),
        ratio=round(seconds / daemon_s, 3),
        ratio_cpu_time=round(cpu / result["daemon_cpu_seconds"], 3),
        target_ratio=TARGETS["c_ratio"],
    )
    return result
