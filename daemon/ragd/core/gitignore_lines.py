"""Gitignore lines as git reads them, matched on RE2; whether a line can be compiled.

pathspec turns each line into a regular expression; the lines are matched here, on RE2
sets (linear in the path whatever the pattern), with git's rule: a path is decided by the
last line that names **the path itself** — a file, or a folder written with a trailing
"/" — never by a line that only names a folder above it. The folders above a path are
decided first, each on its own (the caller walks them: an excluded folder is not
entered, as git does not enter one), so a line naming a folder above never needs to
count for what is below it.

pathspec's own specs let such a line decide: `!docs/` re-entered `docs/node_modules/`
after `node_modules/`, and `build` then `!src/` indexed `src/build/out.txt`, both of which
git ignores (attack50). Its `GitIgnoreSpec` ranks a line naming the path above one naming
a folder above it, which cannot be combined across the parts a large file is compiled in:
`*`, `docs`, `!docs` in three parts kept `docs/x.txt` (attack50). Under git's rule the
parts combine simply: the last part with a matching line decides, by its last one.

Shared by the ignore files' reader (`ingest/ignore.py`: a bad line is left out and the
rest applies) and the `exclude` setting (`core/config.py` refuses a bad line at start).
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import re2
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

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
# set an 8 MB budget; sets of one regex per line (`?`/`*`/letter runs) failed past about
# 120,000 summed instructions. Parts are packed to this estimate, so a compile that fails
# (and is halved) is the exception: halving alone, redoing failed compiles of up to 1,024
# lines, cost 5 CPU s per heavy file (attack49b).
PART_PROGRAM = 64_000
# Line → pattern and line → its regex's program size, kept for a whole ignore file's
# lines (the caps allow 1,024): the size is asked before the lines are compiled, and
# pathspec compiles each line with Python's `re` too (0.7 ms for a 250-character line).
_LINES_KEPT = 2048
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.never_capture = True
_RE2_OPTIONS.log_errors = False

# How pathspec ends a line's regex: the line may name a file or a folder (`docs`), or
# only a folder (`docs/`); the group marks a match of something below the folder.
_FILE_OR_FOLDER = "(?:(?P<ps_d>/)|$)"
_FOLDER = "(?P<ps_d>/)"


@dataclass(frozen=True)
class _Part:
    """Consecutive lines compiled as one RE2 set: each regex's line index and whether the
    line excludes (False: a `!` line)."""

    matcher: re2.Set
    lines: tuple[tuple[int, bool], ...]


@dataclass(frozen=True)
class IgnoreLines:
    """An ignore file's lines (or the `exclude` setting's), compiled in parts that each
    fit RE2's budget (1,024 lines of `*` and `?` runs do not fit one: such a file was not
    applied at all, attack48), packed by each line's own program size."""

    parts: tuple[_Part, ...]
    patterns: int  # the lines that are patterns (not blank, not a comment)

    def verdict(self, path: str) -> bool | None:
        """For a path relative to the lines' folder (a folder's with a trailing "/"):
        True excluded, False let back in by a `!` line, None when no line names it."""
        for part in reversed(self.parts):
            matched = part.matcher.Match(path)
            if matched:
                # RE2 returns the ids in no set order: the last line is the largest index.
                return part.lines[max(matched)][1]
        return None


def self_regex(line: str) -> str | None:
    """The regex of the paths the line names itself (a folder with a trailing "/"); None
    for a blank line or a comment. Raises one of PATTERN_ERRORS for an invalid line."""
    regex = _pattern(line).regex
    if regex is None:
        return None
    text = str(regex.pattern)
    if text.endswith(_FILE_OR_FOLDER):
        return text[: -len(_FILE_OR_FOLDER)] + "/?$"
    if text.endswith(_FOLDER):
        # `build/**/`: the folders inside build, not build (pathspec reads it as `build/`);
        # `/**/` or `**/**/` alone is every folder
        body = line.rstrip(" ").removeprefix("!").removeprefix("/")
        head = body.removesuffix("/**/")
        every = all(part == "**" for part in head.split("/"))
        inside = "/.+/$" if head != body and not every else "/$"
        return text[: -len(_FOLDER)] + inside
    if _FOLDER in text:  # (pathspec puts the marker last; anything else is not read)
        raise ValueError(f"a folder marker inside {text!r}")
    if text.endswith("/"):
        return text + "."  # `logs/**`: what is in the folder, not the folder itself
    return text  # `**`, `*`: any path


@functools.lru_cache(maxsize=_LINES_KEPT)
def _pattern(line: str) -> GitIgnoreSpecPattern:
    return GitIgnoreSpecPattern(line)


@functools.lru_cache(maxsize=_LINES_KEPT)
def program_size(line: str) -> int:
    """RE2 instructions of the line's regex compiled alone; 0 for a blank line or a
    comment (raises one of PATTERN_ERRORS for an invalid line)."""
    regex = self_regex(line)
    if regex is None:
        return 0
    return int(re2.compile(regex, _RE2_OPTIONS).programsize)


def _packed(lines: list[str]) -> Iterator[list[tuple[int, str, bool]]]:
    """The lines that are patterns, as (index, regex, excludes), in consecutive groups of
    at most PART_PROGRAM instructions (a longer line alone)."""
    group: list[tuple[int, str, bool]] = []
    size = 0
    for index, line in enumerate(lines):
        regex = self_regex(line)
        if regex is None:
            continue
        cost = program_size(line)
        if group and size + cost > PART_PROGRAM:
            yield group
            group, size = [], 0
        group.append((index, regex, bool(_pattern(line).include)))
        size += cost
    if group:
        yield group


def _compiled(group: list[tuple[int, str, bool]]) -> list[_Part]:
    """The group as one RE2 set, or as halves, recursively, while RE2 refuses the set (a
    single line it refuses raises: an invalid line, left out by the caller)."""
    matcher = re2.Set.SearchSet(_RE2_OPTIONS)
    try:
        for _, regex, _ in group:
            matcher.Add(regex)
        matcher.Compile()
    except re2.error:
        if len(group) <= 1:
            raise
        middle = len(group) // 2
        return [*_compiled(group[:middle]), *_compiled(group[middle:])]
    return [_Part(matcher, tuple((index, excludes) for index, _, excludes in group))]


def spec_of(lines: Iterable[str]) -> IgnoreLines:
    """The lines compiled (raises one of PATTERN_ERRORS for an invalid line)."""
    groups = list(_packed(list(lines)))
    return IgnoreLines(
        tuple(part for group in groups for part in _compiled(group)),
        sum(len(group) for group in groups),
    )


def compiles(line: str) -> bool:
    """Can `line` be compiled as a gitignore pattern on its own?"""
    try:
        spec_of([line])
    except PATTERN_ERRORS:
        return False
    return True
