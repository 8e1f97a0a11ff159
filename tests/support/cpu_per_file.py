"""CPU seconds per test file, of the pytest process and every process it started.

Name a folder for its records (tests/conftest.py then loads this plugin), run any tests,
then print them:

    RAGD_CPU_PER_FILE=/tmp/cpu make test
    .venv/bin/python -m tests.support.cpu_per_file /tmp/cpu

Why a process tree and not `getrusage`: the tests' daemons are forked by a fork server
(tests/support/fork_server.py) that lives for the whole session, so the test process
never waits for them and RUSAGE_CHILDREN does not count them. A process's
/proc/PID/stat holds its own CPU time and that of the children it has reaped, so the sum
over the test process and its live descendants only grows, by what any of them used;
the difference at two file boundaries is that file's CPU, set-up and teardown included
(a file's module fixtures are torn down before the next file's first test starts). What
escapes: a process that exits without being reaped by a process of the tree (a
double-forked orphan). Daemon starts are counted where `PrivateDaemon.spawn` is called.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from ragd.core.proc_stat import CLOCK_TICKS, proc_stat


def tree_cpu_seconds(root: int) -> float:
    """CPU of `root`, its live descendants and every child they have reaped."""
    parent_of: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        stat = proc_stat(entry.name)
        if stat is None:
            continue
        parent_of[int(entry.name)] = stat.ppid
        times[int(entry.name)] = (stat.cpu_ticks + stat.children_ticks) / CLOCK_TICKS
    children: dict[int, list[int]] = defaultdict(list)
    for pid, parent in parent_of.items():
        children[parent].append(pid)
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0.0)
        todo.extend(children.get(pid, ()))
    return total


class _Recorder:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.current: str | None = None
        self.cpu = 0.0
        self.wall = 0.0
        self.starts: dict[str, int] = defaultdict(int)
        self.test: str | None = None  # the test running, for its starts
        self.test_starts: dict[str, int] = defaultdict(int)
        self.records: list[dict[str, Any]] = []

    def boundary(self, next_file: str | None) -> None:
        if next_file == self.current:
            return
        cpu, wall = tree_cpu_seconds(os.getpid()), time.monotonic()
        if self.current is not None:
            self.records.append(
                {
                    "file": self.current,
                    "cpu": round(cpu - self.cpu, 2),
                    "wall": round(wall - self.wall, 2),
                    "daemon_starts": self.starts.pop(self.current, 0),
                    "starts_by_test": dict(self.test_starts),
                    "load1": os.getloadavg()[0],
                }
            )
            self.test_starts.clear()
            self.save()  # after each file: a run stopped half-way keeps what it measured
        self.current, self.cpu, self.wall = next_file, cpu, wall

    def save(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        out = self.folder / f"{self.name}-{os.getpid()}.json"
        out.write_text(json.dumps(self.records, indent=1) + "\n")


_RECORDER: list[_Recorder] = []


def pytest_configure(config: pytest.Config) -> None:
    folder = os.environ.get("RAGD_CPU_PER_FILE")
    # Under xdist the controller sees every worker's tests interleaved: only workers record.
    distributed = getattr(config.option, "numprocesses", None) and not hasattr(
        config, "workerinput"
    )
    if not folder or _RECORDER or distributed:
        return
    recorder = _Recorder(Path(folder))
    _RECORDER.append(recorder)
    from ragd.harness.private_daemon import PrivateDaemon

    spawn = PrivateDaemon.spawn

    def counted(self: PrivateDaemon) -> None:
        if recorder.current is not None:
            recorder.starts[recorder.current] += 1
        if recorder.test is not None:
            recorder.test_starts[recorder.test.split("::", 1)[1]] += 1
        spawn(self)

    PrivateDaemon.spawn = counted  # type: ignore[method-assign]


def pytest_runtest_logstart(nodeid: str, location: tuple[str, int | None, str]) -> None:
    if _RECORDER:
        _RECORDER[0].boundary(nodeid.split("::", 1)[0])
        _RECORDER[0].test = nodeid


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _RECORDER:
        _RECORDER[0].boundary(None)


def main(argv: list[str]) -> int:
    """Print the records of a folder, most CPU first, with the totals."""
    rows: list[dict[str, Any]] = []
    for path in Path(argv[0]).glob("*.json"):
        rows.extend(json.loads(path.read_text()))
    rows.sort(key=lambda row: -row["cpu"])
    for row in rows:
        print(
            f"{row['cpu']:7.1f} CPU s {row['wall']:7.1f} s "
            f"{row['daemon_starts']:3d} starts  {row['file']}"
        )
    cpu = sum(row["cpu"] for row in rows)
    wall = sum(row["wall"] for row in rows)
    starts = sum(row["daemon_starts"] for row in rows)
    print(f"{len(rows)} files: {cpu:.0f} CPU s, {wall:.0f} s, {starts} daemon starts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
