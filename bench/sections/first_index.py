"""(h) the first index against encoding the text once, in one run on one folder.

    (a)  baseline: a process that loads MiniLM and encodes the folder's whole text once,
         in pieces of ≤ 254 word pieces (the least work that loses no text)
    (a′) a CLI agent's way: chunks of 2,000 characters truncated at 256 word pieces
    (b)  ragd from a fresh data dir and a fresh cache dir (so `embed_precision = "auto"`
         decides as on a new machine) until idle with the gate floor learned and the
         precision settled
    (c)  ragd restarted on that data dir, until the same

CPU is what each process and its children used (getrusage of reaped children around
each run: the daemon's parse workers and probes included); wall is start → settled.
Targets (issue 20): (b)/(a) ≤ 1.3 and (c)/(a) ≤ 1.0 in CPU time.

    .venv/bin/python bench/sections/first_index.py sample_corpus   # this section alone
    .venv/bin/python bench/sections/first_index.py sample_corpus 3 # + 3 more (a), (c) pairs
    .venv/bin/python bench/sections/first_index.py FOLDER 0 float32  # ragd held to float32

The third argument sets ragd's `embed_precision` (default `auto`). `float32` is what a
machine without native bfloat16 runs (auto chooses it at once there, with no measurement),
so on a machine that has it, `float32` shows the figures such a machine would get: the
baselines (a), (a′) run in float32 either way.

With a number of `rounds`, (a) and (c) then run that many times more, one after the other,
so that (c)/(a) is compared on a shared machine within moments of each other.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from common import say  # noqa: E402
from harness import BenchDaemon, isolated_env, wait_for  # noqa: E402
from ragd.index.precision_task import MEASURING  # noqa: E402

TARGETS = {"b_over_a_cpu": 1.3, "c_over_a_cpu": 1.0}


def extracted_texts(folder: Path) -> list[str]:
    """Every document's text as ragd's own parsers extract it (outside any timing)."""
    from ragd.ingest.document import SkipFile
    from ragd.ingest.loaders import parse

    texts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        try:
            doc = parse(path.name, path.read_bytes())
        except SkipFile:
            continue
        texts.append(doc.text or "\n\n".join(text for _, text in doc.pages))
    return texts


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(run: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall s, CPU s of the children reaped meanwhile, run's value)."""
    cpu, wall = children_cpu(), time.perf_counter()
    value = run()
    return time.perf_counter() - wall, children_cpu() - cpu, value


def baseline(mode: str, texts_file: Path, env: dict[str, str]) -> dict[str, Any]:
    command = [sys.executable, str(BENCH / "first_index_baseline.py"), mode, str(texts_file)]

    def run() -> dict[str, Any]:
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    wall, cpu, value = timed(run)
    return value | {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def settled(daemon: BenchDaemon) -> dict[str, Any]:
    """Idle, the floor learned for the index as it is, the precision decided."""

    def check() -> dict[str, Any] | None:
        daemon.assert_alive()
        status = daemon.status()
        if status["state"] != "idle" or not (status.get("floor") or {}).get("current"):
            return None
        if daemon.call("stats")["embedding"]["precision_reason"] == MEASURING:
            return None
        return status

    return wait_for(check, 1800, "ragd to settle", 0.1)  # type: ignore[no-any-return]


def ragd_run(daemon: BenchDaemon) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        daemon.start(600)
        ready = daemon.ready_s
        status = settled(daemon)
        stats = daemon.call("stats")
        return {
            "ready_s": round(ready, 2),
            "files": status["files"],
            "chunks": status["chunks"],
            "embeddings_computed": status["embeddings"]["computed"],
            "vectors": stats.get("vectors"),
            "precision": stats["embedding"]["precision"],
            "precision_reason": stats["embedding"]["precision_reason"],
        }

    wall, _, value = timed(run)  # to settled; the CPU is read once it has been reaped
    cpu_before = children_cpu()
    daemon.stop()
    cpu = children_cpu() - cpu_before
    return value | {"wall_s": round(wall, 2), "shutdown_cpu_s": round(cpu, 2)}


def bench_first_index(
    tmp: Path, folder: Path, env: dict[str, str], rounds: int = 0, precision: str = "auto"
) -> dict[str, Any]:
    texts = extracted_texts(folder)
    texts_file = tmp / "first-index-texts.json"
    texts_file.write_text(json.dumps(texts))
    say(f"(h) baseline: encode the whole text of {folder.name} once ({len(texts)} documents)")
    a = baseline("whole", texts_file, env)
    say("(h) the CLI agent's way: chunks truncated at 256 word pieces")
    a_agent = baseline("agent", texts_file, env)
    fresh = env | {
        "XDG_CACHE_HOME": str(tmp / "first-index-cache"),
        "RAG_EMBED_PRECISION": precision,
    }
    daemon = BenchDaemon(tmp, "first-index", [folder], fresh)
    runs = {}
    for name, what in (("b", "from a fresh data dir and cache"), ("c", "restarted")):
        say(f"(h) ragd {what}, until idle with the floor learned")
        cpu = children_cpu()
        runs[name] = ragd_run(daemon)
        runs[name]["cpu_s"] = round(children_cpu() - cpu, 2)
    return {
        "folder": folder.name,
        "a": a,
        "a_agent": a_agent,
        **runs,
        "b_over_a_cpu": round(runs["b"]["cpu_s"] / a["cpu_s"], 2),
        "c_over_a_cpu": round(runs["c"]["cpu_s"] / a["cpu_s"], 2),
        "b_over_a_wall": round(runs["b"]["wall_s"] / a["wall_s"], 2),
        "c_over_a_wall": round(runs["c"]["wall_s"] / a["wall_s"], 2),
        "agent_over_a_cpu": round(a_agent["cpu_s"] / a["cpu_s"], 2),
        "targets": TARGETS,
        "rounds": [restart_round(daemon, texts_file, env) for _ in range(rounds)],
    }


def restart_round(daemon: BenchDaemon, texts_file: Path, env: dict[str, str]) -> dict[str, Any]:
    """(a) then (c) once more, back to back, with the load average they ran under."""
    a = baseline("whole", texts_file, env)
    cpu = children_cpu()
    c = ragd_run(daemon)
    c_cpu = children_cpu() - cpu
    return {
        "a_cpu_s": a["cpu_s"],
        "c_cpu_s": round(c_cpu, 2),
        "c_over_a_cpu": round(c_cpu / a["cpu_s"], 2),
        "c_wall_s": c["wall_s"],
        "load_average": round(os.getloadavg()[0], 1),
    }


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else BENCH.parent / "sample_corpus")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    precision = sys.argv[3] if len(sys.argv) > 3 else "auto"
    with tempfile.TemporaryDirectory(prefix="ragd-first-index-") as name:
        tmp = Path(name)
        result = bench_first_index(tmp, folder.resolve(), isolated_env(tmp), rounds, precision)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
