"""Can a gitignore line be compiled, and what pathspec raises when it cannot.

Shared by the ignore files' reader (`ingest/ignore.py`: a bad line is left out and the
rest applies) and the `exclude` setting's check (`core/config.py`: refused at start, in
one line naming the key and the file).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

import re2
from pathspec import GitIgnoreSpec

# Matching runs on RE2: linear in the path whatever the pattern.
BACKEND = "re2"
# ValueError: no pattern at all (a lone "!", a trailing "\"); re.error: pathspec's own
# regex refuses it (a range written backwards, "[9-0].log" — it escaped the ignore reader
# as a traceback that stopped indexing the whole root, and the `exclude` check as a
# traceback at start); RE2's error: RE2 refuses it ("[[:foo:]]"), or the set is over its
# memory budget.
PATTERN_ERRORS = (ValueError, re.error, re2.error)
# pathspec compiles each line with `re` too, which warns on "[[" ("possible nested set")
# on stderr, once per process, beside the line the daemon logs for it.
warnings.filterwarnings("ignore", category=FutureWarning, module=r"pathspec\b")


def spec_of(lines: Iterable[str]) -> GitIgnoreSpec:
    """The lines as one spec on RE2 (raises one of PATTERN_ERRORS)."""
    return GitIgnoreSpec.from_lines(list(lines), backend=BACKEND)


def compiles(line: str) -> bool:
    """Can `line` be compiled as a gitignore pattern on its own?"""
    try:
        spec_of([line])
    except PATTERN_ERRORS:
        return False
    return True
