"""How long the daemon stops answering while it writes vectors: the longest `rag status`
round-trip during a first index, as a ratio of the idle round-trip in the same run.

    .venv/bin/python bench/loop_stall.py [--files 500] [--sections 45] [--words 12] [--code DIR]

Writes a synthetic corpus (FILES markdown files of SECTIONS sections of WORDS words each:
one chunk and one vector per section, 22,500 vectors by default; short sections keep the
embedding's share of the run small), starts a daemon on an
empty root, times `status` round-trips while it is idle, then `rag ingest`s the corpus
and times `status` round-trips (10 ms apart) until the index is complete.

ChromaDB's embedded client holds the GIL for a whole upsert, so with the store in the
daemon's process every thread stood still for each write (the round-trip grows with the
index: review42). With the store in its own process (index/store_process.py) the loop
only waits for its share of the CPU. `--code DIR` runs the daemon from another source
tree (DIR/daemon and DIR/shared first on PYTHONPATH), e.g. an export of the commit
before the change, to measure both in one sitting:

    git archive 1377c48 daemon shared | tar -x -C /tmp/base
    .venv/bin/python bench/loop_stall.py --code /tmp/base
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import BenchDaemon, code_env, percentile  # noqa: E402

WORDS = (
    "pump valve gasket seal bearing shaft impeller casing flange bolt motor relay fuse "
    "breaker cable conduit sensor gauge meter filter strainer nozzle hose clamp bracket "
    "panel switch timer alarm beacon ladder hatch vent duct fan blower heater chiller "
    "boiler tank drum barrel crate pallet forklift hoist winch pulley chain sprocket gear"
).split()
IDLE_CALLS = 60
PAUSE_S = 0.01  # between busy calls: back to back, the bench's own loop took a core


def write_corpus(folder: Path, files: int, sections: int, words: int, seed: int = 0) -> None:
    """FILES notes of SECTIONS short sections, each section naming its own part number."""
    pick = random.Random(seed)
    for f in range(files):
        lines = [f"# Maintenance log {f}\n"]
        for s in range(sections):
            text = " ".join(pick.choice(WORDS) for _ in range(words))
            lines.append(f"## Part P-{f:04d}-{s:03d}\n\n{text}.\n")
        (folder / f"log{f:04d}.md").write_text("\n".join(lines))


def round_trip(daemon: BenchDaemon) -> tuple[float, dict]:  # type: ignore[type-arg]
    started = time.perf_counter()
    status = daemon.call("status", timeout=600.0)
    return time.perf_counter() - started, status


def measure(code: Path | None, files: int, sections: int, words: int) -> dict[str, object]:
    tmp = Path(tempfile.mkdtemp(prefix="ragd-loop-stall-"))
    empty, corpus = tmp / "empty", tmp / "corpus"
    empty.mkdir()
    corpus.mkdir()
    write_corpus(corpus, files, sections, words)
    daemon = BenchDaemon(tmp, "stall", [empty], code_env(tmp, code))
    daemon.start()
    try:
        daemon.wait_idle()
        idle = [round_trip(daemon)[0] for _ in range(IDLE_CALLS)]
        started = time.perf_counter()
        daemon.call("ingest", path=str(corpus), timeout=60.0)
        busy: list[float] = []
        while True:
            took, status = round_trip(daemon)
            busy.append(took)
            time.sleep(PAUSE_S)
            if status["state"] == "idle" and status["files"] == files:
                break
        indexed_s = time.perf_counter() - started
        chunks = status["chunks"]
    finally:
        daemon.stop()
    idle_ms = statistics.median(idle) * 1000
    return {
        "code": str(code) if code else "this tree",
        "files": files,
        "words_per_section": words,
        "chunks": chunks,
        "first_index_s": round(indexed_s, 1),
        "ready_s": round(daemon.ready_s, 2),
        "idle_median_ms": round(idle_ms, 2),
        "busy_calls": len(busy),
        "busy_median_ms": round(statistics.median(busy) * 1000, 1),
        "busy_p99_ms": round(percentile(busy, 99) * 1000, 1),
        "busy_max_ms": round(max(busy) * 1000, 1),
        "max_over_idle": round(max(busy) * 1000 / idle_ms, 1),
        "p99_over_idle": round(percentile(busy, 99) * 1000 / idle_ms, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--sections", type=int, default=45)
    parser.add_argument("--words", type=int, default=12, help="words per section")
    parser.add_argument("--code", type=Path, help="run the daemon from this source tree")
    args = parser.parse_args()
    print(json.dumps(measure(args.code, args.files, args.sections, args.words), indent=2))


if __name__ == "__main__":
    main()
