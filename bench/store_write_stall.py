"""What a vector write costs the store's worker process, and how long it goes without CPU.

    .venv/bin/python bench/store_write_stall.py [--vectors 36000] [--dir /tmp/NAME/stall]
        [--starts 5]

Upserts MAX_BATCH (4,000) random unit vectors at a time through a real `StoreProcess`
(index/store_process.py: the worker, its ChromaDB) until the index holds VECTORS, and
prints one JSON line per write: the index size before it, its wall and CPU seconds (the
worker's utime + stime from /proc/PID/stat), and the longest stretch of it with no CPU
tick, sampled every 50 ms. The stall bounds (`read_stall_s` of core/timings.py,
WRITE_STALL_S) are on that last figure: a worker past its bound with no CPU used is
killed as stuck, so a
legitimate write must never go that long without one, however long it runs. The CPU
figure is what BUSY_CPU_S (a request computing without answering: a livelock) is above.

`--starts N` then starts a worker on the store so filled N times and prints, for each, the
wall and CPU seconds from its spawn to its "ready" and its longest stretch with no CPU:
what a start is watched against (START_CPU_S, WRITE_STALL_S).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from ragd.core.layout import DataDir
from ragd.index.dense import MAX_BATCH
from ragd.index.store_process import StoreProcess, _start_worker, cpu_ticks

SAMPLE_S = 0.05
TICK_S = 1 / os.sysconf("SC_CLK_TCK")


def longest_quiet(pid: int, done: threading.Event, out: list[float]) -> None:
    """Until `done`: the longest time the process's CPU clock stood still, into `out`."""
    last, since, longest = cpu_ticks(pid), time.monotonic(), 0.0
    while not done.wait(SAMPLE_S):
        now, at = cpu_ticks(pid), time.monotonic()
        if now != last:
            last, since = now, at
        longest = max(longest, at - since)
    out.append(longest)


def worker_child(known: set[int]) -> int | None:
    """A store worker this process started that is not in `known`, if one is running."""
    for children in Path("/proc/self/task").glob("*/children"):
        for pid in map(int, children.read_text().split()):
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if pid not in known and b"ragd.index.store_worker" in argv:
                return pid
    return None


def measure_start(path: Path) -> dict[str, float]:
    """One worker's start on `path`, watched from its spawn (found within SAMPLE_S)."""
    done, quiet, found = threading.Event(), [0.0], [0]

    def watch() -> None:
        while not done.is_set() and (pid := worker_child(set())) is None:
            time.sleep(SAMPLE_S / 10)
        if pid is not None:
            found[0] = pid
            longest_quiet(pid, done, quiet)

    watcher = threading.Thread(target=watch)
    watcher.start()
    began = time.monotonic()
    worker, _ = _start_worker(path, again=False)
    wall = time.monotonic() - began
    cpu = (cpu_ticks(worker.pid) or 0) * TICK_S
    done.set()
    watcher.join()
    worker.close()
    return {
        "start_wall_s": round(wall, 2),
        "start_cpu_s": round(cpu, 2),
        "longest_quiet_s": round(quiet[-1], 2),
        "load": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--vectors", type=int, default=36_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument("--starts", type=int, default=0)
    args = parser.parse_args()
    folder = args.dir or Path(tempfile.mkdtemp(prefix="store-stall-"))
    store = StoreProcess(DataDir(folder).vectors)
    pid = store.pid
    assert pid is not None
    rng = np.random.default_rng(0)
    try:
        for start in range(store.count(), args.vectors, MAX_BATCH):
            rows = rng.standard_normal((MAX_BATCH, 384)).astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            ids = [f"c{start + i}#0" for i in range(MAX_BATCH)]
            scopes = [["r", f"r/f{(start + i) % 50}"] for i in range(MAX_BATCH)]
            done = threading.Event()
            quiet: list[float] = []
            watcher = threading.Thread(target=longest_quiet, args=(pid, done, quiet))
            watcher.start()
            cpu, began = cpu_ticks(pid) or 0, time.monotonic()
            store.upsert(ids, rows, scopes)
            wall = time.monotonic() - began
            done.set()
            watcher.join()
            line = {
                "before": start,
                "wall_s": round(wall, 2),
                "cpu_s": round(((cpu_ticks(pid) or 0) - cpu) * TICK_S, 2),
                "longest_quiet_s": round(quiet[0], 2),
                "load": round(os.getloadavg()[0], 1),
            }
            print(json.dumps(line), flush=True)
    finally:
        store.close()
    for _ in range(args.starts):
        print(json.dumps({"vectors": args.vectors, **measure_start(DataDir(folder).vectors)}))


if __name__ == "__main__":
    main()
