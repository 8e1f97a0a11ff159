"""(a) `rag search` whole-process wall time vs `python -c pass`, `python -c "import zmq"`
(what the client paid before it spoke ZMTP itself) and `rag status` (no search)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from common import TARGETS, Plan, ms, questions, say
from harness import BIN, BenchDaemon, BenchError


def run_process(argv: Sequence[str], env: dict[str, str], cwd: Path) -> float:
    """Wall time of one whole process (fork/exec to exit), output captured and discarded."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise BenchError(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return elapsed


def bench_cli(daemon: BenchDaemon, plan: Plan) -> dict[str, Any]:
    say(f"(a) {plan.cli_runs} × rag search / rag status / python -c pass / import zmq")
    python = sys.executable
    asks = questions()
    commands: dict[str, Callable[[int], list[str]]] = {
        "python_pass": lambda i: [python, "-c", "pass"],
        "python_import_zmq": lambda i: [python, "-c", "import zmq"],
        "rag_status": lambda i: [str(BIN / "rag"), "status"],
        "rag_search": lambda i: [str(BIN / "rag"), "search", asks[i % len(asks)]],
    }
    times: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for i in range(-2, plan.cli_runs):  # two untimed warm-up rounds
        shift = i % len(names)  # rotate so no command always runs first
        order = names[shift:] + names[:shift]
        for name in order:
            elapsed = run_process(commands[name](i), daemon.env, daemon.home)
            if i >= 0:
                times[name].append(elapsed)
    out: dict[str, Any] = {name: ms(values) for name, values in times.items()}
    base = out["python_pass"]["median"]
    zmq = out["python_import_zmq"]["median"]
    rag = out["rag_search"]["median"]
    out["ratio_rag_to_python_pass"] = round(rag / base, 2)
    out["ratio_rag_to_import_zmq"] = round(rag / zmq, 2)
    out["search_share_ms"] = round(rag - out["rag_status"]["median"], 1)
    out["target_median_ms"] = TARGETS["a_median_ms"]
    out["interpreter"] = python
    return out
