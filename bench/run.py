"""ragd benchmarks: every figure next to its baseline, measured in one run on this machine.

    .venv/bin/python bench/run.py            # full run (1,000 generated files), ≈ 7–9 min
    .venv/bin/python bench/run.py --quick    # 200 files, 10 repetitions
    .venv/bin/python bench/run.py --only a,f # selected sections

Sections
    (a) `rag search` whole-process wall time vs `python -c pass`, `python -c "import zmq"`
        (what the client paid before it spoke ZMTP itself) and `rag status` (no search)
    (b) save → searchable latency (in-place write and editor-style atomic save)
    (c) ingest throughput of a generated corpus vs the raw encode rate on the same windows
    (d) embeddings computed for a one-paragraph edit, a rename, a touch, a same-bytes save
    (e) daemon memory (VmRSS, VmHWM) after indexing
    (f) search latency inside the daemon over a persistent ZeroMQ connection
    (g) float32 vs bfloat16: encode speed and dense-only hit@5 on bench/questions.jsonl
    (h) first index: encoding sample_corpus's text once (and a CLI agent's way) against
        ragd from a fresh data dir and cache dir, and restarted, until settled (CPU, wall)
    (i) start → READY on sample_corpus's existing data dir, 5 restarts, phase by phase

Everything runs against real, isolated `ragd serve` processes (temp data dir, socket, HOME
and XDG dirs; no user config) that are always stopped at the end. Results go to
bench/out/results.json and a table on stdout; nothing is asserted.

Other work on the machine distorts wall-clock figures (two cores: torch's threads stall
when another process takes one). Before each section the bench waits up to --quiet-wait
seconds for other processes to go quiet, measures how many cores they used while it ran
(from /proc/stat minus our own processes) and prints that beside the figures; the ingest
ratio is also given by CPU time, which contention distorts much less.

Layout: this file parses the arguments and runs the phases (class Bench); each section's
measurement lives in bench/sections/, the table in bench/report.py, what they share (paths,
targets, Plan, say, ms, machine) in bench/common.py, the daemon and CPU meters in
bench/harness.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from common import BENCH, SAMPLE, SECTIONS, Plan, machine, say
from harness import BenchDaemon, CpuMeter, isolated_env, wait_quiet
from report import render
from sections.cli import bench_cli
from sections.first_index import bench_first_index
from sections.freshness import bench_freshness
from sections.incremental import bench_incremental
from sections.ingest import bench_ingest, generate, raw_encode
from sections.memory import memory
from sections.precision import bench_precision
from sections.search import bench_search
from sections.start import bench_start


class Bench:
    """The phases: (a), (b), (d) share a daemon on sample_corpus; (c), (e), (f) one that
    ingests the generated corpus; (g) runs in-process. Every section is timed after the
    machine went quiet, with the load other processes put on it recorded beside it."""

    def __init__(self, plan: Plan, only: str, tmp: Path, quiet_wait: float) -> None:
        self.plan = plan
        self.only = only
        self.tmp = tmp
        self.quiet_wait = quiet_wait
        self.env = isolated_env(tmp)
        self.results: dict[str, Any] = {}
        self.daemons: list[BenchDaemon] = []

    def pids(self) -> list[int]:
        return [d.pid for d in self.daemons if d.proc is not None and d.proc.poll() is None]

    def quiet(self, what: str) -> dict[str, float]:
        """Give other work on the machine a chance to finish before timing anything."""
        sample = wait_quiet(self.pids, self.quiet_wait)
        if sample["other_cores"] >= 0.3:
            say(
                f"    other processes keep {sample['other_cores']:.1f} cores busy; "
                f"timing {what} anyway"
            )
        return sample

    def section(self, name: str, fn: Callable[[], dict[str, Any]]) -> None:
        """Run one measurement; a failure is recorded and the others still run."""
        if name not in self.only:
            return
        before = self.quiet(f"({name})")
        meter = CpuMeter(self.pids)
        try:
            value = fn()
        except Exception as exc:
            traceback.print_exc()
            self.results[name] = {"error": f"{type(exc).__name__}: {exc}"}
            return
        value.setdefault("background", meter.read())
        value["background"]["waited_for_quiet_s"] = before["waited_s"]
        self.results[name] = value

    def daemon(self, name: str, roots: Sequence[Path]) -> BenchDaemon:
        daemon = BenchDaemon(self.tmp, name, roots, self.env)
        self.daemons.append(daemon)
        return daemon

    def sample_phase(self) -> None:
        root = self.tmp / "sample"
        shutil.copytree(SAMPLE, root)
        daemon = self.daemon("sample", [root])
        try:
            say("starting ragd on a copy of sample_corpus")
            daemon.start()
            status = daemon.wait_idle(300)
            self.results["sample_daemon"] = {
                "files": status["files"],
                "chunks": status["chunks"],
                "ready_s": round(daemon.ready_s, 2),
                "restarts": daemon.restarts,
                **memory(daemon),
            }
            self.section("a", lambda: bench_cli(daemon, self.plan))
            self.section("b", lambda: bench_freshness(daemon, root, self.plan))
            self.section("d", lambda: bench_incremental(daemon, root, self.plan))
        except Exception:
            print(daemon.log_tail(), file=sys.stderr)
            raise
        finally:
            daemon.stop()

    def corpus_phase(self) -> None:
        folder = self.tmp / "generated" / "fenwold"
        paths, generated = generate(folder, self.plan)
        daemon = self.daemon("corpus", [])
        ingest: dict[str, Any] = {}
        precision = "auto"
        try:
            say("starting ragd with no roots")
            daemon.start()
            daemon.wait_idle(60)
            waited = self.quiet("the ingest")["waited_s"]
            ingest = bench_ingest(daemon, folder, len(paths)) | {"corpus": generated}
            ingest["background"]["waited_for_quiet_s"] = waited
            ingest["restarts"] = daemon.restarts
            precision = daemon.call("stats")["embedding"]["precision"]
            memory_after = {"after_indexing": memory(daemon), "files": ingest["files"]}
            self.section("f", lambda: bench_search(daemon, self.plan))
            memory_after["after_searches"] = memory(daemon)
            self.section("e", lambda: memory_after)
        except Exception:
            print(daemon.log_tail(), file=sys.stderr)
            raise
        finally:
            daemon.stop()
        if ingest:  # the raw encode runs with the daemon stopped: nothing competes with it
            during_ingest = ingest.pop("background")
            self.section("c", lambda: raw_encode(ingest, folder, precision))
            if "c" in self.results and "error" not in self.results["c"]:
                self.results["c"]["background_during_ingest"] = during_ingest

    def run(self) -> dict[str, Any]:
        if set(self.only) & set("cg"):
            # Load the in-process side (ragd's chunker and windows) now, next to the
            # daemons' start, so both run the same code; a broken import shows up now.
            try:
                importlib.import_module("inproc")
            except Exception:
                traceback.print_exc()
                say("could not import the in-process side; (c) and (g) will retry later")
        if set(self.only) & set("abd"):
            self.guard("sample", self.sample_phase, "abd")
        if set(self.only) & set("cef"):
            self.guard("corpus", self.corpus_phase, "cef")
        self.section("g", lambda: bench_precision(self.plan, self.tmp))
        self.section("h", self.first_index)
        self.section("i", lambda: bench_start(self.tmp, SAMPLE, self.env))
        if "e" in self.results and "sample_daemon" in self.results:
            self.results["e"]["sample_daemon"] = self.results["sample_daemon"]
        return self.results

    def first_index(self) -> dict[str, Any]:
        folder = self.tmp / "first-index" / "sample_corpus"
        shutil.copytree(SAMPLE, folder)
        return bench_first_index(self.tmp, folder, self.env)

    def guard(self, name: str, phase: Callable[[], None], sections: str) -> None:
        """A phase that dies (the daemon would not start, …) marks its sections failed."""
        try:
            phase()
        except Exception as exc:
            traceback.print_exc()
            for section in sections:
                if section in self.only and section not in self.results:
                    self.results[section] = {"error": f"{name} phase: {exc}"}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="200 files, 10 repetitions")
    parser.add_argument("--only", default=",".join(SECTIONS), metavar="a,b,…")
    parser.add_argument("--files", type=int, default=None, help="generated corpus size")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "results.json")
    parser.add_argument("--keep", action="store_true", help="keep the temp folder")
    parser.add_argument(
        "--quiet-wait",
        type=float,
        default=30.0,
        metavar="S",
        help="before each section, wait up to S s for other processes to go quiet",
    )
    args = parser.parse_args(argv)
    only = "".join(sorted({s.strip() for s in args.only.split(",") if s.strip()}))
    unknown = set(only) - set(SECTIONS)
    if unknown or not only:
        parser.error(f"--only takes sections from {','.join(SECTIONS)}")
    args.only = only
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    plan = Plan.build(args.quick, args.seed, args.files)
    tmp = Path(tempfile.mkdtemp(prefix="ragd-bench-"))
    os.environ.update(isolated_env(tmp))  # the in-process model reads no user config either
    started = time.perf_counter()
    date = dt.datetime.now().astimezone().isoformat(timespec="seconds")
    say(f"temp folder {tmp}; sections {','.join(args.only)}")
    try:
        results = Bench(plan, args.only, tmp, args.quiet_wait).run()
    finally:
        if args.keep:
            say(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    report = {
        "date": date,
        "machine": machine(),
        "quick": args.quick,
        "only": args.only,
        "plan": asdict(plan),
        "duration_s": round(time.perf_counter() - started, 1),
        "results": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(render(report))
    print(f"\nresults: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
