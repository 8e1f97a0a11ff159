"""Test-only, found through PYTHONPATH (`tests/support/stopped_look.py` sets it): a `rag`
client whose look at a silent daemon (`ragcli.drop_probe.stopped_now`) can be held.

Python imports `sitecustomize` at start-up in every process; this one acts only where
RAGD_TEST_LOOK_ENTERED and RAGD_TEST_LOOK_RELEASE name two files (the test gives them to
the client alone): a look that finds the daemon stopped creates the first file, then
waits until the second exists (at most ten minutes) before the client reads what it saw.
A test can so continue the daemon between a client's two looks without timing them.
Once the second file exists, looks go on untouched. ragcli carries no hook for it.

Where RAGD_TEST_STOPPED_LOOK_S is set, the client looks after that many seconds of
silence instead of `ragcli.transport.STOPPED_LOOK_S` (15 s; read at each wait): the test
of a request in flight waits out the look, not its length.
"""

import os
import time

ENTERED_ENV = "RAGD_TEST_LOOK_ENTERED"
RELEASE_ENV = "RAGD_TEST_LOOK_RELEASE"
LOOK_ENV = "RAGD_TEST_STOPPED_LOOK_S"
MAX_HOLD_S = 600.0


def _held(look, entered, release):
    def held_look(address):
        seen = look(address)
        if seen is not None and not os.path.exists(release):
            open(entered, "a").close()
            end = time.monotonic() + MAX_HOLD_S
            while not os.path.exists(release) and time.monotonic() < end:
                time.sleep(0.02)
        return seen

    return held_look


def _install() -> None:
    entered, release = os.environ.get(ENTERED_ENV), os.environ.get(RELEASE_ENV)
    if entered and release:
        from ragcli import drop_probe  # before ragcli.transport imports the name from it

        drop_probe.stopped_now = _held(drop_probe.stopped_now, entered, release)
    look_s = os.environ.get(LOOK_ENV)
    if look_s:
        from ragcli import transport

        transport.STOPPED_LOOK_S = float(look_s)


_install()
