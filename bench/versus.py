"""Two checkouts of ragd index the same folder from nothing, interleaved, side by side.

    bench/versus.py FOLDER OLD_CHECKOUT NEW_CHECKOUT [--rounds N] [--out bench/out/versus.json]

Each checkout needs its own `.venv/bin/{ragd,rag}` (a worktree made by /work/wt/mkwt.sh, or
the same two files by hand for an older commit). Every run is a fresh `ragd serve FOLDER`
with a fresh data dir and a fresh `$XDG_CACHE_HOME` (so no cache learned by an earlier run
helps), `RAG_EMBED_PRECISION=float32` (so neither side spends its time choosing), polled
with that checkout's own `rag status --json` until the chunks stop growing and it is idle.
The rounds alternate old, new, old, new…, so a change in the machine's load falls on both.

Each checkout runs as its own processes, so the two may disagree on ragd's modules (this
script uses the bench's environment and messages only). Per run:
start → READY, READY → idle (wall), the daemon's CPU seconds (its threads, and its child
processes' whether still running or reaped), chunks and embeddings computed (the status),
vectors in the Chroma collection (counted after the daemon stopped), and how many cores
the rest of the machine kept busy meanwhile (CPU time is the robust number on a shared
machine; the wall figures follow the load).
"""

from __future__ import annotations

import argparse
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from common import say  # noqa: E402
from harness import isolated_env  # noqa: E402
from ragd.core.proc_stat import CLOCK_TICKS, proc_stat  # noqa: E402

POLL_S = 1.0  # the sampling interval of the status (each poll is one `rag` process)


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU of `root`, its reaped children, and its live descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = proc_stat(entry.name)
            if stat is not None:  # (None: it ended while we looked)
                parents[int(entry.name)] = stat.ppid
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        stat = proc_stat(pid)
        if stat is None:
            continue
        total += (stat.cpu_ticks + stat.children_ticks) / CLOCK_TICKS
        todo += [child for child, parent in parents.items() if parent == pid]
    return total


def machine_busy_seconds() -> float:
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / CLOCK_TICKS


def run_env(home: Path) -> dict[str, str]:
    """The bench's isolated environment (float32, homed in `home`) with its own socket."""
    return isolated_env(home) | {"RAG_SOCKET": f"ipc://{home / 'run' / 'ragd.sock'}"}


def status(checkout: Path, env: dict[str, str]) -> dict[str, Any] | None:
    done = subprocess.run(
        [str(checkout / ".venv/bin/rag"), "status", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return json.loads(done.stdout) if done.returncode == 0 else None


def count_vectors(data_dir: Path) -> int:
    """Vectors in the stopped daemon's Chroma collection (imported here: the bench only)."""
    import chromadb

    sqlite = next(data_dir.rglob("chroma.sqlite3"))
    client = chromadb.PersistentClient(path=str(sqlite.parent))
    return sum(c.count() for c in client.list_collections())


def poll_until_idle(
    proc: subprocess.Popen[bytes], checkout: Path, env: dict[str, str], files: int
) -> dict[str, Any]:
    """Times (from exec) of READY, of the last chunk count change, and of idle: all `files`
    indexed, or idle for 5 polls in a row (a file one version skips must not hang us)."""
    start = time.perf_counter()
    seen: dict[str, Any] = {"ready_s": None, "last_chunk_s": None}
    chunks, cpu_at_ready, deadline, idle = -1, 0.0, start + 7200, 0
    while time.perf_counter() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"ragd exited with {proc.returncode}")
        now_status = status(checkout, env)
        at = time.perf_counter() - start
        if now_status is not None and now_status["state"] != "starting":
            if seen["ready_s"] is None:
                seen["ready_s"], cpu_at_ready = at, tree_cpu_seconds(proc.pid)
                seen["chunks_at_ready"] = now_status["chunks"]
            if now_status["chunks"] != chunks:
                chunks, seen["last_chunk_s"] = now_status["chunks"], at
            idle = idle + 1 if now_status["state"] == "idle" and chunks > 0 else 0
            if idle and (now_status["files"] >= files or idle >= 5):
                cpu = tree_cpu_seconds(proc.pid)
                seen |= {"idle_s": at, "status": now_status, "cpu_s": cpu}
                return seen | {"cpu_at_ready_s": cpu_at_ready}
        time.sleep(POLL_S)  # the sampling interval, not a wait for a state
    raise RuntimeError("not idle within 2 h")


def rate(count: float, seconds: float) -> float:
    return round(count / seconds, 2) if seconds > 0 else 0.0  # 0: all done before READY


def one_run(checkout: Path, folder: Path, files: int, work: Path) -> dict[str, Any]:
    """A fresh `ragd serve folder` of `checkout`, polled to idle, stopped, counted."""
    home = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    env, data = run_env(home), home / "data-dir"
    busy0, wall0 = machine_busy_seconds(), time.perf_counter()
    load = Path("/proc/loadavg").read_text().split()[:3]
    with open(home / "ragd.log", "wb") as log:
        proc = subprocess.Popen(
            [str(checkout / ".venv/bin/ragd"), "serve", str(folder), "--data-dir", str(data)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            seen = poll_until_idle(proc, checkout, env, files)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=120)
    wall = time.perf_counter() - wall0
    others = (machine_busy_seconds() - busy0 - seen["cpu_s"]) / wall
    st = seen.pop("status")
    index_s = seen["last_chunk_s"] - seen["ready_s"]
    index_cpu = seen["cpu_s"] - seen["cpu_at_ready_s"]
    after_ready = st["chunks"] - seen["chunks_at_ready"]  # 0 unless it indexes before READY
    vectors = count_vectors(data)
    return seen | {
        "load_avg_at_start": load,
        "other_cores_busy": round(others, 2),
        "files": st["files"],
        "chunks": st["chunks"],
        "embeddings": st["embeddings"],
        "vectors": vectors,
        "vectors_per_chunk": round(vectors / st["chunks"], 2),
        "chunks_per_s": rate(after_ready, index_s),
        "windows_per_s": rate(st["embeddings"]["computed"], index_s),
        "chunks_per_cpu_s": rate(after_ready, index_cpu),
        "index_cpu_s": round(index_cpu, 1),
        "chunks_per_total_cpu_s": round(st["chunks"] / seen["cpu_s"], 2),
    }


def ratios(runs: dict[str, list[dict[str, Any]]]) -> dict[str, float | None]:
    """new / old of each metric's median over the rounds."""
    med = {k: {m: statistics.median(r[m] for r in v) for m in METRICS} for k, v in runs.items()}
    # None where the old side's figure is 0 (a folder so small it was indexed before READY).
    return {m: round(med["new"][m] / med["old"][m], 3) if med["old"][m] else None for m in METRICS}


METRICS = (
    "chunks_per_s",
    "windows_per_s",
    "chunks_per_cpu_s",
    "index_cpu_s",
    "cpu_s",
    "chunks_per_total_cpu_s",
    "vectors_per_chunk",
    "idle_s",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("old", type=Path, help="the older checkout (with .venv/bin/ragd)")
    parser.add_argument("new", type=Path, help="the newer checkout (with .venv/bin/ragd)")
    parser.add_argument("--rounds", type=int, default=2, help="old+new pairs, interleaved")
    parser.add_argument("--out", type=Path, default=BENCH / "out" / "versus.json")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    files = sum(1 for p in args.folder.rglob("*") if p.is_file())
    work = Path(tempfile.mkdtemp(prefix="versus-"))
    runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
    for round_no in range(args.rounds):
        for side in ("old", "new"):
            say(f"round {round_no + 1}: {side} ({getattr(args, side)})")
            runs[side].append(one_run(getattr(args, side), args.folder, files, work))
            say(json.dumps(runs[side][-1]))
            result = {"folder": str(args.folder), "runs": runs}
            args.out.write_text(json.dumps(result, indent=1))  # each run kept as it ends
    result["new_over_old"] = ratios(runs)
    args.out.write_text(json.dumps(result, indent=1))
    say(json.dumps(result["new_over_old"]))


if __name__ == "__main__":
    main()
