"""A deterministically slow parse for tests, without a hook in the daemon.

`slow_parse_env("slow-*.md", 3600)` is the environment (PYTHONPATH and the rule) under
which a parse worker sleeps that long before parsing a matching name; see
`slow_parse_hook/sitecustomize.py`. Give it to a daemon (`Daemon(..., env=...)`), or set
it in the test's own environment for a `ParsePool` (its workers inherit it).
"""

from __future__ import annotations

import os
from pathlib import Path

HOOK_DIR = Path(__file__).parent / "slow_parse_hook"
RULE_ENV = "RAGD_TEST_SLOW_PARSE"  # read by the hook
LAST_ENV = "RAGD_TEST_LISTED_LAST"  # so is this


def slow_parse_env(glob: str, seconds: float, listed_last: bool = False) -> dict[str, str]:
    """With `listed_last` the daemon's folder walk also lists the matching names after
    the others of their folder, whatever order the file system lists them in."""
    path = [str(HOOK_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = {"PYTHONPATH": os.pathsep.join(path), RULE_ENV: f"{glob}={seconds:g}"}
    return env | ({LAST_ENV: glob} if listed_last else {})
