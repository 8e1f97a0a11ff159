"""Test-only, found through PYTHONPATH (`tests/support/slow_parse.py` sets it): a parse
worker that is slow on purpose.

Python imports `sitecustomize` at start-up in every process; this one acts only in a
parse worker (`python -m ragd.ingest.parse_child`, started by `ragd.ingest.parse_pool`)
whose environment has RAGD_TEST_SLOW_PARSE="GLOB=SECONDS": there, parsing a file whose
name matches GLOB first sleeps SECONDS. The daemon, the client and every other process
are left alone, and the daemon carries no hook for it.
"""

import fnmatch
import os
import sys
import time

RULE_ENV = "RAGD_TEST_SLOW_PARSE"
WORKER = ["-m", "ragd.ingest.parse_child"]


def _slowed(parse, pattern, seconds):
    def slow_parse(name, *args, **kwargs):
        if fnmatch.fnmatchcase(os.path.basename(name), pattern):
            time.sleep(seconds)
        return parse(name, *args, **kwargs)

    return slow_parse


def _install() -> None:
    pattern, _, seconds = os.environ.get(RULE_ENV, "").rpartition("=")
    if not pattern or sys.orig_argv[1:3] != WORKER:
        return
    from ragd.ingest import loaders  # light: the format modules load on first use

    # The worker looks `parse` up in `loaders` for every request, so this is what it calls.
    loaders.parse = _slowed(loaders.parse, pattern, float(seconds))


_install()
