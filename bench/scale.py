"""ragd at scale: ≥ 100,000 chunks, measured on this machine (`make bench-scale`).

    .venv/bin/python bench/scale.py                        # everything, from scratch
    .venv/bin/python bench/scale.py --work /tmp/ragd-scale # keep/reuse corpus and index
    .venv/bin/python bench/scale.py --work DIR --phases serve,recall,hnsw

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
import datetime as dt
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from harness import BIN, BenchDaemon, isolated_env, percentile, summary, wait_for

BENCH = Path(__file__).resolve().parent
QUESTIONS = BENCH / "questions.jsonl"
PHASES = ("corpus", "ingest", "serve", "recall", "hnsw")
TARGETS = {
    "search_p50_ms": 25,
    "search_p99_ms": 80,
    "rss_mb": 1536,
    "reconcile_s": 5,
    "recall_at_10": 0.95,
}
CHROMA_DEFAULT = {"space": "cosine", "ef_construction": 100, "max_neighbors": 16, "ef_search": 100}


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
    shutil.rmtree(work / "scale", ignore_errors=True)  # an index of another corpus
    (work / "ingest.json").unlink(missing_ok=True)
    started = time.perf_counter()
    write_scale_corpus(root, args.files, args.sections, args.seed)
    say(f"corpus: {args.files} files written in {time.perf_counter() - started:.1f} s")
    marker.write_text(json.dumps(spec))
    return root


def du(path: Path) -> int:
    total = 0
    for dirpath, _, filenames in os.walk(path):
        for name in filenames:
            try:
                total += os.stat(os.path.join(dirpath, name), follow_symlinks=False).st_blocks * 512
            except OSError:
                pass
    return total


# -- ingest ------------------------------------------------------------------------------
def ingest(work: Path, root: Path, env: dict[str, str], args: argparse.Namespace) -> dict:
    done = work / "ingest.json"
    if done.exists():
        say("ingest: reusing the built index")
        return dict(json.loads(done.read_text()))
    shutil.rmtree(work / "scale", ignore_errors=True)
    daemon = BenchDaemon(work, "scale", [root], env)
    say("ingest: starting a fresh daemon over the corpus (this is the long part)")
    samples: list[tuple[float, int, int]] = []
    try:
        daemon.start(timeout=300)
        started = daemon.started_at
        last_say = 0.0
        while True:
            daemon.assert_alive()
            status = daemon.status()
            now = time.perf_counter() - started
            samples.append((round(now, 1), int(status["files"]), int(status["chunks"])))
            if now - last_say > 60:
                last_say = now
                say(f"ingest: {status['files']:,} files, {status['chunks']:,} chunks, {now:.0f} s")
            if status["state"] == "idle" and status["files"] >= args.files:
                break
            time.sleep(args.sample_s)  # sampling interval of the bench, not a wait for state
        total_s = time.perf_counter() - started
        status = daemon.status()
        memory = daemon.memory_kb()
    finally:
        daemon.stop(timeout=120)
    # The steady rate: between 10 % and 90 % of the files (model loading excluded).
    lo = next(s for s in samples if s[1] >= args.files * 0.1)
    hi = next(s for s in samples if s[1] >= args.files * 0.9)
    rate = (hi[2] - lo[2]) / max(1e-9, hi[0] - lo[0])
    result = {
        "files": status["files"],
        "chunks": status["chunks"],
        "embeddings_computed": status["embeddings"]["computed"],
        "wall_s_from_exec": round(total_s, 1),
        "ready_s": round(daemon.ready_s, 1),
        "steady_chunks_per_s": round(rate, 1),
        "rss_mb_at_end": round(memory.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(memory.get("VmHWM", 0) / 1024, 1),
        "samples": samples[:: max(1, len(samples) // 200)],
    }
    done.write_text(json.dumps(result, indent=2))
    say(f"ingest: {result['chunks']:,} chunks in {total_s:.0f} s ({rate:.1f} chunks/s steady)")
    return result


def main_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=None, help="keep/reuse corpus and index")
    parser.add_argument("--phases", default=",".join(PHASES), metavar="corpus,ingest,…")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sections", type=int, default=10, help="chunks per file")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--queries", type=int, default=500, help="timed in-daemon searches")
    parser.add_argument("--cli-runs", type=int, default=60, help="timed `rag search` processes")
    parser.add_argument("--sample-s", type=float, default=2.0, help="ingest progress sampling")
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "scale.json")
    args = parser.parse_args(argv)
    args.phases = [p for p in args.phases.split(",") if p]
    unknown = set(args.phases) - set(PHASES)
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
        "loadavg_at_start": os.getloadavg(),
        "targets": TARGETS,
    }
    try:
        root = ensure_corpus(work, args)
        if "ingest" in args.phases or "serve" in args.phases:
            report["ingest"] = ingest(work, root, env, args)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    report["duration_s"] = round(time.perf_counter() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
