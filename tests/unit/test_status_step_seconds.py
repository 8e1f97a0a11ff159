"""`rag status`'s seconds for a file set aside are those of the step it is on (or of its
wait, said as "queued"), not the time since it was picked up: newuser43 read two small
files "embedding 0/3 windows" after 243–303 s, all of it spent waiting behind a large
file's slices. Times are set, not waited for: nothing here depends on the test's speed."""

from __future__ import annotations

import time

from ragcli.render import _in_progress
from ragd.index.manifest import FileRow
from ragd.index.plan import FilePlan
from ragd.ingest.parse_pool import Ticket
from ragd.ingest.planner import InFlight, Staged
from ragd.ingest.slow_files import Deferred

PICKED_UP_S = 300.0  # the file was picked up five minutes ago


def picked_up(label: str = "init.lua") -> InFlight:
    started = time.monotonic() - PICKED_UP_S
    return InFlight("/r", label, label, 10, 1, "d" * 64, started)


def planned(file: InFlight, windows: int, staged_s_ago: float) -> Deferred:
    row = FileRow(file.root, file.relpath, file.size, file.mtime_ns, file.digest, ())
    item = Deferred(file, staged=Staged(FilePlan(row, []), file.label, file.started))
    item.missing = [f"w{i}" for i in range(windows)]
    item.staged_at = time.monotonic() - staged_s_ago
    return item


def test_a_planned_file_behind_another_is_queued_for_embedding_since_it_was_planned() -> None:
    said = planned(picked_up(), windows=3, staged_s_ago=20).describe()
    assert said["stage"] == "queued" and said["next"] == "embedding"
    assert 20 <= float(said["elapsed_s"]) < PICKED_UP_S  # type: ignore[arg-type]
    assert _in_progress(said).startswith("queued to embed 3 windows after another file")


def test_embedding_counts_from_its_first_slice() -> None:
    item = planned(picked_up(), windows=300, staged_s_ago=60)
    item.embedding_since, item.embedded = time.monotonic() - 7, 128
    said = item.describe()
    assert (said["stage"], said["done"], said["total"]) == ("embedding", 128, 300)
    assert 7 <= float(said["elapsed_s"]) < 60  # type: ignore[arg-type]


def test_parse_and_chunking_steps_count_from_their_own_start() -> None:
    file = picked_up()
    file.ticket = Ticket("init.lua", b"")
    queued = Deferred(file).describe()
    assert (queued["stage"], queued["next"]) == ("queued", "parsing")
    assert _in_progress(queued).startswith("queued for a parse worker (")
    file.ticket.started = time.monotonic() - 4
    parsing = Deferred(file).describe()
    assert parsing["stage"] == "parsing" and 4 <= float(parsing["elapsed_s"]) < 60  # type: ignore[arg-type]
    file.ticket, file.chunk_queued = None, time.monotonic() - 9
    waiting = Deferred(file).describe()
    assert (waiting["stage"], waiting["next"]) == ("queued", "chunking")
    assert 9 <= float(waiting["elapsed_s"]) < 60  # type: ignore[arg-type]
    file.chunking_since = time.monotonic() - 2
    chunking = Deferred(file).describe()
    assert chunking["stage"] == "chunking" and "next" not in chunking
    assert 2 <= float(chunking["elapsed_s"]) < 9  # type: ignore[arg-type]
