"""README's settings table states defaults in full; they must be the daemon's."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragd.core.config import DEFAULT_INCLUDE

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_s_include_default_is_the_daemon_s() -> None:
    """`*.el` joined the daemon's patterns (newuser61) before it joined the table, so the
    manual said Emacs Lisp files were not read while they were."""
    row = next(
        line
        for line in README.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `include` |")
    )
    listed = re.search(r"`(\[[^`]*\])`", row)
    assert listed is not None, row
    assert tuple(json.loads(listed.group(1))) == DEFAULT_INCLUDE
