"""A file written again and again, faster than it is parsed (attack36).

A log or notes file appended to every few hundred milliseconds is synced at least every
3 s while the writes go on (the queue's cap on the debounce, `change_cap_s`). When its parse or its
chunking takes longer than that (a 4 MB log: ≈ 4 CPU s of chunking), every sync
cancelled the version in flight and started over: nothing of the file was indexed for
as long as the writes went on, and the CPU went on plans thrown away. Parse workers here
take PARSE_S on `slow-*.md` (`tests/support/slow_parse.py`), longer than the cap, so the
state under test comes from ordering, not from a stopwatch. The daemons here cap the
debounce at CAP_S instead of 3 s (ragd/core/timings.py's testing seam) and parse in
PARSE_S instead of the 5 s these tests first used: the same order (a sync every cap, each
finding the last one parsing), in less time waited out.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import Daemon, short_timings, wait_for
from tests.support.slow_parse import slow_parse_env

RESTING_LINE = "slow-log.md: keeps changing: its next version in"
CAP_S = 1.2  # the queue's cap on the debounce (`change_cap_s`; 3 s in production)
PARSE_S = 2  # past the cap: each sync while the writes go on finds it parsing
# Guards against a hang, not speed limits (as long as when PARSE_S was 5 s).
WAIT_S = 40.0
LAST_S = 60.0


def marker(n: int) -> str:
    """A word BM25 keeps whole for entry `n` (letters only: `logmarkbc`)."""
    letters = ""
    while True:
        n, digit = divmod(n, 26)
        letters = chr(ord("a") + digit) + letters
        if not n:
            return "logmark" + letters


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    """A daemon over one small note; the log is written once it is idle."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "seed.md").write_text("# Seed\n\nThe seed note is quick to parse.\n")
    env = slow_parse_env("slow-*.md", PARSE_S) | short_timings(change_cap_s=CAP_S)
    started = Daemon(tmp_path, [tmp_path / "notes"], env=env)
    started.start().wait_idle()
    yield started
    started.stop()


class Appender(threading.Thread):
    """Appends one entry every `period` seconds until stopped, as a logger does."""

    def __init__(self, path: Path, period: float) -> None:
        super().__init__(daemon=True)
        self.path, self.period = path, period
        self.written = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            with self.path.open("a") as out:
                out.write(f"Entry {self.written} says {marker(self.written)} arrived.\n\n")
            self.written += 1
            self.halt.wait(self.period)

    def stop(self) -> int:
        self.halt.set()
        self.join()
        return self.written


def test_a_file_written_faster_than_it_parses_is_indexed_while_the_writes_go_on(
    daemon: Daemon,
) -> None:
    log = daemon.roots[0] / "slow-log.md"
    log.write_text("# Harbour log\n\n")
    appender = Appender(log, 0.3)
    appender.start()
    try:
        # Every version holds the first entry: any version applied makes it searchable.
        wait_for(
            lambda: daemon.sources(marker(0)) == ["slow-log.md"],
            WAIT_S,
            "a version of the log indexed while it is still being written",
        )
    finally:  # (stopped only here: what was found was indexed while the writes went on)
        written = appender.stop()
    # Once the writes stop, the last version is indexed too.
    daemon.wait_searchable(marker(written - 1), "slow-log.md", timeout=WAIT_S)
    daemon.wait_idle()
    status = daemon.status()
    assert status["pending"] == 0 and status["files"] == 2


def _changing(d: Daemon, source: str) -> dict[str, Any] | None:
    progress: dict[str, Any] = d.status().get("progress") or {}
    return next(
        (
            item
            for item in progress.get("in_progress", [])
            if item["source"] == source and item["stage"] == "changing"
        ),
        None,
    )


def test_a_file_that_keeps_changing_waits_as_long_as_its_last_version_took(
    daemon: Daemon,
) -> None:
    """Plans back to back kept a core busy for as long as the writes went on (65 % of
    one for a 4 MB log, all of it for a 20 MB one): once a version of a file that keeps
    changing is applied, the next waits as long as that one took (here ≥ PARSE_S), and
    `rag status` says so."""
    log = daemon.roots[0] / "slow-log.md"
    log.write_text("# Harbour log\n\n")
    appender = Appender(log, 0.3)
    appender.start()
    try:
        item = wait_for(lambda: _changing(daemon, "slow-log.md"), WAIT_S, "the log to rest")
        assert daemon.sources(marker(0)) == ["slow-log.md"]  # a version was applied
        assert item["wait_s"] > 0
        shown = wait_for(
            lambda: (
                "slow-log.md: keeps changing: its next version in" in daemon.rag("status").stdout
            ),
            WAIT_S,
            "rag status to say the log keeps changing",
        )
        assert shown
    finally:
        written = appender.stop()
    daemon.wait_searchable(marker(written - 1), "slow-log.md", timeout=LAST_S)
    status = daemon.wait_idle()
    assert status["files"] == 2 and not _changing(daemon, "slow-log.md")
