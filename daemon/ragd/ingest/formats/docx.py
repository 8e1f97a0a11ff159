"""Word documents (``.docx``) through python-docx: heading styles become heading paths.

python-docx reads the Office Open XML package directly (no Word, no LibreOffice) and
gives paragraphs and tables in document order with their styles. ``Heading 1``–``9``
become heading levels, nested under a ``Title`` paragraph when the document has one;
list styles become list items; tables become ``| a | b |`` rows. A ``mailto:`` link
keeps its address after its text (`formats.mail_links`); a footnote or endnote is cited
where it stands and its text ends its section (`formats.docx_notes`). The zip container
is checked for a bomb before python-docx unpacks it.
"""

from __future__ import annotations

import io
import re
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import Document
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.docx_notes import WordNotes
from ragd.ingest.formats.mail_links import unshown_address, with_address
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "Word document"

_HEADING_STYLE = re.compile(r"^heading (\d)$", re.I)


def parse(name: str, data: bytes) -> Document:
    import docx
    from docx.table import Table

    check_zip(data, FORMAT)
    document = docx.Document(io.BytesIO(data))
    blocks = list(document.iter_inner_content())
    titled = any(
        not isinstance(b, Table) and _style(b).lower() == "title" and b.text.strip() for b in blocks
    )
    writer = MarkdownWriter()
    notes = WordNotes(document.part, lambda paragraph: _paragraph_text(paragraph, None))
    for block in blocks:
        if isinstance(block, Table):
            for row in block.rows:
                cells = (clean(_cell_text(cell, notes)) for cell in row.cells)
                writer.line("| " + " | ".join(cells) + " |")
            writer.end_lines()
            continue
        _write_paragraph(block, writer, notes, shift=1 if titled else 0)
    notes.write(writer)
    title = PurePath(name).stem
    return Document(kind="markdown", title=title, text=writer.text(), notes=notes.problems)


def _style(paragraph: Any) -> str:
    style = paragraph.style
    return str(style.name) if style is not None and style.name else ""


def _cell_text(cell: Any, notes: WordNotes) -> str:
    """A table cell's paragraphs, one a line, as python-docx's `cell.text` joins them."""
    return "\n".join(_paragraph_text(paragraph, notes) for paragraph in cell.paragraphs)


def _paragraph_text(paragraph: Any, notes: WordNotes | None, marked: bool = True) -> str:
    """The paragraph's text, as python-docx's `paragraph.text` gives it (its runs and its
    links' text), with a `mailto:` link's address after it: the address is only the
    link's relationship target, which that text leaves out. The notes a run cites are
    cited after it, "limit [1]" (not `marked`: their text is kept, no mark is shown)."""
    from docx.text.hyperlink import Hyperlink

    pieces: list[str] = []
    address: str | None = None  # of the link just read, for the text that follows it
    for item in paragraph.iter_inner_content():
        text = item.text
        if address is not None:
            text, address = with_address(text, address), None
        if isinstance(item, Hyperlink):
            address = unshown_address(_link_target(item), text)
        elif notes is not None:
            cited = notes.cite(item, marked)
            if cited:  # "limit [1]": a space before it, unless the text has one
                spaced = not text and (not pieces or pieces[-1][-1:].isspace())
                text += cited if spaced or text[-1:].isspace() else " " + cited
        pieces.append(text)
    if address is not None:
        pieces.append(with_address("", address))
    return "".join(pieces)


def _link_target(link: Any) -> str | None:
    """A hyperlink's target; None for a link to a place in the document, or one whose
    relationship the package lacks (a damaged file keeps its text)."""
    try:
        return str(link.address) or None
    except KeyError:
        return None


def _write_paragraph(paragraph: Any, writer: MarkdownWriter, notes: WordNotes, shift: int) -> None:
    style = _style(paragraph)
    heading = _HEADING_STYLE.match(style)
    if heading or style.lower() == "title":
        notes.write(writer)  # the section before this heading ends here
    text = _paragraph_text(paragraph, notes, marked=not heading and style.lower() != "title")
    if not text.strip():
        return
    if style.lower() == "title":
        writer.heading(1, text)
    elif heading:
        writer.heading(int(heading.group(1)) + shift, text)
    elif style.lower().startswith("list"):
        writer.line("- " + clean(text))
    else:
        writer.paragraph(text)
