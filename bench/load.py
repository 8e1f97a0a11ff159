"""Search latency under load, idle vs during a 1,000-file ingest (part of `make bench`).

    .venv/bin/python bench/load.py                  # 8 clients × 250 searches per case
    .venv/bin/python bench/load.py --clients 4 --requests 100 --files 300

One real, isolated `ragd serve` (bench/harness.py) over 100 small notes. Cases, each
timed per request on the client side (send → final reply frame):

    1 client, idle      one connection, sequential searches: the floor
    8 clients, idle     8 threads, each with its own ragcli Connection (DEALER)
    8 clients, ingest   the same while the watcher feeds 1,000 freshly written
                        generated documents (bench/corpus.py) to the index writer

Errors (any failed or malformed reply) are counted, not raised. Results go to
bench/out/load.json and a table on stdout; nothing is asserted.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import corpus
from harness import BenchDaemon, isolated_env, percentile, wait_for

BENCH = Path(__file__).resolve().parent


def say(message: str) -> None:
    print(f"[load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def write_notes(folder: Path, count: int) -> None:
    for i in range(count):
        sub = folder / f"n{i // 50:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"note{i:04d}.md").write_text(
            f"# Note {i}\n\nPump P-{i:04d} at site S{i % 37} was serviced on day "
            f"{i % 365} by crew {i % 11}.\n"
        )


def run_clients(
    daemon: BenchDaemon, clients: int, requests: int, queries: Sequence[str]
) -> dict[str, Any]:
    from ragcli.transport import Connection

    latencies: list[list[float]] = [[] for _ in range(clients)]
    pending_seen: list[int] = [0] * clients
    errors: list[str] = []
    go = threading.Barrier(clients + 1)

    def client(n: int) -> None:
        conn = Connection(daemon.address)
        try:
            go.wait(60)
            for i in range(requests):
                query = queries[(n * requests + i) % len(queries)]
                started = time.perf_counter()
                try:
                    reply = conn.call("search", {"query": query, "top_k": 5}, timeout_s=60)
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                    continue
                latencies[n].append(time.perf_counter() - started)
                if reply.get("query") != query or not isinstance(reply.get("results"), list):
                    errors.append(f"malformed reply to {query!r}")
                pending_seen[n] += reply["_pending"] > 0
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    go.wait(60)
    started = time.perf_counter()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    flat = [x for per in latencies for x in per]
    return {
        "clients": clients,
        "requests": clients * requests,
        "errors": len(errors),
        "error_samples": errors[:5],
        "p50_ms": round(percentile(flat, 50) * 1000, 1),
        "p90_ms": round(percentile(flat, 90) * 1000, 1),
        "p99_ms": round(percentile(flat, 99) * 1000, 1),
        "max_ms": round(max(flat) * 1000, 1) if flat else None,
        "throughput_per_s": round(len(flat) / wall, 1),
        "wall_s": round(wall, 1),
        "replies_while_files_pending": sum(pending_seen),
    }


def render(report: dict[str, Any]) -> str:
    rows = [
        ("case", "requests", "errors", "p50 ms", "p90 ms", "p99 ms", "max ms", "req/s"),
    ]
    for name, case in report["cases"].items():
        rows.append(
            (
                name,
                str(case["requests"]),
                str(case["errors"]),
                f"{case['p50_ms']:.1f}",
                f"{case['p90_ms']:.1f}",
                f"{case['p99_ms']:.1f}",
                f"{case['max_ms']:.1f}",
                f"{case['throughput_per_s']:.0f}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["search latency under load (client side, send → final reply)"]
    for n, row in enumerate(rows):
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    ingest = report["ingest_during_load"]
    lines.append(
        f"during the ingest case: {ingest['files_indexed_during_load']} of {ingest['files']} "
        f"new files indexed ({ingest['files_per_s']} files/s), "
        f"{report['cases'][report['ingest_case']]['replies_while_files_pending']} replies said "
        "files were pending"
    )
    lines.append(f"load average at start {report['loadavg_at_start']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=250, help="per client")
    parser.add_argument("--files", type=int, default=1000, help="documents ingested under load")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "load.json")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="ragd-load-"))
    env = isolated_env(tmp)
    os.environ.update(env)
    root = tmp / "root"
    write_notes(root / "notes", 100)
    queries = corpus.queries(args.seed, 400)
    report: dict[str, Any] = {
        "date": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "loadavg_at_start": [round(x, 2) for x in os.getloadavg()],
        "cases": {},
    }
    daemon = BenchDaemon(tmp, "load", [root], env)
    try:
        daemon.start()
        daemon.wait_idle()
        for query in queries[:20]:  # warm the model and the HNSW index
            daemon.call("search", query=query, top_k=5)
        say("1 client, idle")
        report["cases"]["1 client, idle"] = run_clients(daemon, 1, args.requests, queries)
        say(f"{args.clients} clients, idle")
        report["cases"][f"{args.clients} clients, idle"] = run_clients(
            daemon, args.clients, args.requests, queries
        )
        before = daemon.status()["files"]
        corpus.write_corpus(root / "incoming", args.files, args.seed)
        wait_for(lambda: daemon.status()["pending"] > 0, 60, "the ingest to start")
        say(f"{args.clients} clients during a {args.files}-file ingest")
        started = time.perf_counter()
        case = run_clients(daemon, args.clients, args.requests, queries)
        elapsed = time.perf_counter() - started
        during = daemon.status()["files"] - before
        report["ingest_case"] = f"{args.clients} clients, ingest"
        report["cases"][report["ingest_case"]] = case
        report["ingest_during_load"] = {
            "files": args.files,
            "files_indexed_during_load": during,
            "files_per_s": round(during / elapsed, 2),
        }
        report["rss_mb"] = round(daemon.memory_kb().get("VmRSS", 0) / 1024, 1)
    finally:
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(render(report))
    print(f"\nresults: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
