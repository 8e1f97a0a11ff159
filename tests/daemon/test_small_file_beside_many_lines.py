"""A small file saved while files of many short lines are chunked is searchable before
their chunking ends, against a real daemon (review71).

A file of 255 KB of one-letter lines is under LARGE_TEXT_CHARS in characters, so it was
chunked on the index writer, where windowing it (one tokenizer call per line) held every
other file's apply for ≈ 3.7 CPU s each. Now such a file's `chunking_cost` sends it to the
planner thread. The order is the assertion: each large file is seen `chunking` in
`rag status`, and the small note saved after them is found while one of them is still in
progress (before, none was ever seen chunking: the writer held them, and the note, itself).

`make test` saves one such file beside the note: the file seen `chunking`, then the note
found while it is still in progress, fails on the writer chunking it as before (the wait
for `chunking` times out). The opt-in `stress` variant (`make test-stress`) saves three."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.ingest.planner import LARGE_TEXT_CHARS
from tests.support.daemon import Daemon, in_progress, wait_for

LINES_FILES = 1  # ≈ 3.7 CPU s of chunking each, then its embedding
STRESS_LINES_FILES = 3


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Daemon]:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed note carries seedtoken.\n")
    daemon = Daemon(tmp_path, [root]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


@pytest.mark.parametrize(
    "files", [LINES_FILES, pytest.param(STRESS_LINES_FILES, marks=pytest.mark.stress)]
)
def test_a_small_file_is_found_while_files_of_short_lines_are_chunked(
    live: Daemon, files: int
) -> None:
    root = live.roots[0]
    lines = "a\n" * ((LARGE_TEXT_CHARS - 4096) // 2)
    names = [f"lines-{i}.txt" for i in range(files)]
    for i, name in enumerate(names):
        (root / name).write_text(f"linestoken{i}\n" + lines)
    wait_for(
        lambda: any(in_progress(live).get(n, {}).get("stage") == "chunking" for n in names),
        120,
        "a file of short lines to be chunked on the planner thread",
    )
    (root / "note.md").write_text("# Buoy\n\nThe buoy note carries buoytoken.\n")
    live.wait_searchable("buoytoken", "note.md", timeout=300)
    # The order is the point: the note went past them while they were still chunked.
    still = [n for n in names if n in in_progress(live)]
    assert still, "every file of short lines was done before the note was found"
    for i, name in enumerate(names):
        live.wait_searchable(f"linestoken{i}", name, timeout=300)
