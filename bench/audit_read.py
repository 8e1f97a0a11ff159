"""What the vector audit's manifest read costs the index writer at scale.

    .venv/bin/python bench/audit_read.py --chunks 100000

Every `unwatched_rescan_s` (30 s) on a vector store server, the writer thread asks, between
jobs, the manifest's chunk and window totals (`Manifest.chunk_totals`, engine/loading.py
`VectorAudit`). SQLite reads every row of `chunks` for them, text included. This fills a
manifest with rows the size the chunker makes (≈ 2,000 characters, three windows), then
times the read and how far another Python thread gets while it runs (SQLite releases the
GIL while it steps, so only the writer waits). Nothing is asserted; figures on stdout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from ragd.core.layout import DataDir
from ragd.index.manifest import Manifest

WORDS = "ferry harbour north pier morning evening ticket ship crossing weather".split()


def fill(manifest: Manifest, chunks: int, seed: int) -> None:
    pick = random.Random(seed)
    db = manifest._db()
    db.execute("BEGIN")
    for i in range(chunks):
        text = " ".join(pick.choice(WORDS) for _ in range(330))
        windows = [hashlib.sha256(f"{i}-{k}".encode()).hexdigest() for k in range(3)]
        row = (f"c{i}", "/r", f"f{i // 20}.md", i % 20, "H > I", text, None, json.dumps(windows))
        db.execute("INSERT INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?, '1-9')", row)
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def timed_ms(manifest: Manifest, rounds: int) -> list[float]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        manifest.chunk_totals()
        times.append((time.perf_counter() - start) * 1000)
    return times


def other_thread_share(manifest: Manifest) -> float:
    """How far a spinning Python thread gets during the read, against as long without it."""
    count, stop = [0], threading.Event()

    def spin() -> None:
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=spin)
    thread.start()
    time.sleep(0.2)
    before, start = count[0], time.perf_counter()
    manifest.chunk_totals()
    took, during = time.perf_counter() - start, count[0] - before
    before = count[0]
    time.sleep(took)
    idle = count[0] - before
    stop.set()
    thread.join()
    return during / max(1, idle)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = DataDir(Path(tmp)).manifest
        fill(Manifest(path), args.chunks, seed=1)
        manifest = Manifest(path)
        times = timed_ms(manifest, args.rounds)
        print(f"{args.chunks:,} chunks, manifest {path.stat().st_size / 1e6:.0f} MB")
        print(f"chunk_totals: median {statistics.median(times):.0f} ms, max {max(times):.0f} ms")
        print(f"another Python thread ran at {other_thread_share(manifest):.0%} of its idle pace")
        manifest.close()


if __name__ == "__main__":
    main()
