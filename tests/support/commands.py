"""A command run to its end with its output captured as text: what most tests that start
a process (`rag`, `ragd`, `git`, a probe script in a fresh interpreter) need, spelled once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

Arg = str | os.PathLike[str]


def run(
    argv: Sequence[Arg],
    env: Mapping[str, str] | None = None,
    *,
    cwd: Path | None = None,
    input: str | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """`argv` run with `env` (None: this process's), its stdout and stderr as text. Never
    raises on a failing exit: each test asserts the exit status it expects, with stderr."""
    return subprocess.run(
        list(argv),
        env=None if env is None else dict(env),
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def run_python(
    code: str,
    *args: Arg,
    env: Mapping[str, str] | None = None,
    timeout: float = 120.0,
) -> subprocess.CompletedProcess[str]:
    """`code` run by a fresh interpreter (this venv's) with `args` as its sys.argv[1:]: for
    what one process cannot show about itself (what an import loads, a FIFO's open)."""
    return run([sys.executable, "-c", code, *args], env, timeout=timeout)
