"""A file's sections, bounded in number by its size (pure).

Packing is per section, so every heading starts a chunk: 79 KB of bare ``# a`` lines (or
``# a`` over one word, or plain text's ``Title`` over ``=====``) made 20,000 chunks where
the same size of paragraphs makes about 40, and every chunk costs an embedding, a vector
in the graph, a row in the manifest and a document in tantivy. A 20 MB file of them would
have made millions. Real documents average far more than `CHARS_PER_SECTION` characters a
section (none of the 206 Markdown files of /usr/share/doc and this repository came near),
so they keep one section per heading; a file with more sections than its size allows
has its runs of small sections merged into sections of about a chunk each.

Nothing is lost in a merge: each merged section's heading titles, beyond the path the
merged section keeps (the one its members share), are written as a line of its text,
on the heading's own line where there is one, so every word stays indexed and every
chunk keeps the lines it spans in the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class Section(NamedTuple):
    """A heading path and the lines under it, from 0-based line `start` of the text."""

    path: tuple[str, ...]
    lines: list[str]
    start: int
    titles: bool = False  # the lines are bare headings' titles, each a block of its own


SECTION_ALLOWANCE = 64  # sections any file may have, however short
CHARS_PER_SECTION = 128  # ... and one more per this many characters of text


def over_budget(sections: Sequence[Section], text_chars: int) -> bool:
    return len(sections) > SECTION_ALLOWANCE + text_chars // CHARS_PER_SECTION


def bounded_sections(
    sections: list[Section], text_chars: int, chunk_chars: int, fallback: tuple[str, ...]
) -> list[Section]:
    """`sections` unchanged when the file's size allows that many; else each run of
    sections smaller than a quarter of `chunk_chars` is merged into sections of at least
    `chunk_chars` (the last of a run may be smaller). `fallback`: the path of a merged
    section whose members share no heading (the document's title)."""
    if not over_budget(sections, text_chars):
        return sections
    small = chunk_chars // 4
    merged: list[Section] = []
    run: list[Section] = []
    run_chars = 0
    for section in sections:
        chars = _chars(section)
        if chars >= small:
            merged.extend(_merge(run, fallback, _end(merged)))
            run, run_chars = [], 0
            merged.append(section)
            continue
        run.append(section)
        run_chars += chars
        if run_chars >= chunk_chars:
            merged.extend(_merge(run, fallback, _end(merged)))
            run, run_chars = [], 0
    merged.extend(_merge(run, fallback, _end(merged)))
    return merged


def _chars(section: Section) -> int:
    return sum(len(line) + 1 for line in section.lines)


def _end(sections: Sequence[Section]) -> int:
    """The first line after the last of `sections` (0 with none)."""
    if not sections:
        return 0
    return sections[-1].start + len(sections[-1].lines)


def _merge(run: list[Section], fallback: tuple[str, ...], free_from: int) -> list[Section]:
    """`run` as one section; `free_from`: the first line no earlier section holds."""
    if len(run) <= 1:
        return list(run)
    prefix = _shared_prefix([section.path for section in run])
    lines: list[str] = []
    first = run[0].start
    for path, body, start, _ in run:
        levels = _unsaid(path[len(prefix) :], body)
        if not lines:  # the run's first heading lines are just above its body, if free
            first = start - min(len(levels), max(0, start - free_from))
        at = first + len(lines)  # the line `lines` reaches in the file
        if start < at:  # sections out of order: not expected; keep the file's text whole
            lines.extend(body)
            continue
        filler = [""] * (start - at)
        if levels and filler:
            # One level a line, ending just above the body, where the headings were;
            # what does not fit goes on the first of those lines.
            room = min(len(levels), len(filler))
            spill = len(levels) - room + 1
            filler[-room:] = [" > ".join(levels[:spill]), *levels[spill:]]
        elif levels:
            joined = " > ".join(levels)
            body = [f"{joined} > {body[0]}", *body[1:]] if body else [joined]
        lines.extend(filler)
        lines.extend(body)
    return [Section(prefix or fallback, lines, first)]


def _unsaid(beyond: tuple[str, ...], body: list[str]) -> tuple[str, ...]:
    """The heading levels a merged section's path no longer says, to be written as text.
    A section that is only its title (a heading with nothing under it) already holds the
    last level as its text."""
    if beyond and len(body) == 1 and _is_title(body[0], beyond[-1]):
        return beyond[:-1]
    return beyond


def _is_title(line: str, level: str) -> bool:
    spaced = " ".join(line.split())
    return spaced == level or (level.endswith("…") and spaced.startswith(level[:-1].rstrip()))


def _shared_prefix(paths: list[tuple[str, ...]]) -> tuple[str, ...]:
    shortest = min(paths, key=len)
    for depth, level in enumerate(shortest):
        if any(path[depth] != level for path in paths):
            return shortest[:depth]
    return shortest
