"""A save that keeps size and mtime while the file's earlier version is still parsing.

The writer sets a slow parse aside and skips a later sync of the same file whose stat
matches the version in flight (`SlowFiles.covers`): the parse already carries it. A save
that keeps size and mtime (`cp --preserve=timestamps`, `touch -d`, two same-size saves
within a clock tick) matches too, although its bytes are new: the event's mark was taken
and the new bytes were never read, so the version being parsed was indexed and kept for
ever. Parse workers here take PARSE_S on `slow-*.md` (`tests/support/slow_parse.py`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.daemon import Daemon, wait_for
from tests.support.slow_parse import slow_parse_env

PARSE_S = 3


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("slowrewrite")
    root = tmp / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed note names a zanzibar.\n")
    daemon = Daemon(tmp, [root], env=slow_parse_env("slow-*.md", PARSE_S)).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


def _parsing(d: Daemon, source: str) -> bool:
    progress: dict[str, Any] = d.status().get("progress") or {}
    return any(
        item["source"] == source and item.get("stage") == "parsing"
        for item in progress.get("in_progress", [])
    )


def _write_keeping_the_stat(path: Path, text: str) -> None:
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_a_save_keeping_the_stat_during_a_slow_parse_is_indexed(daemon: Daemon) -> None:
    note = daemon.roots[0] / "slow-gate.md"
    note.write_text("# Gate\n\nThe gate code is koalaone.\n")
    wait_for(lambda: _parsing(daemon, "slow-gate.md"), 30, "the first version to be parsing")
    _write_keeping_the_stat(note, "# Gate\n\nThe gate code is koalatwo.\n")
    wait_for(lambda: daemon.sources("koalatwo") == ["slow-gate.md"], 60, "the new bytes indexed")
    daemon.wait_idle()
    assert daemon.sources("koalaone") == []
