"""Test-only, found through PYTHONPATH (`tests/support/slow_parse.py` sets it): a parse
worker that is slow on purpose.

Python imports `sitecustomize` at start-up in every process; this one acts only in a
parse worker (`python -m ragd.ingest.parse_child`, started by `ragd.ingest.parse_pool`)
whose environment has RAGD_TEST_SLOW_PARSE="GLOB=SECONDS": there, parsing a file whose
name matches GLOB first sleeps SECONDS. The daemon, the client and every other process
are left alone, and the daemon carries no hook for it, except under RAGD_TEST_LISTED_LAST=
GLOB: there os.walk lists the names matching GLOB after the others of their folder, so a
test whose slow parses would take every parse worker if they came first does not depend
on the order the file system lists a folder in (a tmpfs lists the newest first, ext4 in
the order of its name hashes).
"""

import fnmatch
import os
import sys
import time

RULE_ENV = "RAGD_TEST_SLOW_PARSE"
LAST_ENV = "RAGD_TEST_LISTED_LAST"
WORKER = ["-m", "ragd.ingest.parse_child"]


def _slowed(parse, pattern, seconds):
    def slow_parse(name, *args, **kwargs):
        if fnmatch.fnmatchcase(os.path.basename(name), pattern):
            time.sleep(seconds)
        return parse(name, *args, **kwargs)

    return slow_parse


def _listed_last(walk, pattern):
    def walk_matches_last(*args, **kwargs):
        for dirpath, dirnames, filenames in walk(*args, **kwargs):
            # sorted by the match alone (stable: the others keep the disk's order)
            filenames.sort(key=lambda name: fnmatch.fnmatchcase(os.fsdecode(name), pattern))
            yield dirpath, dirnames, filenames  # the same `dirnames`: pruning still works

    return walk_matches_last


def _install() -> None:
    pattern, _, seconds = os.environ.get(RULE_ENV, "").rpartition("=")
    if not pattern:
        return
    if sys.orig_argv[1:3] != WORKER:
        if last := os.environ.get(LAST_ENV):
            os.walk = _listed_last(os.walk, last)
        return
    from ragd.ingest import loaders  # light: the format modules load on first use

    # The worker looks `parse` up in `loaders` for every request, so this is what it calls.
    loaders.parse = _slowed(loaders.parse, pattern, float(seconds))


_install()
