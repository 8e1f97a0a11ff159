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

Everything runs against real, isolated `ragd serve` processes (temp data dir, socket, HOME
and XDG dirs; no user config) that are always stopped at the end. Results go to
bench/out/results.json and a table on stdout; nothing is asserted.

Other work on the machine distorts wall-clock figures (two cores: torch's threads stall
when another process takes one). Before each section the bench waits up to --quiet-wait
seconds for other processes to go quiet, measures how many cores they used while it ran
(from /proc/stat minus our own processes) and prints that beside the figures; the ingest
ratio is also given by CPU time, which contention distorts much less.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import json
import os
import platform
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import corpus
from harness import (
    BIN,
    BenchDaemon,
    BenchError,
    CpuMeter,
    isolated_env,
    summary,
    wait_for,
    wait_quiet,
)

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SAMPLE = REPO / "sample_corpus"
QUESTIONS = BENCH / "questions.jsonl"
SECTIONS = "abcdefg"
POLL_S = 0.01  # between searches while waiting for a saved token (each embeds a query)
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


# -- the machine -------------------------------------------------------------------------
def machine() -> dict[str, Any]:
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


# -- helpers -----------------------------------------------------------------------------
def ms(values: Sequence[float]) -> dict[str, Any]:
    return summary(values, scale=1000.0, digits=1)


def run_process(argv: Sequence[str], env: dict[str, str], cwd: Path) -> float:
    """Wall time of one whole process (fork/exec to exit), output captured and discarded."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise BenchError(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return elapsed


def write(path: Path, text: str, atomic: bool) -> None:
    if atomic:  # what editors do: a temp file renamed over the original
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    else:
        path.write_text(text, encoding="utf-8")


def token() -> str:
    return "qz" + secrets.token_hex(5)


def questions() -> list[str]:
    lines = QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


# -- (a) ---------------------------------------------------------------------------------
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


# -- (b) ---------------------------------------------------------------------------------
def note_text(k: int, edit: int, marker: str) -> str:
    return (
        f"# Bench note {k}\n\n## Edit {edit}\n\n"
        f"This note was saved by the benchmark (edit {edit}). Its marker word is {marker}.\n"
    )


def time_to_searchable(
    daemon: BenchDaemon, path: Path, text: str, marker: str, atomic: bool
) -> float | None:
    started = time.perf_counter()
    write(path, text, atomic)
    deadline = started + 20.0
    while time.perf_counter() < deadline:
        if daemon.found(marker):
            return time.perf_counter() - started
        time.sleep(POLL_S)
    return None


def bench_freshness(daemon: BenchDaemon, root: Path, plan: Plan) -> dict[str, Any]:
    folder = root / "bench-edits"
    folder.mkdir()
    notes = [folder / f"note-{k}.md" for k in range(5)]
    markers = [token() for _ in notes]
    for k, (path, marker) in enumerate(zip(notes, markers, strict=True)):
        path.write_text(note_text(k, 0, marker), encoding="utf-8")
    for marker in markers:  # a new folder full of files: wait until all are in
        wait_for(lambda m=marker: daemon.found(m), 60, f"note with {marker}", 0.05)
    daemon.wait_idle(60)
    out: dict[str, Any] = {"target_median_s": TARGETS["b_median_s"]}
    for flavour, atomic in (("in_place_write", False), ("atomic_save", True)):
        say(f"(b) {plan.reps} × {flavour.replace('_', ' ')} → searchable")
        latencies, timeouts = [], 0
        for edit in range(1, plan.reps + 1):
            k = edit % len(notes)
            marker = token()
            took = time_to_searchable(daemon, notes[k], note_text(k, edit, marker), marker, atomic)
            if took is None:
                timeouts += 1
            else:
                latencies.append(took)
            daemon.wait_idle(30)
        out[flavour] = ms(latencies) | {"timeouts": timeouts}
    return out


# -- (d) ---------------------------------------------------------------------------------
def bench_incremental(daemon: BenchDaemon, root: Path, plan: Plan) -> dict[str, Any]:
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import parse

    folder = root / "bench-long"
    folder.mkdir()
    path = folder / "field-handbook.md"
    text, paragraphs = corpus.long_document(plan.seed)
    first = token()
    text = text.replace(paragraphs[0], f"{paragraphs[0]} The handbook marker is {first}.")
    path.write_bytes(text.encode())
    chunks_before = chunk_document(parse(path.name, text.encode()))
    say(f"(d) indexing a {len(chunks_before)}-chunk file, then edit / rename / touch")
    wait_for(lambda: daemon.found(first), 120, "the long file to be searchable", 0.05)
    daemon.wait_idle(60)

    def counters() -> dict[str, Any]:
        status = daemon.cli_status()  # `rag status --json`, as a user reads it
        return {"embeddings": status["embeddings"], "activity": status.get("activity", {})}

    def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
        emb = {k: after["embeddings"][k] - before["embeddings"][k] for k in ("computed", "reused")}
        unchanged = after["activity"].get("files_unchanged", 0)
        emb["files_unchanged"] = unchanged - before["activity"].get("files_unchanged", 0)
        return emb

    def unchanged() -> int:
        return int(daemon.status().get("activity", {}).get("files_unchanged", 0))

    out: dict[str, Any] = {"file_chunks": len(chunks_before), "targets": TARGETS["d"]}

    # one-paragraph edits: the middle of the file first (the headline figure), then
    # paragraphs spread over the file (one sentence appended to each, one edit per save)
    label = "bench-long/field-handbook.md"
    count = len(paragraphs)
    spots = [
        count // 2,
        *(count * k // 6 + 3 for k in range(6) if count * k // 6 + 3 != count // 2),
    ]
    edits = []
    for spot in spots:
        before = counters()
        marker = token()
        para = paragraphs[spot]
        edited = text.replace(para, f"{para} The field team added the marker {marker}.")
        path.write_bytes(edited.encode())
        wait_for(lambda m=marker: daemon.found(m, label), 30, "the edit to be searchable", 0.02)
        daemon.wait_idle(30)
        chunks_after = chunk_document(parse(path.name, edited.encode()))
        changed = len(set(chunks_after) - set(chunks_before))
        edits.append(delta(before, counters()) | {"paragraph": spot, "chunks_changed": changed})
        text, chunks_before = edited, chunks_after
    computed = [e["computed"] for e in edits]
    out["one_paragraph_edit"] = edits[0]
    out["edits_across_file"] = {
        "computed": computed,
        "median": sorted(computed)[len(computed) // 2],
        "max": max(computed),
        "detail": edits,
    }

    # a rename inside the root
    before = counters()
    renamed = folder / "field-handbook-2025.md"
    os.rename(path, renamed)
    new_label = "bench-long/field-handbook-2025.md"
    wait_for(lambda: daemon.found(first, new_label), 30, "the renamed file", 0.02)
    wait_for(lambda: daemon.found(first, label) is None, 30, "the old name to vanish", 0.02)
    daemon.wait_idle(30)
    out["rename"] = delta(before, counters())

    # touch (new mtime, same bytes) and a save that writes the same bytes again
    for name, act in (
        ("touch", lambda: os.utime(renamed)),
        ("same_bytes_save", lambda: renamed.write_bytes(renamed.read_bytes())),
    ):
        before = counters()
        seen = before["activity"].get("files_unchanged", 0)
        time.sleep(0.01)  # a strictly newer mtime_ns than the last write
        act()
        observed = True
        try:
            wait_for(lambda seen=seen: unchanged() > seen, 10, f"the {name} to be seen", 0.02)
        except BenchError:
            observed = False  # no event reached the indexer: nothing can have been computed
        daemon.wait_idle(30)
        out[name] = delta(before, counters()) | {"rechecked_by_daemon": observed}
    return out


# -- (c), (e), (f) -----------------------------------------------------------------------
def bench_ingest(daemon: BenchDaemon, folder: Path, files: int) -> dict[str, Any]:
    before = daemon.status()
    say(f"(c) ingesting {files} files (daemon ready in {daemon.ready_s:.1f} s)")
    meter = CpuMeter(lambda: [daemon.pid])
    cpu = daemon.cpu_seconds()
    started = time.perf_counter()
    daemon.call("ingest", path=str(folder))
    last_report = started
    while True:
        status = daemon.status()
        now = time.perf_counter()
        if status["state"] == "idle":
            break
        if now - last_report > 20:
            progress = status.get("progress") or {}
            say(f"    {progress.get('done', '?')}/{progress.get('total', '?')} files")
            last_report = now
        if now - started > 3600:
            raise BenchError("ingest did not finish within an hour")
        daemon.assert_alive()
        time.sleep(0.1)
    elapsed = time.perf_counter() - started
    cpu = daemon.cpu_seconds() - cpu
    computed = status["embeddings"]["computed"] - before["embeddings"]["computed"]
    return {
        "files": status["files"],
        "chunks": status["chunks"],
        "embeddings_computed": computed,
        "errors": len(status.get("errors") or []),
        "daemon_seconds": round(elapsed, 2),
        "daemon_cpu_seconds": round(cpu, 2),
        "daemon_ready_s": round(daemon.ready_s, 2),
        "background": meter.read(),
    }


def bench_search(daemon: BenchDaemon, plan: Plan) -> dict[str, Any]:
    say(f"(f) {plan.queries} hybrid searches over one persistent connection")
    asks = corpus.queries(plan.seed, plan.queries + 200)
    warm, timed, per_mode = asks[:20], asks[20 : 20 + plan.queries], asks[-100:]
    for query in warm:
        daemon.call("search", query=query, top_k=5)

    def timed_calls(op: str, items: Sequence[dict[str, Any]]) -> tuple[list[float], int]:
        latencies, empty = [], 0
        for args in items:
            started = time.perf_counter()
            reply = daemon.call(op, **args)
            latencies.append(time.perf_counter() - started)
            empty += op == "search" and not reply["results"]
        return latencies, empty

    hybrid, empty = timed_calls("search", [{"query": q, "top_k": 5} for q in timed])
    out: dict[str, Any] = {"hybrid": ms(hybrid) | {"empty_results": empty}}
    for mode in ("vector", "bm25"):
        latencies, _ = timed_calls(
            "search", [{"query": q, "top_k": 5, "mode": mode} for q in per_mode]
        )
        out[mode] = ms(latencies)
    pings, _ = timed_calls("ping", [{}] * 200)
    out["ping_round_trip"] = summary(pings, scale=1000.0, digits=3)
    return out


def memory(daemon: BenchDaemon) -> dict[str, float]:
    values = daemon.memory_kb()
    return {
        "rss_mb": round(values.get("VmRSS", 0) / 1024, 1),
        "peak_rss_mb": round(values.get("VmHWM", 0) / 1024, 1),
    }


# -- in-process parts of (c) and (g) -----------------------------------------------------
def raw_encode(result: dict[str, Any], folder: Path, precision: str) -> dict[str, Any]:
    import inproc

    say(f"(c) raw encode of the same windows in-process ({precision})")
    model = inproc.embedder(precision)
    paths = sorted(folder.rglob("*.md"))
    chunks = inproc.chunk_windows(folder, paths, model)
    windows = inproc.distinct_windows(chunks)
    pieces = inproc.word_pieces(model, windows)
    seconds, cpu = inproc.time_raw_encode(model, windows)
    import torch  # loaded by the model above

    daemon_s = result["daemon_seconds"]
    result.update(
        precision=precision,
        batch_size=model.batch_size,
        torch_threads=torch.get_num_threads(),
        omp_wait_policy=os.environ.get("OMP_WAIT_POLICY", "(default)"),
        chunks_in_process=len(chunks),
        windows=len(windows),
        word_pieces=pieces,
        raw_encode_seconds=round(seconds, 2),
        raw_encode_cpu_seconds=round(cpu, 2),
        daemon_chunks_per_s=round(result["chunks"] / daemon_s, 1),
        daemon_word_pieces_per_s=round(pieces / daemon_s),
        raw_chunks_per_s=round(len(chunks) / seconds, 1),
        raw_word_pieces_per_s=round(pieces / seconds),
        ratio=round(seconds / daemon_s, 3),
        ratio_cpu_time=round(cpu / result["daemon_cpu_seconds"], 3),
        target_ratio=TARGETS["c_ratio"],
    )
    return result


def bench_precision(plan: Plan, tmp: Path) -> dict[str, Any]:
    import numpy as np

    import inproc

    say("(g) float32 vs bfloat16: encode speed and dense-only hit@5")
    precisions = ("float32", "bfloat16")
    models = {p: inproc.embedder(p) for p in precisions}
    paths = sorted(p for p in SAMPLE.rglob("*") if p.is_file())
    sample = inproc.chunk_windows(SAMPLE, paths, models["float32"])
    handbook = tmp / "g-handbook" / "field-handbook.md"
    handbook.parent.mkdir(parents=True, exist_ok=True)
    handbook.write_text(corpus.long_document(plan.seed)[0], encoding="utf-8")
    long_chunks = inproc.chunk_windows(handbook.parent, [handbook], models["float32"])
    sets = {"sample_corpus": sample, "long_windows": long_chunks}
    out: dict[str, Any] = {"rounds": plan.g_rounds}
    vectors: dict[str, Any] = {}
    for name, chunks in sets.items():
        windows = inproc.flatten(chunks)
        pieces = inproc.word_pieces(models["float32"], windows)
        seconds: dict[str, list[float]] = {p: [] for p in precisions}
        for _ in range(plan.g_rounds):
            for precision in precisions:  # alternate, so drift hits both alike
                took, _cpu, vecs = inproc.time_encode(models[precision], windows)
                seconds[precision].append(took)
                if name == "sample_corpus":
                    vectors[precision] = vecs
        entry: dict[str, Any] = {
            "chunks": len(chunks),
            "windows": len(windows),
            "word_pieces_per_window": round(pieces / max(1, len(windows)), 1),
        }
        for precision in precisions:
            median = sorted(seconds[precision])[len(seconds[precision]) // 2]
            entry[precision] = {
                "seconds": round(median, 2),
                "chunks_per_s": round(len(chunks) / median, 1),
                "word_pieces_per_s": round(pieces / median),
            }
        entry["speedup_bf16"] = round(
            entry["bfloat16"]["chunks_per_s"] / entry["float32"]["chunks_per_s"], 2
        )
        out[name] = entry
    asks = inproc.load_questions(QUESTIONS)
    for precision in precisions:
        out[precision] = inproc.hit_at_k(models[precision], sample, vectors[precision], asks)
    agreement = np.sum(vectors["float32"] * vectors["bfloat16"], axis=1)
    out["cosine_f32_bf16"] = {
        "mean": round(float(agreement.mean()), 5),
        "min": round(float(agreement.min()), 5),
    }
    speedup = out["sample_corpus"]["speedup_bf16"]
    f32, bf16 = out["float32"]["hit_at_5"], out["bfloat16"]["hit_at_5"]
    faster, holds = speedup > 1.0, bf16 >= f32
    out["use_bf16_by_default"] = faster and holds
    verdict = (
        "use bfloat16 by default"
        if faster and holds
        else "keep float32 by default: bfloat16 is "
        + ("not faster here" if not faster else "faster but loses hit@5")
    )
    out["recommendation"] = (
        f"{verdict} ({speedup:.2f}× the float32 speed on these chunks, "
        f"hit@5 {bf16:.3f} vs {f32:.3f} in float32)"
    )
    return out


# -- orchestration -----------------------------------------------------------------------
class Bench:
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
        say(f"generating {self.plan.files} Markdown files (seed {self.plan.seed})")
        paths = corpus.write_corpus(folder, self.plan.files, self.plan.seed)
        sizes = [p.stat().st_size for p in paths]
        generated = {
            "files": len(paths),
            "bytes": sum(sizes),
            "min_bytes": min(sizes),
            "max_bytes": max(sizes),
            "seed": self.plan.seed,
        }
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
        if ingest:
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
        if "e" in self.results and "sample_daemon" in self.results:
            self.results["e"]["sample_daemon"] = self.results["sample_daemon"]
        return self.results

    def guard(self, name: str, phase: Callable[[], None], sections: str) -> None:
        """A phase that dies (the daemon would not start, …) marks its sections failed."""
        try:
            phase()
        except Exception as exc:
            traceback.print_exc()
            for section in sections:
                if section in self.only and section not in self.results:
                    self.results[section] = {"error": f"{name} phase: {exc}"}


# -- the table ---------------------------------------------------------------------------
class Table:
    def __init__(self, results: dict[str, Any], only: str) -> None:
        self.r = results
        self.only = only
        self.lines: list[str] = []

    def head(self, key: str, title: str, *columns: str) -> bool:
        """Start a section; False (after printing why) when it did not run or failed."""
        if key not in self.only:
            return False
        self.lines.append("")
        self.row(title, *columns, indent="")
        if "error" in self.r.get(key, {"error": "not measured"}):
            self.lines.append(f"    FAILED: {self.r.get(key, {}).get('error', 'not measured')}")
            return False
        return True

    def row(self, label: str, *cells: str, indent: str = "    ") -> None:
        width = 48 - len(indent)
        text = f"{indent}{label:<{width}}" + "".join(f" {c:>14}" for c in cells)
        self.lines.append(text.rstrip())

    def note(self, text: str) -> None:
        self.lines.append(f"    {text}")

    def background(self, *samples: tuple[str, dict[str, Any] | None]) -> None:
        parts = [
            f"{label}{s['other_cores']:.2f}"
            + (f" (+{s['steal_cores']:.2f} steal)" if s.get("steal_cores", 0) >= 0.05 else "")
            for label, s in samples
            if s
        ]
        if parts:
            self.note("other processes' load, cores: " + ", ".join(parts))


def max_background(results: dict[str, Any]) -> float:
    loads = [
        value.get("other_cores", 0.0)
        for section in results.values()
        if isinstance(section, dict)
        for key, value in section.items()
        if key.startswith("background") and isinstance(value, dict)
    ]
    return max(loads, default=0.0)


def ms_cells(stats: dict[str, Any], keys: Sequence[str] = ("median", "p90")) -> list[str]:
    if not stats.get("n"):
        return ["—"] * len(keys)
    return [f"{stats[k]:.1f} ms" for k in keys]


def s_cells(stats: dict[str, Any]) -> list[str]:
    if not stats.get("n"):
        return ["—", "—"]
    return [f"{stats[k] / 1000:.3f} s" for k in ("median", "p90")]


def render(report: dict[str, Any]) -> str:
    m, plan, r = report["machine"], report["plan"], report["results"]
    t = Table(r, report["only"])
    bf16 = "yes" if m["bf16"]["avx512_bf16"] or m["bf16"]["amx_bf16"] else "no"
    t.lines += [
        f"ragd benchmarks · {report['date']} · {m['cpu']} · {m['usable_cores']} cores "
        f"(bf16 matmul: {bf16}) · {m['memory_gb']} GB · Python {m['python']} · "
        f"torch {m['torch']} · ragd {m['ragd']}",
        f"{'quick' if report['quick'] else 'full'} run: {plan['files']} generated files, "
        f"{plan['cli_runs']} CLI runs, {plan['reps']} edits per kind of save, seed "
        f"{plan['seed']}; took {report['duration_s'] / 60:.1f} min",
    ]
    busiest = max_background(r)
    if busiest >= 0.3:
        t.lines.append(
            f"NOTE: other processes kept up to {busiest:.1f} of {m['usable_cores']} cores busy "
            "during this run (per section below): wall-clock figures are inflated by it."
        )
    if t.head("a", "(a) `rag search`, whole process (wall)", "median", "p90"):
        a = r["a"]
        t.row("python -c pass  (baseline)", *ms_cells(a["python_pass"]))
        t.row('python -c "import zmq"  (pyzmq alone)', *ms_cells(a["python_import_zmq"]))
        t.row("rag status  (client + round trip)", *ms_cells(a["rag_status"]))
        t.row("rag search QUESTION", *ms_cells(a["rag_search"]))
        t.row("rag ÷ python -c pass", f"{a['ratio_rag_to_python_pass']:.2f}×")
        t.row("rag search − rag status", f"{a['search_share_ms']:.1f} ms")
        t.row("target", f"≤ {a['target_median_ms']} ms")
        t.background(("", a.get("background")))
    if t.head("b", "(b) save → searchable", "median", "p90"):
        b = r["b"]
        for key, label in (("in_place_write", "in-place write"), ("atomic_save", "atomic save")):
            s = b[key]
            lost = f", {s['timeouts']} timed out" if s["timeouts"] else ""
            t.row(f"{label} (n={s['n']}{lost})", *s_cells(s))
        t.row("target", f"≤ {b['target_median_s']:.1f} s")
        t.background(("", b.get("background")))
    if t.head("c", "(c) ingest throughput", "chunks/s", "pieces/s"):
        c = r["c"]
        gen = c["corpus"]
        t.note(
            f"{gen['files']} files ({gen['min_bytes']}–{gen['max_bytes']} B, "
            f"{gen['bytes'] / 1e6:.1f} MB) → {c['chunks']} chunks, {c['windows']} windows, "
            f"{c['word_pieces']:,} word pieces; {c['precision']}, batch {c['batch_size']}"
        )
        t.row(
            f"ragd: ingest call → idle ({c['daemon_seconds']:.1f} s)",
            f"{c['daemon_chunks_per_s']:.1f}",
            f"{c['daemon_word_pieces_per_s']:,}",
        )
        t.row(
            f"raw SentenceTransformer.encode, same windows ({c['raw_encode_seconds']:.1f} s)",
            f"{c['raw_chunks_per_s']:.1f}",
            f"{c['raw_word_pieces_per_s']:,}",
        )
        t.row("ratio ragd ÷ raw (wall time)", f"{c['ratio'] * 100:.1f} %")
        t.row(
            "ratio by CPU time (raw ÷ daemon CPU s)",
            f"{c['ratio_cpu_time'] * 100:.1f} %",
            f"{c['raw_encode_cpu_seconds']:.0f}/{c['daemon_cpu_seconds']:.0f} s",
        )
        t.row("target", f"≥ {c['target_ratio'] * 100:.0f} %")
        t.note(
            f"check: embeddings computed {c['embeddings_computed']} = distinct windows "
            f"{c['windows']}; chunks {c['chunks']} (daemon) / {c['chunks_in_process']} "
            f"(in-process); {c['errors']} file errors"
        )
        t.background(("ingest ", c.get("background_during_ingest")), ("raw ", c.get("background")))
    if t.head("d", "(d) embeddings computed", "computed", "reused", "target"):
        d, goal = r["d"], r["d"]["targets"]
        edit = d["one_paragraph_edit"]
        t.row(
            f"one-paragraph edit ({d['file_chunks']}-chunk file)",
            str(edit["computed"]),
            str(edit["reused"]),
            f"≤ {goal['edit']}",
        )
        spread = d["edits_across_file"]
        t.row(
            f"{len(spread['computed'])} such edits across the file: median / max",
            f"{spread['median']} / {spread['max']}",
            "",
            f"≤ {goal['edit']}",
        )
        t.row("rename", str(d["rename"]["computed"]), str(d["rename"]["reused"]), "0")
        for key, label in (("touch", "touch (new mtime)"), ("same_bytes_save", "same-bytes save")):
            seen = "" if d[key]["rechecked_by_daemon"] else " [no re-check seen]"
            t.row(label + seen, str(d[key]["computed"]), str(d[key]["reused"]), "0")
        t.note(
            f"chunks changed per edit (chunker view): "
            f"{', '.join(str(e['chunks_changed']) for e in spread['detail'])}; "
            f"embeddings: {', '.join(map(str, spread['computed']))}"
        )
    if t.head("e", "(e) daemon memory", "VmRSS", "peak VmHWM"):
        e = r["e"]
        rows = [(f"after indexing {e['files']} files", e["after_indexing"])]
        if "after_searches" in e:
            rows.append(("after the (f) searches", e["after_searches"]))
        if "sample_daemon" in e:
            rows.append(
                (f"sample_corpus ({e['sample_daemon']['chunks']} chunks)", e["sample_daemon"])
            )
        for label, mem in rows:
            t.row(label, f"{mem['rss_mb']:.0f} MB", f"{mem['peak_rss_mb']:.0f} MB")
    if t.head("f", "(f) search round trip, persistent conn.", "p50", "p90", "p99"):
        f = r["f"]
        keys = ("median", "p90", "p99")
        t.row(f"hybrid (n={f['hybrid']['n']})", *ms_cells(f["hybrid"], keys))
        for mode in ("vector", "bm25"):
            t.row(f"{mode} only (n={f[mode]['n']})", *ms_cells(f[mode], keys))
        ping = f["ping_round_trip"]
        t.row(f"ping: IPC + loop (n={ping['n']})", *(f"{ping[k]:.2f} ms" for k in keys))
        t.background(("", f.get("background")))
    if t.head("g", "(g) float32 vs bfloat16", "float32", "bfloat16", "bf16 ÷ f32"):
        g = r["g"]
        for key, label in (("sample_corpus", "sample_corpus"), ("long_windows", "long windows")):
            e = g[key]
            t.row(
                f"{label}: {e['chunks']} chunks, {e['word_pieces_per_window']:.0f} pieces/window",
                f"{e['float32']['chunks_per_s']:.1f}/s",
                f"{e['bfloat16']['chunks_per_s']:.1f}/s",
                f"{e['speedup_bf16']:.2f}×",
            )
        f32, b16 = g["float32"], g["bfloat16"]
        t.row(
            f"hit@5, dense only ({f32['questions']} answerable)",
            f"{f32['hit_at_5']:.3f}",
            f"{b16['hit_at_5']:.3f}",
        )
        cos = g["cosine_f32_bf16"]
        t.row("cosine bf16 vs f32 (mean / min)", f"{cos['mean']:.4f}", f"{cos['min']:.4f}")
        t.background(("", g.get("background")))
        t.note(f"→ {g['recommendation']}")
    return "\n".join(t.lines)


# -- main --------------------------------------------------------------------------------
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
