"""(i) start → READY on an existing data dir, with a warm page cache, phase by phase.

One daemon indexes the folder and stops; then it is restarted `restarts` times on that data
dir (the files it reads are in the page cache from the previous start). Each start is timed
from exec to the daemon's own "ready" debug line (the kernel's process start time against
its clock) and, as a user sees it, from the bench's spawn to `status` answering past
"starting". The daemon logs every start-up phase at DEBUG with its wall and its CPU time
(all threads); the bench adds the CPU of its children (the vector index probe) at READY.

    .venv/bin/python bench/sections/start.py [FOLDER] [RESTARTS]   # this section alone
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from common import SAMPLE, say  # noqa: E402
from harness import BenchDaemon, isolated_env, process_cpu_seconds  # noqa: E402

TARGET_READY_S = 10.0  # issue 20: start → READY ≤ 10 s, warm page cache, existing data dir
_PHASE = re.compile(r"start-up: (.+?) took ([0-9.]+) s \(([0-9.]+) CPU s")
_EXEC = re.compile(r"start-up: ([0-9.]+) s \(([0-9.]+) CPU s\) from exec to listening")
_READY = re.compile(r"start-up: ready ([0-9.]+) s \(([0-9.]+) CPU s\) after exec")


def phases(log: str) -> dict[str, Any]:
    """The start-up debug lines of one start: exec → listening, each phase, READY."""
    exec_line, ready_line = _EXEC.search(log), _READY.search(log)
    if exec_line is None or ready_line is None:
        raise RuntimeError("the daemon logged no start-up timings (is RAG_LOG_LEVEL DEBUG?)")
    steps = {"imports, settings, socket": (float(exec_line[1]), float(exec_line[2]))}
    for name, wall, cpu in _PHASE.findall(log):
        steps[name] = (float(wall), float(cpu))
    return {"steps": steps, "ready": (float(ready_line[1]), float(ready_line[2]))}


def one_start(daemon: BenchDaemon) -> dict[str, Any]:
    daemon.log_path.write_text("")
    daemon.start(600)
    children = process_cpu_seconds(daemon.pid, children=True)
    daemon.wait_idle(600)
    daemon.stop()
    timings = phases(daemon.log())
    wall, cpu = timings["ready"]
    return {
        "ready_after_exec_s": wall,
        "cpu_to_ready_s": cpu,
        "children_cpu_to_ready_s": children,
        "status_ready_s": round(daemon.ready_s, 2),
        "steps": timings["steps"],
    }


def median_steps(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    names = runs[0]["steps"]
    return {
        name: {
            "wall_s": round(statistics.median(r["steps"][name][0] for r in runs), 2),
            "cpu_s": round(statistics.median(r["steps"][name][1] for r in runs), 2),
        }
        for name in names
        if all(name in r["steps"] for r in runs)
    }


def bench_start(tmp: Path, folder: Path, env: dict[str, str], restarts: int = 5) -> dict[str, Any]:
    daemon = BenchDaemon(tmp, "start", [folder], env | {"RAG_LOG_LEVEL": "DEBUG"})
    say(f"(i) indexing {folder.name} once, then {restarts} restarts on that data dir")
    daemon.start(600)
    built = daemon.wait_idle(900)
    daemon.stop()
    runs = [one_start(daemon) for _ in range(restarts)]

    def median(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 2)

    return {
        "folder": folder.name,
        "files": built["files"],
        "chunks": built["chunks"],
        "restarts": restarts,
        "ready_after_exec_s": median("ready_after_exec_s"),
        "cpu_to_ready_s": median("cpu_to_ready_s"),
        "children_cpu_to_ready_s": median("children_cpu_to_ready_s"),
        "status_ready_s": median("status_ready_s"),
        "steps": median_steps(runs),
        "runs": runs,
        "target_ready_s": TARGET_READY_S,
    }


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else SAMPLE
    restarts = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory(prefix="ragd-start-") as name:
        tmp = Path(name)
        result = bench_start(tmp, folder.resolve(), isolated_env(tmp), restarts)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
