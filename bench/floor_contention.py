"""A user's search while the gate floor is being measured, with and without the
measurement giving way to it (query/in_flight.py).

    .venv/bin/python bench/floor_contention.py [FOLDER] [--searches N]

Indexes FOLDER (default: this repository's docs/ and sample_corpus/) in this process with
the daemon's own code, then times N searches, each after a random pause of 0–0.3 s (a
user's question arrives at any point of a measurement), three ways in one run: with the
index idle; while a thread measures the floor over and over and never gives way (before
in_flight.py); and while it measures through FloorKeeper's own `_give_way`, which starts
no bank question while a search runs. Prints the medians and 90th percentiles, and each
as a ratio of the idle figure measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.inproc import embedder  # noqa: E402

from ragd.harness.localindex import LocalIndex  # noqa: E402
from ragd.query.calibration import FloorKeeper, bank_gates  # noqa: E402
from ragd.query.offtopic_bank import OFFTOPIC_BANK  # noqa: E402

QUESTIONS = (
    "how does the daemon decide to refuse a question",
    "what happens when the disk fills up",
    "Can I bring my dog on the ferry?",
    "how is a document split into chunks",
    "where is the socket created",
    "what does the client print while it waits",
)


def timed_searches(local: LocalIndex, count: int, seed: int) -> list[float]:
    pick = random.Random(seed)
    out = []
    for i in range(count):
        time.sleep(pick.uniform(0.0, 0.3))
        started = time.perf_counter()
        local.retriever.search(QUESTIONS[i % len(QUESTIONS)], top_k=5)
        out.append(time.perf_counter() - started)
    return out


def during(local: LocalIndex, vectors, give_way: Callable[[], object], count: int) -> list[float]:  # type: ignore[no-untyped-def]
    """The searches while another thread measures the floor again and again."""
    stop = threading.Event()

    def measure() -> None:
        while not stop.is_set():
            bank_gates(local.retriever, vectors, stop.is_set, give_way)

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    try:
        return timed_searches(local, count, seed=1)
    finally:
        stop.set()
        thread.join()


def summary(times: list[float], idle: list[float]) -> dict[str, float]:
    median, p90 = statistics.median(times), statistics.quantiles(times, n=10)[-1]
    base_median, base_p90 = statistics.median(idle), statistics.quantiles(idle, n=10)[-1]
    return {
        "median_s": round(median, 4),
        "p90_s": round(p90, 4),
        "median_vs_idle": round(median / base_median, 2),
        "p90_vs_idle": round(p90 / base_p90, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--searches", type=int, default=60)
    args = parser.parse_args()
    model = embedder("float32")
    with tempfile.TemporaryDirectory(prefix="ragd-floor-contention-") as tmp:
        folder = args.folder
        if folder is None:
            folder = Path(tmp) / "corpus"
            shutil.copytree(ROOT / "docs", folder / "docs")
            shutil.copytree(ROOT / "sample_corpus", folder / "sample_corpus")
        local = LocalIndex(folder, Path(tmp) / "data", model)
        try:
            local.reindex()
            vectors = model.embed(list(OFFTOPIC_BANK), lane="index")
            keeper = FloorKeeper(
                local.retriever, model, local.stores.manifest, lambda: 0, lambda: False
            )
            timed_searches(local, 5, seed=0)  # warm caches
            idle = timed_searches(local, args.searches, seed=1)
            shared = during(local, vectors, lambda: None, args.searches)
            giving_way = during(local, vectors, keeper._give_way, args.searches)
            report = {
                "chunks": local.chunk_count(),
                "searches": args.searches,
                "idle": summary(idle, idle),
                "measuring, no giving way": summary(shared, idle),
                "measuring, giving way": summary(giving_way, idle),
                "bank questions held back": keeper.gave_way,
            }
        finally:
            local.close()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
