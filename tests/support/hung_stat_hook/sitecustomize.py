"""Test-only, found through PYTHONPATH (`tests/support/hung_stat.py` sets it): a daemon
whose file system hangs on some names, as a stalled network mount does.

Python imports `sitecustomize` at start-up in every process; this one acts only in
`ragd serve` when RAGD_TEST_HUNG_STAT="GLOB" is set: there `os.stat` and `os.lstat` (and
so `os.path.exists`, `lexists`, `Path.stat`…) of a path whose name matches GLOB first
add a line to the file named by RAGD_TEST_HUNG_ENTERED (the calls are numbered by it:
the first is 1), then wait until the file named by RAGD_TEST_HUNG_RELEASE exists (at most
ten minutes) — empty, it lets every call go on; holding a number N, only calls 1 to N, so
a test can let one stat through and see whether another follows. With
RAGD_TEST_HUNG_OPEN=1, `os.open` of such a name hangs too (a read on the mount). With
RAGD_TEST_HUNG_FOR_S=S, a call waits at most S seconds, then goes on: a slow mount rather
than a stalled one. The daemon carries no hook for it.
"""

import fnmatch
import os
import sys
import time

GLOB_ENV = "RAGD_TEST_HUNG_STAT"
ENTERED_ENV = "RAGD_TEST_HUNG_ENTERED"
RELEASE_ENV = "RAGD_TEST_HUNG_RELEASE"
OPEN_ENV = "RAGD_TEST_HUNG_OPEN"
FOR_ENV = "RAGD_TEST_HUNG_FOR_S"
MAX_HANG_S = 600.0


def _released(path, number):
    try:
        with open(path) as handle:
            allowed = handle.read().strip()
    except OSError:
        return False
    return not allowed or number <= int(allowed)


def _enter(entered, name):
    with open(entered, "a") as handle:
        handle.write(name + "\n")
    with open(entered) as handle:
        return sum(1 for _ in handle)


def _hanging(call, pattern, entered, release, hang_s):
    def hung(path, *args, **kwargs):
        try:
            name = os.path.basename(os.fsdecode(os.fspath(path)))
        except TypeError:  # a descriptor: no name to match
            name = ""
        if name and fnmatch.fnmatchcase(name, pattern):
            number = _enter(entered, name)
            end = time.monotonic() + hang_s
            while not _released(release, number) and time.monotonic() < end:
                time.sleep(0.02)
        return call(path, *args, **kwargs)

    return hung


def _install() -> None:
    pattern = os.environ.get(GLOB_ENV, "")
    if not pattern or "serve" not in sys.orig_argv:
        return
    entered, release = os.environ[ENTERED_ENV], os.environ[RELEASE_ENV]
    hang_s = float(os.environ.get(FOR_ENV) or MAX_HANG_S)
    os.stat = _hanging(os.stat, pattern, entered, release, hang_s)
    os.lstat = _hanging(os.lstat, pattern, entered, release, hang_s)
    if os.environ.get(OPEN_ENV) == "1":
        os.open = _hanging(os.open, pattern, entered, release, hang_s)


_install()
