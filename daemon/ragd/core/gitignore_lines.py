"""Can a gitignore line be compiled, and what pathspec raises when it cannot.

Shared by the ignore files' reader (`ingest/ignore.py`: a bad line is left out and the
rest applies) and the `exclude` setting's check (`core/config.py`: refused at start, in
one line naming the key and the file).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import re2
from pathspec import GitIgnoreSpec, PathSpec
from pathspec.pattern import Pattern
from pathspec.util import CheckResult

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


@dataclass(frozen=True)
class SpecParts:
    """Ignore lines compiled as consecutive parts, each one RE2 set, asked as one spec.

    RE2 compiles a spec's patterns into one automaton within a memory budget (8 MB), and
    some files pass it: 1,024 lines of `*` and `?` runs. Such a file was not applied at
    all, so what it listed was indexed (attack48). Its lines are now compiled in parts
    that each fit. A path's answer is each part's deciding line, ranked against the next
    part's as one spec ranks two lines (`_later_wins`): the later line decides, except
    that pathspec, as git, lets a line naming the file (`secret.txt`) outrank a later one
    naming only a folder above it (`!sub/`). Taking the last part's answer alone let that
    `!sub/` index `sub/secret.txt` (attack49b)."""

    parts: tuple[PathSpec, ...]

    @property
    def patterns(self) -> list[Pattern]:
        return [pattern for part in self.parts for pattern in part.patterns]

    def check_file(self, path: str) -> CheckResult[str]:
        decided: tuple[CheckResult[str], Pattern] | None = None
        for part in self.parts:
            result = part.check_file(path)
            if result.include is None or result.index is None:
                continue
            line = part.patterns[result.index]
            if decided is None or _later_wins(type(part), decided[1], line, path):
                decided = (result, line)
        return decided[0] if decided is not None else CheckResult(path, None, None)


def _later_wins(kind: type[PathSpec], earlier: Pattern, later: Pattern, path: str) -> bool:
    """Does `later` decide `path` over `earlier` (both match it), as one spec of the two
    lines in that order would rank them? (Asked only where two parts match one path.)"""
    return kind([earlier, later], backend=BACKEND).check_file(path).index == 1


def _split_until_compiled(
    items: Sequence[str] | Sequence[Pattern], make: Callable[[list], PathSpec]
) -> list[PathSpec]:
    """`make` over `items`, or over each half, recursively, while RE2 refuses the set (a
    single item it refuses raises: an invalid line, left out by the caller)."""
    try:
        return [make(list(items))]
    except re2.error:
        if len(items) <= 1:
            raise
    middle = len(items) // 2
    return [
        *_split_until_compiled(items[:middle], make),
        *_split_until_compiled(items[middle:], make),
    ]


def spec_of(lines: Iterable[str]) -> SpecParts:
    """The lines as a spec on RE2 (raises one of PATTERN_ERRORS for an invalid line)."""
    return SpecParts(
        tuple(
            _split_until_compiled(
                list(lines), lambda part: GitIgnoreSpec.from_lines(part, backend=BACKEND)
            )
        )
    )


def plain_of(spec: SpecParts) -> SpecParts:
    """The same patterns decided by plain last-match-wins (pathspec's `PathSpec`: how
    folders are decided), part by part."""
    return SpecParts(
        tuple(
            plain
            for part in spec.parts
            for plain in _split_until_compiled(
                part.patterns, lambda patterns: PathSpec(patterns, backend=BACKEND)
            )
        )
    )


def compiles(line: str) -> bool:
    """Can `line` be compiled as a gitignore pattern on its own?"""
    try:
        spec_of([line])
    except PATTERN_ERRORS:
        return False
    return True
