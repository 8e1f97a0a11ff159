"""Human sizes read sensibly at every scale (fix23, item 4): a 2 KB file over a 1 KB
cap was shown as "too large (0.0 MB, cap 0.000999451 MB)" in `rag status`."""

from __future__ import annotations

import os
import stat
from typing import Any, cast

import pytest

from ragcli import render
from ragd.ingest.planner import FileRules, Planner
from ragproto.sizes import counted, human_size, size_over_cap

KB, MB, GB = 1024, 1024**2, 1024**3


@pytest.mark.parametrize(
    ("n_bytes", "shown"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (1023, "1,023 bytes"),
        (KB, "1 KB"),
        (1536, "1.5 KB"),
        (10 * KB - 1, "10 KB"),
        (200 * KB, "200 KB"),
        (MB - 1, "1 MB"),
        (MB, "1 MB"),
        (int(2.5 * MB), "2.5 MB"),
        (20 * MB, "20 MB"),
        (50 * MB, "50 MB"),
        (3 * GB + 300 * MB, "3.3 GB"),
        (5000 * GB, "4.9 TB"),
    ],
)
def test_each_size_in_the_unit_that_suits_it(n_bytes: int, shown: str) -> None:
    assert human_size(n_bytes) == shown


def test_no_size_reads_zero_unless_it_is() -> None:
    for n_bytes in [1, 2, 10, 100, 1000, 1100, 10_000, 100_000, 10**6, 10**9, 10**12]:
        text = human_size(n_bytes)
        assert not text.startswith("0"), text


def test_a_size_over_its_cap_never_reads_as_the_cap() -> None:
    assert size_over_cap(2 * KB, int(0.001 * MB)) == "2 KB, cap 1 KB"
    assert size_over_cap(50 * MB, 20 * MB) == "50 MB, cap 20 MB"
    assert size_over_cap(1049, 1048) == "1,049 bytes, cap 1,048 bytes"
    assert size_over_cap(int(1.04 * MB), MB) == "1,090,519 bytes, cap 1,048,576 bytes"


def test_a_small_file_over_a_small_cap_is_told_in_kb() -> None:
    """What `rag status` and `rag ingest` print for it (the skip reason)."""
    planner = Planner(cast(Any, None), rules=lambda: FileRules(max_file_bytes=int(0.001 * MB)))
    # (a stat carries its mtime in nanoseconds too, which the reason's record keeps)
    st = os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 2 * KB, 0, 0, 0), {"st_mtime_ns": 0})
    assert planner.too_large(2 * KB, st).reason == "too large (2 KB, cap 1 KB)"


def test_the_progress_of_a_small_ingest_is_told_in_kb() -> None:
    progress = {"done": 1, "total": 3, "bytes_done": 2 * KB, "bytes_total": 10 * KB}
    assert render.progress_line(progress | {"chunks_per_s": 4.0}) == (
        "1/3 files, 2 KB of 10 KB, 4.0 chunks/s"
    )


def test_a_count_reads_with_its_noun() -> None:
    # `rag status` said "1 files" and the ready line "1 root(s)" (newuser36)
    assert counted(1, "file") == "1 file"
    assert counted(0, "chunk") == "0 chunks"
    assert counted(1200, "root") == "1,200 roots"


def test_ingest_says_one_file_as_one() -> None:
    from ragcli import render

    data = {"files": 1, "chunks": 1, "roots": [{"name": "notes", "files": 1, "chunks": 1}]}
    assert render.root_summary(data, "notes") == "indexed notes: 1 file, 1 chunk (0 skipped)"
