"""The timing constants a daemon waits out, named once, with a testing seam.

Each is a bound the daemon keeps in production (`DEFAULTS`; why each value is what it
is stays beside the code that uses it). The daemon tests wait several of them out, tens
of seconds a test, where the promise is what happens at the bound, not the bound's
value. So a process may be given other values through one environment variable,
a **testing seam**, not a setting (no settings key, no README row):

    RAGD_TEST_TIMINGS=read_stall_s=3,read_timeout_s=1.5

`load()` reads it once, at start (`ragd serve`, before anything is made), and says what is
wrong in one line (`TimingsError`: an unknown name, a value that is no number of seconds
in (0, MAX_S]); `current()` is what code reads at the point of use, so a module never keeps
a copy from its import. An override is logged once, at warning level, so a daemon run with
one says so in its log. Nothing sets the variable outside `tests/`.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass

ENV = "RAGD_TEST_TIMINGS"
MAX_S = 3600.0


@dataclass(frozen=True)
class Timings:
    # index/store_process.py: a search's read is stuck, and its worker killed, once it has
    # gone this long with the worker using no CPU time (docs/reliability.md).
    read_stall_s: float = 20.0
    # index/server_store.py: one search request to a ChromaDB server, and the reconnecting
    # thread's heartbeat (a query at 100k vectors takes milliseconds).
    read_timeout_s: float = 5.0
    # index/server_probe.py: start-up's and a search's heartbeat, connect and read.
    probe_timeout_s: float = 2.0
    # ingest/work_queue.py: a file written non-stop is synced at least this often (the cap
    # on its debounce).
    change_cap_s: float = 3.0


DEFAULTS = Timings()
NAMES = tuple(f.name for f in dataclasses.fields(Timings))


class TimingsError(ValueError):
    """The seam's variable is wrong; `str()` is the one line start-up prints."""


def parse(text: str) -> Timings:
    """`name=seconds,…` over DEFAULTS; TimingsError naming the first thing wrong."""
    values: dict[str, float] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, equals, number = (piece.strip() for piece in item.partition("="))
        if name not in NAMES:
            raise TimingsError(
                f"environment variable {ENV}: no timing is called {name!r} "
                f"(known: {', '.join(NAMES)})"
            )
        try:
            seconds = float(number) if equals else math.nan
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= MAX_S:  # nan fails too
            raise TimingsError(
                f"environment variable {ENV}: {name} must be a number of seconds greater "
                f"than 0 and at most {MAX_S:g}, got {item!r}"
            )
        values[name] = seconds
    return dataclasses.replace(DEFAULTS, **values)


_current: list[Timings] = []  # set once by `load` (or by the first `current`)


def load(environ: Mapping[str, str] | None = None) -> Timings:
    """This process's timings, from ENV (TimingsError when it is wrong); logs the ones it
    overrides. Called once at start; later calls return what the first one read."""
    if _current:
        return _current[0]
    env = os.environ if environ is None else environ
    timings = parse(env.get(ENV, ""))
    changed = {
        name: getattr(timings, name)
        for name in NAMES
        if getattr(timings, name) != getattr(DEFAULTS, name)
    }
    if changed:
        shown = ", ".join(f"{name}={s:g} s" for name, s in changed.items())
        logging.getLogger("ragd").warning("testing seam %s overrides timings: %s", ENV, shown)
    _current.append(timings)
    return timings


def current() -> Timings:
    """The timings in force: what `load` read (a process that never called it, the tools
    and the in-process tests, reads ENV now, once)."""
    return _current[0] if _current else load()
