"""Markdown's HTML comments taken out of its text, keeping its line count (pure).

A rendered Markdown page never shows an HTML comment, whether it stands as a block of its
own (CommonMark's HTML block of type 2: a line opening with `<!--`, up to the line holding
`-->`) or inside a paragraph (inline raw HTML). Read as text, a comment was indexed, and
one opening a file (mypy's docs/source/changelog.md: "<!-- This file includes
mypy/CHANGELOG.md into mypy documentation -->") named the section under it. reST comments
were already dropped by the reST reader; this is the Markdown side, applied by the loader
before MyST and setext headings are read, so both kinds of Markdown take the same path.

CommonMark's rules followed:

- A block comment opens at a line's start (indented at most three columns, also in the
  middle of a paragraph, which it interrupts) and runs to the end of the line holding
  `-->`; what follows `-->` on that line is shown, so it is kept. Never closed, it runs to
  the end of the document: the lines are dropped, as a renderer drops them, and a note
  names the line it opened on (a log line, not silence).
- An inline comment is `<!--` … `-->` within one paragraph (it may span its lines); a
  `<!--` that no `-->` closes before the paragraph ends is text, and so is `\\<!--`.
- Code is kept as written: fenced code (the chunker's `Fences`), indented code (four
  columns in, not continuing a paragraph; inside a list item, four columns past its
  content column, so a comment under `- item` four columns in is the item's, hidden)
  and code spans (a run of backticks up to the
  next run of the same length; whichever of a code span and a comment opens first wins).

Line for line: a dropped block leaves empty lines; a paragraph whose inline comment
spanned lines has its remaining text moved up and the freed lines emptied at its end, so
it stays one paragraph and every chunk's line numbers still point into the file. One pass
with str methods (no regex): each search resumes where the last one stopped, so the whole
is linear in the text.
"""

from __future__ import annotations

from ragd.ingest.chunking import Fences, atx_heading
from ragd.ingest.document import split_lines

OPEN = "<!--"
CLOSE = "-->"
CODE_INDENT = 4  # columns: indented code in CommonMark


def without_comments(text: str) -> tuple[str, list[str]]:
    """`text` without its HTML comments (unchanged when it has none), and a note for a
    comment block that is never closed."""
    if OPEN not in text:
        return text, []
    lines = split_lines(text)
    fences = Fences()
    paragraph: list[int] = []  # indices of the open paragraph's lines
    notes: list[str] = []
    items: list[int] = []  # the open list items' content columns, innermost last
    number = 0
    while number < len(lines):
        line = lines[number]
        indent = len(line) - len(line.lstrip(" "))
        if fences.feed(line) or not line.strip():
            _uncomment(lines, paragraph)
            paragraph = []
            number += 1
            continue
        # Inside a list item its blocks start at its content column: a comment four
        # columns in under `- item` is the item's HTML block (hidden), not indented code.
        depth = indent - _item_column(items, line, indent, continuing=bool(paragraph))
        if depth < CODE_INDENT and line.startswith(OPEN, indent):
            _uncomment(lines, paragraph)
            paragraph = []
            number = _drop_block(lines, number, indent + len(OPEN) - 2, notes)
            if lines[number].strip():
                paragraph = [number]  # what followed `-->` on its line
        elif atx_heading(line) is not None:
            _uncomment(lines, paragraph)
            _uncomment(lines, [number])  # a heading is one line: no comment leaves it
            paragraph = []
        elif paragraph or (depth < CODE_INDENT and not line.startswith("\t")):
            paragraph.append(number)  # else indented code: kept as written
        number += 1
    _uncomment(lines, paragraph)
    return "\n".join(lines), notes


def _item_column(items: list[int], line: str, indent: int, continuing: bool) -> int:
    """The content column of the innermost open list item holding `line` (0: none),
    after the items the line closes or opens: a line left of an item's column ends it
    unless it continues a paragraph (CommonMark's lazy line); a list marker opens one."""
    if not continuing:
        while items and indent < items[-1]:
            items.pop()
    base = max((column for column in items if column <= indent), default=0)
    if indent - base < CODE_INDENT and (column := _content_column(line, indent)) is not None:
        while items and indent < items[-1]:
            items.pop()  # a sibling (or an outer list's next item) ends the items deeper
        items.append(column)
    return base


def _content_column(line: str, indent: int) -> int | None:
    """Where a list item's content starts when `line` opens one at `indent` (a bullet, or
    up to nine digits and `.` or `)`; then one to four spaces, or the line's end)."""
    marks = line.replace(" ", "")
    if len(marks) >= 3 and marks[0] in "-*_" and marks == marks[0] * len(marks):
        return None  # a thematic break (`* * *`), not an item
    at = indent
    if line[at] in "-+*":
        at += 1
    else:
        while at < len(line) and at - indent < 9 and line[at].isdigit():
            at += 1
        if at == indent or at >= len(line) or line[at] not in ".)":
            return None
        at += 1
    rest = line[at:]
    spaces = len(rest) - len(rest.lstrip(" "))
    if not rest.strip():
        return at + 1
    if not spaces:
        return None
    return at + (spaces if spaces <= CODE_INDENT else 1)


def _drop_block(lines: list[str], first: int, search_from: int, notes: list[str]) -> int:
    """Empty the lines of the comment block opening on line `first` (its `-->` looked
    for from index `search_from`, so `<!-->` closes itself as CommonMark says), keep what
    follows `-->` on its line; returns the index of that line."""
    start = search_from
    for number in range(first, len(lines)):
        close = lines[number].find(CLOSE, start)
        if close != -1:
            lines[number] = lines[number][close + len(CLOSE) :].lstrip(" \t")
            return number
        lines[number] = ""
        start = 0
    notes.append(
        f"an HTML comment opened on line {first + 1} is never closed: "
        f"lines {first + 1}-{len(lines)} are not indexed (a Markdown page hides them too)"
    )
    return len(lines) - 1


def _uncomment(lines: list[str], paragraph: list[int]) -> None:
    """The paragraph's inline comments taken out, its text kept on its first lines."""
    if not paragraph or not any(OPEN in lines[n] for n in paragraph):
        return
    text = inline_uncommented("\n".join(lines[n] for n in paragraph))
    kept = [line for line in text.split("\n") if line.strip()]
    for slot, number in enumerate(paragraph):
        lines[number] = kept[slot] if slot < len(kept) else ""


def inline_uncommented(text: str) -> str:
    """`text`, one paragraph, without the inline comments outside its code spans."""
    runs = _backtick_runs(text)
    closer = _closing_runs(text, runs)
    pieces: list[str] = []
    kept_from = pos = run = 0
    opening = closing = -1  # the last finds, reused while still ahead (linear)
    while True:
        if opening < pos:
            opening = text.find(OPEN, pos)
        while run < len(runs) and runs[run] < pos:
            run += 1
        if run < len(runs) and (opening == -1 or runs[run] < opening):
            start = runs[run]
            match = closer[run]
            pos = match if match != -1 else start + _run_length(text, start)
            run += 1
            continue  # a code span (kept whole) or a literal run of backticks
        if opening == -1:
            break
        if _escaped(text, opening):
            pos = opening + 1
            continue
        if closing < opening + 2:
            closing = text.find(CLOSE, opening + 2)
        if closing == -1:
            break  # no `-->` left: every later `<!--` is text too
        pieces.append(text[kept_from:opening])
        kept_from = pos = closing + len(CLOSE)
    pieces.append(text[kept_from:])
    return "".join(pieces)


def _backtick_runs(text: str) -> list[int]:
    """Where each maximal run of backticks starts."""
    runs: list[int] = []
    at = text.find("`")
    while at != -1:
        runs.append(at)
        at = text.find("`", at + _run_length(text, at))
    return runs


def _run_length(text: str, start: int) -> int:
    end = start
    while end < len(text) and text[end] == "`":
        end += 1
    return end - start


def _closing_runs(text: str, runs: list[int]) -> list[int]:
    """For each run, the end of the next run of the same length (the code span it opens
    ends there), or -1: one pass from the right, remembering the latest run of each
    length."""
    lengths = [_run_length(text, start) for start in runs]
    latest: dict[int, int] = {}
    ends = [-1] * len(runs)
    for index in range(len(runs) - 1, -1, -1):
        length = lengths[index]
        ends[index] = latest.get(length, -1)
        latest[length] = runs[index] + length
    return ends


def _escaped(text: str, at: int) -> bool:
    """Whether an odd number of backslashes stands before `text[at]`."""
    slashes = 0
    while at - slashes - 1 >= 0 and text[at - slashes - 1] == "\\":
        slashes += 1
    return slashes % 2 == 1
