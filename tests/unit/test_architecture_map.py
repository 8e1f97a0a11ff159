"""docs/architecture.md is the map of the code: every module of the daemon is on it.

A module added without its line is one a reader of the map cannot find: query/alternatives.py
(the things a question names side by side) came in without one.
"""

from __future__ import annotations

import re

from tests.support.sources import REPO

DAEMON = REPO / "daemon" / "ragd"
FORMATS = "ingest/formats/"


def test_every_daemon_module_is_on_the_map() -> None:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([\w/]+\.py)`", text))
    # The format readers share one row, each named by its stem ("html, rst, docx, …").
    formats_row = next(line for line in text.splitlines() if f"`{FORMATS}`" in line)
    modules = sorted(
        path.relative_to(DAEMON).as_posix()
        for path in DAEMON.rglob("*.py")
        if path.name != "__init__.py"
    )
    assert len(modules) > 100, "the scan is broken"
    missing = [
        module
        for module in modules
        if module not in named
        and not (
            module.startswith(FORMATS)
            and re.search(rf"\b{module[len(FORMATS) : -3]}\b", formats_row)
        )
    ]
    assert missing == []
