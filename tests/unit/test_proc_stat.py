"""/proc/PID/stat read after the last ")": a command name with spaces and ")" in it does
not shift the fields (one reader for the door, the instance check, the store's watch and
start-up's clock)."""

from __future__ import annotations

import os
import subprocess
import sys

from ragd.core.proc_stat import proc_stat


def test_a_process_named_with_spaces_and_brackets_reads_its_own_fields() -> None:
    # A process may set its name to anything (prctl PR_SET_NAME): here "a ) b (c".
    code = (
        "import ctypes, sys, time\n"
        "ctypes.CDLL(None).prctl(15, b'a ) b (c', 0, 0, 0)\n"
        "print('named', flush=True); sys.stdin.readline()\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "named\n"
        with open(f"/proc/{child.pid}/comm") as comm:
            assert comm.read().strip() == "a ) b (c"
        stat = proc_stat(child.pid)
        assert stat is not None
        assert stat.ppid == os.getpid() and stat.state in ("S", "R")
        assert stat.start_ticks > 0 and stat.cpu_ticks >= 0
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(10)
    assert proc_stat(child.pid) is None  # gone, and reaped


def test_its_own_line() -> None:
    mine = proc_stat()
    assert mine is not None and mine.ppid == os.getppid() and mine.state == "R"
