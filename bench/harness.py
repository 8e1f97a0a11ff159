"""A real, isolated `ragd serve` process for the benchmarks, plus timing helpers.

Isolation by construction: every path (data dir, socket, HOME, XDG dirs) lives in a temp
folder, no `RAG_*`/`ANTHROPIC_*` variable leaks in from the caller, and the daemon is
asked to die with the bench (PR_SET_PDEATHSIG) in case the bench itself is killed.
Waiting is polling with a deadline, never a fixed sleep.
"""

from __future__ import annotations

import functools
import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragd.core import parent_death
from ragd.core.proc_stat import CLOCK_TICKS, proc_stat
from ragd.harness import private_daemon
from ragd.harness.private_daemon import PrivateDaemon

BIN = Path(sys.executable).parent


class BenchError(RuntimeError):
    pass


# -- statistics --------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def summary(values: Sequence[float], scale: float = 1.0, digits: int = 1) -> dict[str, Any]:
    """n, median, p90, p99, min, max of `values` × `scale`, rounded."""
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "median": round(percentile(values, 50) * scale, digits),
        "p90": round(percentile(values, 90) * scale, digits),
        "p99": round(percentile(values, 99) * scale, digits),
        "min": round(min(values) * scale, digits),
        "max": round(max(values) * scale, digits),
    }


# A bench wait that runs out is a BenchError, with the reason in the message.
wait_for = functools.partial(private_daemon.wait_for, error=BenchError)


# -- CPU accounting ----------------------------------------------------------------------
def process_cpu_seconds(pid: int, children: bool = False) -> float:
    """utime + stime of a live process, from /proc/PID/stat; with `children`, cutime +
    cstime instead (the children it has reaped, e.g. the daemon's vector index probe)."""
    stat = proc_stat(pid)
    if stat is None:
        return 0.0
    return (stat.children_ticks if children else stat.cpu_ticks) / CLOCK_TICKS


def machine_cpu_seconds() -> tuple[float, float]:
    """(busy, steal) CPU seconds of the whole machine since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = values[:8]
    return (user + nice + system + irq + softirq) / CLOCK_TICKS, steal / CLOCK_TICKS


def own_cpu_seconds(pids: Sequence[int]) -> float:
    """This process (all threads, reaped children included) plus the given live ones."""
    t = os.times()
    mine = t.user + t.system + t.children_user + t.children_system
    return mine + sum(process_cpu_seconds(pid) for pid in pids)


class CpuMeter:
    """How many cores *other* processes kept busy while we measured (and VM steal)."""

    def __init__(self, pids: Callable[[], Sequence[int]] = list) -> None:
        self.pids = pids
        self.start()

    def start(self) -> None:
        self._wall = time.perf_counter()
        self._busy, self._steal = machine_cpu_seconds()
        self._ours = own_cpu_seconds(self.pids())

    def read(self) -> dict[str, float]:
        wall = max(1e-6, time.perf_counter() - self._wall)
        busy, steal = machine_cpu_seconds()
        ours = own_cpu_seconds(self.pids()) - self._ours
        others = max(0.0, busy - self._busy - ours)
        return {
            "other_cores": round(others / wall, 2),
            "steal_cores": round((steal - self._steal) / wall, 2),
            "our_cores": round(ours / wall, 2),
        }


def wait_quiet(
    pids: Callable[[], Sequence[int]], max_wait: float, threshold: float = 0.3
) -> dict[str, float]:
    """Wait (up to `max_wait` s) for a 1 s sample in which other processes use < threshold
    cores; returns the last sample and how long we waited."""
    started = time.perf_counter()
    while True:
        meter = CpuMeter(pids)
        time.sleep(1.0)
        sample = meter.read()
        waited = time.perf_counter() - started
        if sample["other_cores"] < threshold or waited >= max_wait:
            return sample | {"waited_s": round(waited, 1)}


# -- environment -------------------------------------------------------------------------
def isolated_env(tmp: Path) -> dict[str, str]:
    """The caller's environment minus ragd/Anthropic/systemd settings, homed in `tmp`."""
    env = private_daemon.isolated_env(tmp)
    # `auto` would measure both precisions in every fresh data dir, inside the timings;
    # section (g) reports both and what `auto` chooses on this machine.
    env["RAG_EMBED_PRECISION"] = "float32"
    return env


def code_env(tmp: Path, code: Path | None) -> dict[str, str]:
    """`isolated_env`, running the daemon from another source tree when `code` is given
    (CODE/daemon and CODE/shared first on PYTHONPATH: e.g. an export of an older commit)."""
    env = isolated_env(tmp)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code / "daemon"), str(code / "shared")])
    return env


# -- the daemon --------------------------------------------------------------------------
class BenchDaemon(PrivateDaemon):
    """`ragd serve ROOTS --data-dir tmp/NAME/data --socket ipc://tmp/run/NAME.sock`, one
    persistent connection, dying with the bench; `ready_s` is how long start-up took."""

    error = BenchError

    def __init__(self, tmp: Path, name: str, roots: Sequence[Path], env: dict[str, str]):
        home = tmp / name
        home.mkdir(parents=True, exist_ok=True)
        address = f"ipc://{tmp / 'run' / f'{name}.sock'}"
        super().__init__(roots, home / "data", address, env, home)
        self.name = name
        self.label = f"ragd ({name})"
        self.home = home
        self.address = address
        self.persistent = True
        self.started_at = 0.0
        self.ready_s = math.nan
        self.restarts = 0

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def preexec(self) -> Callable[[], None]:
        # SIGTERM when the thread that started it ends (the bench starts daemons from
        # its main thread, so: when the bench dies).
        return parent_death.preexec(signal.SIGTERM)

    def start(self, timeout: float = 180.0) -> BenchDaemon:
        """Start and wait until it answers; one retry if it died (e.g. a stray signal)."""
        for attempt in (1, 2):
            self.started_at = time.perf_counter()
            self.spawn()
            try:
                self.wait_ready(timeout)
                break
            except BenchError as exc:
                assert self.proc is not None
                if attempt == 2 or self.proc.poll() is None:
                    raise
                self.restarts += 1
                print(f"[bench] {exc}\n[bench] starting it once more", file=sys.stderr)
        self.ready_s = time.perf_counter() - self.started_at
        return self

    def cli_status(self) -> dict[str, Any]:
        """`rag status --json`, exactly as a user would run it."""
        done = subprocess.run(
            [str(BIN / "rag"), "status", "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        if done.returncode != 0:
            raise BenchError(f"rag status --json failed ({done.returncode}): {done.stderr}")
        return json.loads(done.stdout)

    def wait_idle(self, timeout: float = 600.0, interval: float = 0.05) -> dict[str, Any]:
        return super().wait_idle(timeout, interval)

    def found(self, token: str, source: str | None = None) -> dict[str, Any] | None:
        """A BM25 hit whose text really contains `token` (from `source`, if given)."""
        reply = self.call("search", query=token, top_k=5, mode="bm25")
        for result in reply["results"]:
            if token.lower() in result["text"].lower() and source in (None, result["source"]):
                return result
        return None

    def cpu_seconds(self) -> float:
        """User + system CPU time of the daemon so far (all its threads)."""
        return process_cpu_seconds(self.pid)

    def memory_kb(self) -> dict[str, int]:
        """VmRSS and VmHWM (peak) of the daemon process, in kB, from /proc."""
        values = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
        return values
