"""Rewrite constraints.txt: every package `make install` puts in .venv, pinned.

Usage: .venv/bin/python .ci/lock.py   (or `make lock`)

pip resolves `torch==2.13.0` and `.[dev]` afresh (`--dry-run --ignore-installed`: nothing
is installed, .venv is untouched, the newest releases the index offers win) and the
resolution is written out as `name==version` lines. torch is left out: the Makefile pins
it, and which build of 2.13.0 (CPU or CUDA, local version label) is the machine's index's
business. Run `make test` on the result before committing it: the file records what the
suite passed with, so that a release published upstream changes nothing until someone
locks, tests and commits it (watchdog 7.1.1 once failed a clean clone's CI that way).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "constraints.txt"
HEADER = """\
# Every package `make install` puts in .venv, at the version `make test` passed with.
# Written by `make lock` (.ci/lock.py), which re-resolves to the newest releases; run
# `make test` before committing a new one. torch is pinned in the Makefile and pyproject.
"""
LEFT_OUT = {"ragd", "torch"}


def resolve() -> dict[str, str]:
    command = [
        sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
        "--quiet", "--report", "-", "torch==2.13.0", "-e", f"{ROOT}[dev]",
    ]  # fmt: skip
    report = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
    found = (item["metadata"] for item in report["install"])
    # Names as pip compares them (PEP 503: case and runs of -_. ignored).
    pins = {canonicalize_name(m["name"]): m["version"] for m in found}
    return {name: version for name, version in pins.items() if name not in LEFT_OUT}


def main() -> int:
    pins = resolve()
    lines = [f"{name}=={version}\n" for name, version in sorted(pins.items())]
    TARGET.write_text(HEADER + "".join(lines), encoding="utf-8")
    print(f"{TARGET.name}: {len(lines)} packages pinned; now run `make test`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
