"""The rest of a file that keeps changing (`ingest/slow_files.py`), driven through the
queue's rules with a real WorkQueue: each version's parse is given up as it is taken up
(what ends a version set aside is all the rest depends on). Mtimes are set, not waited
for, and every rest is an hour long: nothing here depends on how fast the test runs."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ragd.ingest import slow_files
from ragd.ingest.planner import InFlight
from ragd.ingest.slow_files import SlowFiles
from ragd.ingest.work_queue import Job, WorkQueue

HOUR_S = 3600.0


class FinishedParse:
    """A parse ticket whose worker is done."""

    started = None
    progress = None

    def done(self) -> bool:
        return True

    def cancel(self) -> None:
        pass


class GivenUp:
    """The planner's answer for a finished parse: nothing to index (a cancelled parse)."""

    def parsed(self, file: InFlight) -> None:
        return None


class LogFile:
    """A log under one root and the slow-file rules for it."""

    def __init__(self, tmp_path: Path) -> None:
        self.root, self.path = str(tmp_path), tmp_path / "server.log"
        self.path.write_text("line\n")
        self.queue = WorkQueue(debounce_s=0)
        self.slow = SlowFiles(self.queue, writer=None, files=GivenUp())  # type: ignore[arg-type]
        self.versions = 0

    def in_flight(self, took_s: float) -> None:
        """A version of the log set aside, its plan begun `took_s` ago."""
        self.versions += 1
        started = time.monotonic() - took_s
        file = InFlight(self.root, "server.log", "server.log", 5, 1, f"v{self.versions}", started)
        file.ticket = FinishedParse()  # type: ignore[assignment]
        assert self.slow.set_aside(file)

    def written(self, seconds_ago: float) -> None:
        """The log's last write was `seconds_ago` (and a sync for it is queued)."""
        stamp = time.time() - seconds_ago
        os.utime(self.path, (stamp, stamp))
        self.queue.put(Job("sync", self.root, "server.log"))

    def supersede(self) -> bool:
        return self.slow.supersede(self.root, "server.log", self.path.stat().st_mtime_ns)

    def applied(self) -> None:
        """The version in flight is taken up and ended."""
        self.slow.advance()
        assert not self.slow

    def resting(self) -> None:
        """Bring the log to a rest of an hour: a version superseded, the next one taking
        an hour, written again while it was worked on."""
        self.in_flight(0)
        self.written(0)
        assert self.supersede()  # the first newer version cancels the one in flight
        self.in_flight(HOUR_S)
        self.written(0)
        assert not self.supersede()  # the next waits for it
        self.applied()
        assert self.slow.describe()[0]["stage"] == "changing"


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> LogFile:
    monkeypatch.setattr(slow_files, "QUIET_S", 100.0)  # far from any scheduling delay
    return LogFile(tmp_path)


def test_a_file_that_stopped_changing_ends_its_rest(log: LogFile) -> None:
    """Its last version waited out the whole rest (as long as a version took: ≈ 3 s of
    freshness lost for a 4 MB log) though nothing was being written any more."""
    log.resting()
    log.written(0)
    assert not log.supersede()  # still being written: it rests
    log.written(150)
    assert log.supersede()  # unwritten for longer than QUIET_S: the version is planned now


def test_a_quiet_that_was_a_pause_doubles_the_next(log: LogFile) -> None:
    """A file written every few seconds would look stopped after each write, and be
    planned back to back: once a quiet turns out to be a pause, the next must be twice
    as long."""
    log.resting()
    log.written(150)
    assert log.supersede()  # the writes seemed to have stopped
    log.in_flight(HOUR_S)
    log.written(0)  # they had not
    assert not log.supersede()
    log.applied()
    log.written(150)
    assert not log.supersede()  # 150 s of quiet is not enough any more
    log.written(250)
    assert log.supersede()
