"""With `follow_symlinks = true`, a link into /proc or /sys (`status -> /proc/self/status`)
leads to a file the kernel makes up as it is read, different at each read: it was
indexed, and re-indexed at each look. The planner skips such a link with its reason, and
the walk does not enter a folder link into such a file system."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import pytest

from ragd.core.kernel_fs import kernel_filesystem
from ragd.ingest.filters import PathFilter
from ragd.ingest.planner import FileRules, Planner, Skip
from ragd.ingest.walking import walk

pytestmark = pytest.mark.skipif(
    kernel_filesystem(Path("/proc/self")) != "proc", reason="needs Linux's /proc"
)


def following() -> Planner:
    return Planner(cast(Any, None), rules=lambda: FileRules(None, follow_symlinks=True))


def test_a_link_to_a_kernel_file_is_skipped_with_its_reason(tmp_path: Path) -> None:
    link = tmp_path / "status.txt"
    link.symlink_to("/proc/self/status")
    outcome = following().check(link, os.lstat(link), None, None)
    assert isinstance(outcome, Skip) and outcome.drop, outcome
    assert "proc" in outcome.reason and "kernel" in outcome.reason
    note = tmp_path / "note.md"
    note.write_text("# Note\n")
    other = tmp_path / "other.md"
    other.symlink_to(note)
    assert following().check(other, os.lstat(other), None, None) == note.stat()  # followed


def test_the_walk_does_not_enter_a_folder_link_into_proc(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("A note.\n")
    (tmp_path / "me").symlink_to("/proc/self")
    found = [key for key, _ in walk(tmp_path, str(tmp_path), PathFilter(["*"]), True)]
    assert found == ["note.txt"]
