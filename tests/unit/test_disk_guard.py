"""The disk guard's answer to a request's write once space has come back.

Seen in a full `make test` at load ≈ 8: test_full_disk's `rag ingest NEW`, sent just after
the filler file was removed, was refused with "disk full: 39.4 MB free … (the index needs
32.0 MB)". A background write (the writer, the floor keeper) was still waiting for room
and polls once a second; until its next poll the guard's `short` said full, and a
request's write was refused on that note instead of on the space itself.
"""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import pytest

from ragd.index.space import DiskGuard
from ragproto.errors import NoSpace


def test_a_request_writes_at_once_when_there_is_room_while_a_waiting_writer_has_not_seen_it(
    tmp_path: Path,
) -> None:
    guard = DiskGuard(tmp_path, threading.Event(), reserve=0)  # always room here
    guard.short = guard.describe()  # as a writer waiting for space leaves it until its poll
    with guard.answering():
        guard.wait_for_room()  # no NoSpace: there is room


def test_a_request_on_a_full_disk_is_refused_at_once(tmp_path: Path) -> None:
    guard = DiskGuard(tmp_path, threading.Event(), reserve=1 << 62)  # never room
    with guard.answering(), pytest.raises(NoSpace, match="disk full"):
        guard.wait_for_room()
    assert guard.short is None  # a refused request leaves the writers' state alone


def test_the_files_the_limit_left_out_are_counted_with_a_separator(tmp_path: Path) -> None:
    """`(1200 files not indexed)`: the only count of `rag status` without its separator."""
    guard = DiskGuard(tmp_path, threading.Event(), reserve=0)
    assert guard.reached_limit(OSError(errno.EFBIG, "File too large"))
    guard.left_out.add(("/r", "one.md"))
    assert str(guard.over_limit()).endswith(
        "start ragd under a larger limit to index the rest (1 file not indexed)"
    )
    guard.left_out.update(("/r", f"log{i}.md") for i in range(1_199))
    assert str(guard.over_limit()).endswith("(1,200 files not indexed)")
