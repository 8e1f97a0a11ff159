"""Can a gitignore line be compiled, and what pathspec raises when it cannot.

Shared by the ignore files' reader (`ingest/ignore.py`: a bad line is left out and the
rest applies) and the `exclude` setting's check (`core/config.py`: refused at start, in
one line naming the key and the file).
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import re2
from pathspec import GitIgnoreSpec, PathSpec
from pathspec.pattern import Pattern
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern
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

# RE2 instructions per compiled part, summed over its lines' own programs. RE2 gives one
# set an 8 MB budget; pathspec's GitIgnoreSpec sets of `?`/`*`/letter runs failed past
# 61,000-66,000 summed instructions (PathSpec's past 120,000). Parts are packed to this
# estimate, so a compile that fails (and is halved) is the exception: the halving alone,
# redoing failed compiles of up to 1,024 lines, cost 5 CPU s per heavy file (attack49b).
PART_PROGRAM = 48_000
# Line → pattern and line → program size, kept for a whole ignore file's lines (the caps
# allow 1,024): the size is asked before the lines are compiled, and pathspec compiles
# each line with Python's `re` too (0.7 ms for a 250-character line).
_LINES_KEPT = 2048
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.never_capture = True
_RE2_OPTIONS.log_errors = False


@dataclass(frozen=True)
class SpecParts:
    """Ignore lines compiled as consecutive parts, each one RE2 set, asked as one spec.

    RE2 compiles a spec's patterns into one automaton within a memory budget (8 MB), and
    some files pass it: 1,024 lines of `*` and `?` runs. Such a file was not applied at
    all, so what it listed was indexed (attack48). Its lines are now compiled in parts
    that each fit, packed by each line's own program size (`PART_PROGRAM`). A path's
    answer is each part's deciding line, ranked against the next part's as one spec ranks
    two lines (`_later_wins`): the later line decides, except that pathspec, as git,
    lets a line naming the file (`secret.txt`) outrank a later one naming only a folder
    above it (`!sub/`). Taking the last part's answer alone let that
    `!sub/` index `sub/secret.txt` (attack49b)."""

    parts: tuple[PathSpec, ...]
    # (earlier line, later line) → the spec of the two, for `_later_wins`: a path that two
    # parts match asks it, and compiling the pair per path cost milliseconds a path.
    _pairs: dict[tuple[int, int], PathSpec] = field(default_factory=dict, compare=False, repr=False)

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
            if decided is None or self._later_wins(type(part), decided[1], line, path):
                decided = (result, line)
        return decided[0] if decided is not None else CheckResult(path, None, None)

    def _later_wins(
        self, kind: type[PathSpec], earlier: Pattern, later: Pattern, path: str
    ) -> bool:
        """Does `later` decide `path` over `earlier` (both match it), as one spec of the
        two lines in that order would rank them? (Asked only where two parts match.)"""
        key = (id(earlier), id(later))  # both held by this spec's parts, so ids stay theirs
        pair = self._pairs.get(key)
        if pair is None:
            if len(self._pairs) >= _LINES_KEPT:
                self._pairs.clear()
            pair = self._pairs[key] = kind([earlier, later], backend=BACKEND)
        return pair.check_file(path).index == 1


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


@functools.lru_cache(maxsize=_LINES_KEPT)
def _pattern(line: str) -> GitIgnoreSpecPattern:
    return GitIgnoreSpecPattern(line)


@functools.lru_cache(maxsize=_LINES_KEPT)
def program_size(line: str) -> int:
    """RE2 instructions of the line's pattern compiled alone; 0 for a blank line or a
    comment (raises one of PATTERN_ERRORS for an invalid line)."""
    pattern = _pattern(line)
    if pattern.include is None or pattern.regex is None:
        return 0
    return int(re2.compile(pattern.regex.pattern, _RE2_OPTIONS).programsize)


def _packed(lines: list[str]) -> Iterator[list[Pattern]]:
    """The lines' patterns in consecutive groups of at most PART_PROGRAM instructions
    (a longer line alone)."""
    group: list[Pattern] = []
    size = 0
    for line in lines:
        cost = program_size(line)
        if group and size + cost > PART_PROGRAM:
            yield group
            group, size = [], 0
        group.append(_pattern(line))
        size += cost
    if group:
        yield group


def spec_of(lines: Iterable[str]) -> SpecParts:
    """The lines as a spec on RE2 (raises one of PATTERN_ERRORS for an invalid line)."""
    # Empty lines are left out, as pathspec's `from_lines` leaves them.
    groups = _packed([line for line in lines if line])
    return SpecParts(
        tuple(
            part
            for group in groups
            for part in _split_until_compiled(
                group, lambda patterns: GitIgnoreSpec(patterns, backend=BACKEND)
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
