"""What every section of bench/run.py shares: paths, targets, the run's size, log lines."""

from __future__ import annotations

import json
import os
import platform
import secrets
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from harness import summary

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SAMPLE = REPO / "sample_corpus"
QUESTIONS = BENCH / "questions.jsonl"
SECTIONS = "abcdefghi"
TARGETS = {
    "a_median_ms": 66,
    "b_median_s": 1.0,
    "c_ratio": 0.85,
    "d": {"edit": 3, "rename": 0, "touch": 0},
}


@dataclass(frozen=True)
class Plan:
    files: int
    reps: int  # (b) edits per flavour
    cli_runs: int  # (a) runs of each command
    queries: int  # (f) hybrid searches
    g_rounds: int  # (g) timed passes per precision (median)
    seed: int

    @classmethod
    def build(cls, quick: bool, seed: int, files: int | None) -> Plan:
        if quick:
            return cls(files or 200, 10, 10, 200, 1, seed)
        return cls(files or 1000, 20, 40, 300, 3, seed)


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def ms(values: Sequence[float]) -> dict[str, Any]:
    return summary(values, scale=1000.0, digits=1)


def token() -> str:
    """A word no document contains, to tell when an edit became searchable."""
    return "qz" + secrets.token_hex(5)


def questions() -> list[str]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


def machine() -> dict[str, Any]:
    """CPU, memory and versions, printed at the top of the table."""
    cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
    model = next(
        (line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if "model name" in line),
        platform.processor() or "unknown",
    )
    flags = next((line for line in cpuinfo.splitlines() if line.startswith("flags")), "")
    mem_kb = next(
        (
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal:")
        ),
        0,
    )

    def version(dist: str) -> str:
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            return "absent"

    return {
        "cpu": model,
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "bf16": {flag: f" {flag}" in flags for flag in ("avx512_bf16", "amx_bf16")},
        "memory_gb": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "torch": version("torch"),
        "chromadb": version("chromadb"),
        "ragd": version("ragd"),
    }
