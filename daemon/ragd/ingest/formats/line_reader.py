"""What the line-by-line readers of light markup (AsciiDoc, Org-mode) share: the lines, a
`MarkdownWriter` told which of them it is writing, the loop that hands each block its
first line, and the `Document` with every line's origin (`markdown_document`, which the
LaTeX reader uses too)."""

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
        return markdown_document(name, notes, self.writer)


def markdown_document(name: str, notes: list[str], writer: MarkdownWriter) -> Document:
    """The `Document` of what `writer` holds, each line located in the file `name`."""
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=writer.text(),
        notes=notes,
        located="lines",
        origins=writer.origins(),
        reaches=writer.reaches(),
    )
