"""What the line-by-line readers of light markup (AsciiDoc, Org-mode) share: the lines, a
`MarkdownWriter` told which of them it is writing, the loop that hands each block its
first line, and the `Document` with every line's origin."""

from __future__ import annotations

from pathlib import PurePath

from ragd.ingest.document import Document
from ragd.ingest.formats.markdown import MarkdownWriter


class LineReader:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.writer = MarkdownWriter()

    def place(self, first: int, last: int | None = None) -> None:
        """What is written next comes from lines first…last (0-based here)."""
        self.writer.at = first + 1
        self.writer.until = None if last is None else last + 1

    def block(self, i: int) -> int:
        """Read the block starting at line i; the index of the line after it (> i)."""
        raise NotImplementedError

    def document(self, name: str, notes: list[str]) -> Document:
        i, count = 0, len(self.lines)
        while i < count:
            i = self.block(i)
        return Document(
            kind="markdown",
            title=PurePath(name).stem,
            text=self.writer.text(),
            notes=notes,
            located="lines",
            origins=self.writer.origins(),
            reaches=self.writer.reaches(),
        )
