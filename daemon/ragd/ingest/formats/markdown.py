"""Writing Markdown that the chunker reads back exactly as the converter meant it.

Body text must never turn into structure by accident: a paragraph that starts with ``#``
would become a heading, one that starts with a fence would swallow what follows. Those
lines are escaped; code goes in a fence that nothing inside it can close.

The writer also remembers where each line it writes came from (`origins`), so a chunk of
the converted text can name its place in the original: the current `at` (a notebook's
cell, or the source line an HTML or reST block starts at) for prose, or the source's own
line numbers for code given with `first_line`. A converted line can stand for several
source lines (a paragraph is folded onto one): `until` is then the last of them, and
`reaches` lists it per line.
"""

from __future__ import annotations

import re

from ragd.ingest.document import split_lines

_MARKS = r"#|```|~~~"  # what opens a heading or a fence at a line's start
_STRUCTURAL = re.compile(rf"^([ ]{{0,3}})({_MARKS})")
_ESCAPED = re.compile(rf"^([ ]{{0,3}})\\(?={_MARKS})")  # escape_line's backslash
_FENCE_LINE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})", re.M)
MAX_LEVEL = 6
NAMES_IN_HEADING = 3  # names a heading over a run of things lists before "…"


def names_heading(names: list[str]) -> str:
    """The heading of a run of things by their names, as the code and YAML readers head
    one: the first NAMES_IN_HEADING, then "…" when there are more
    (`DEFAULT_LIMITS, DEFAULT_TIMEOUT_CONFIG, DEFAULT_POOL, …`)."""
    more = ", …" if len(names) > NAMES_IN_HEADING else ""
    return ", ".join(names[:NAMES_IN_HEADING]) + more


def clean(text: str) -> str:
    """Whitespace runs (newlines included) folded to single spaces."""
    return " ".join(text.split())


def escape_line(line: str) -> str:
    return _STRUCTURAL.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", line)


def unescape_line(line: str) -> str:
    """`line` as the page shows it: without the backslash `escape_line` put before its
    leading `#` or fence."""
    return _ESCAPED.sub(r"\1", line)


class MarkdownWriter:
    """Collects blocks; `text()` joins them with blank lines."""

    def __init__(self) -> None:
        self._blocks: list[str] = []
        self.block_origins: list[list[int | None]] = []  # per block, per line
        self.block_reaches: list[list[int | None]] = []  # per block, per line
        self.at: int | None = None  # where what is written next comes from (a cell, a line)
        self.until: int | None = None  # the last source line it draws on (None: `at`)
        self.headings = 0
        self._lines_open = False  # the last block is a list/table that `line` may extend
        # That block's lines, joined into it when it is read: adding each line to the
        # block's string copied the whole block, n² for a list or table of n lines
        # (an HTML table of 100,000 rows: 17 s).
        self._open_lines: list[str] = []

    @property
    def blocks(self) -> list[str]:
        """The blocks written so far, the one `line` is extending included."""
        self._join_open_lines()
        return self._blocks

    def _join_open_lines(self) -> None:
        if len(self._open_lines) > 1:
            joined = "\n".join(self._open_lines)
            self._blocks[-1] = joined
            self._open_lines = [joined]

    def _append(self, block: str, origins: list[int | None] | None = None) -> None:
        self.blocks.append(block)
        self._open_lines = []
        count = block.count("\n") + 1
        self.block_origins.append(origins or [self.at] * count)
        self.block_reaches.append(list(origins) if origins else [self._reach()] * count)
        self._lines_open = False

    def _reach(self) -> int | None:
        return self.at if self.until is None else self.until

    def heading(self, level: int, text: str) -> None:
        title = clean(text)
        if title:
            self._append(f"{'#' * max(1, min(level, MAX_LEVEL))} {title}")
            self.headings += 1

    def paragraph(self, text: str) -> None:
        """Prose: kept line by line."""
        lines = [escape_line(line.rstrip()) for line in text.strip("\n").split("\n")]
        body = "\n".join(line for line in lines if line.strip())
        if body:
            self._append(body)

    def markdown(self, text: str, origins: list[int | None] | None = None) -> None:
        """Markdown written by the author (a notebook cell, a Rust doc comment): kept as it
        is. `origins`: the file's line of each line of `text` (else `at` for all); `text`
        then neither starts nor ends with a blank line, so they stay in step."""
        if not text.strip():
            return
        lines = split_lines(text)
        if origins is not None and len(origins) == len(lines) and lines[0] and lines[-1]:
            self._append("\n".join(lines), origins)
        else:
            self._append("\n".join(lines).strip("\n"))

    def line(self, text: str, indent: int = 0) -> None:
        """A list item or table row: consecutive ones form one block, kept whole.
        `indent`: spaces before it (a nested list's item, under the item it belongs to)."""
        text = escape_line(clean(text))
        if text and indent:
            text = " " * indent + text
        if not text:
            return
        if self._lines_open:
            self._open_lines.append(text)
            self.block_origins[-1].append(self.at)
            self.block_reaches[-1].append(self._reach())
        else:
            self._append(text)
            self._lines_open = True
            self._open_lines = [text]

    def extend(self, other: MarkdownWriter) -> None:
        """Append the blocks another writer collected (a slide's body, once its heading is
        known), with their origins."""
        self.blocks.extend(other.blocks)
        self.block_origins += other.block_origins
        self.block_reaches += other.block_reaches
        self.end_lines()

    def end_lines(self) -> None:
        self._join_open_lines()
        self._lines_open = False
        self._open_lines = []

    def code(self, source: str, language: str = "", first_line: int | None = None) -> None:
        """A fenced block no line of `source` can close; `first_line` is the 1-based line
        `source` starts at in the file, when the file is the code itself."""
        source = "\n".join(split_lines(source))
        lead = len(source) - len(source.lstrip("\n"))
        source = source.strip("\n")
        if not source.strip():
            return
        origins: list[int | None] | None = None
        if first_line is not None:
            numbers = range(first_line + lead, first_line + lead + source.count("\n") + 1)
            origins = [None, *numbers, None]  # the fences are the writer's, not the file's
        used = {m.group(1)[0] for m in _FENCE_LINE.finditer(source)}
        fence = "~~~" if "`" in used and "~" not in used else "```"
        if len(used) == 2:  # both kinds at a line start: keep those lines from matching
            source = _FENCE_LINE.sub(lambda m: "\u200b" + m.group(0), source)
        self._append(f"{fence}{language}\n{source}\n{fence}", origins)

    def text(self) -> str:
        return "\n\n".join(self.blocks)

    def origins(self) -> list[int | None]:
        """Where each line of `text()` came from (None: the blank line between blocks)."""
        return _joined(self.block_origins)

    def reaches(self) -> list[int | None]:
        """The last source line each line of `text()` draws on (None as in `origins`)."""
        return _joined(self.block_reaches)


def _joined(blocks: list[list[int | None]]) -> list[int | None]:
    lines: list[int | None] = []
    for number, block in enumerate(blocks):
        lines.extend(([None] if number else []) + block)
    return lines
