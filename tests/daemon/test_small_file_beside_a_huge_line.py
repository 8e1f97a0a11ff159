"""A small file saved while a huge one is being chunked is searchable before that chunking
ends, against a real daemon (hostile70).

A text of one 5 MB line is parsed in a worker, then chunked on the planner thread for a
long while (seconds per MB: docs/performance.md). A small note whose parse outlasts
PARSE_PATIENCE_S (made certain here by the parse hook, `tests/support/slow_parse.py`; on a
loaded machine a fresh worker's parse does) is set aside; when its parse was done it was
queued for the same planner thread, behind the huge file: ≈ 50 s before it was found.
Now a small text is chunked on the writer at once. The order is the assertion: the note
is found while `rag status` still shows the huge file being chunked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.daemon import Daemon, in_progress, wait_for
from tests.support.slow_parse import slow_parse_env

HUGE_LINE_WORDS = 700_000  # ≈ 5 MB of words on one line


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Daemon]:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed note carries seedtoken.\n")
    daemon = Daemon(tmp_path, [root], env=slow_parse_env("slow-*.md", 1.5)).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def test_a_small_file_is_found_while_a_huge_line_is_still_chunked(live: Daemon) -> None:
    root = live.roots[0]
    line = " ".join(f"w{i % 5000}x{i // 5000}" for i in range(HUGE_LINE_WORDS))
    (root / "huge.txt").write_text(line + "\n")
    wait_for(
        lambda: in_progress(live).get("huge.txt", {}).get("stage") == "chunking",
        120,
        "the huge file to be chunked on the planner thread",
    )
    (root / "slow-note.md").write_text("# Buoy\n\nThe buoy note carries buoytoken.\n")
    live.wait_searchable("buoytoken", "slow-note.md", timeout=300)
    # The order is the point: the note was set aside for its parse, and found while the
    # huge file's chunking still held the planner thread.
    huge = in_progress(live).get("huge.txt", {})
    assert huge.get("stage") == "chunking", huge
    assert "slow-note.md" not in in_progress(live)
