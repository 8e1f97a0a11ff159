"""OpenDocument text (``.odt``) through odfpy: ``text:h`` outline levels become heading paths.

odfpy is the OpenDocument reference library in Python (it reads and writes the format
LibreOffice saves). Headings carry their outline level; paragraphs, list items and table
rows become Markdown blocks. The zip container is checked for a bomb before odfpy
unpacks it.
"""

from __future__ import annotations

import io
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import Document
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "OpenDocument text"

CONTAINERS = {"section", "div", "text-content", "deletion", "index-body"}


def parse(name: str, data: bytes) -> Document:
    from odf.opendocument import load

    check_zip(data, FORMAT)
    document = load(io.BytesIO(data))
    writer = MarkdownWriter()
    _write(document.text, writer)
    return Document(kind="markdown", title=PurePath(name).stem, text=writer.text())


def _write(node: Any, writer: MarkdownWriter) -> None:
    from odf import teletype

    for child in node.childNodes:
        tag = child.qname[1] if getattr(child, "qname", None) else ""
        if tag == "h":
            level = child.getAttribute("outlinelevel")
            writer.heading(_outline_level(level), teletype.extractText(child))
        elif tag == "p":
            writer.paragraph(teletype.extractText(child))
        elif tag == "list":
            for item in child.childNodes:
                writer.line("- " + clean(teletype.extractText(item)))
            writer.end_lines()
        elif tag == "table":
            for row in _elements(child, "table-row"):
                cells = [clean(teletype.extractText(c)) for c in _elements(row, "table-cell")]
                writer.line("| " + " | ".join(cells) + " |")
            writer.end_lines()
        elif tag in CONTAINERS:
            _write(child, writer)


def _elements(node: Any, tag: str) -> list[Any]:
    """Descendants named `tag` (table rows may sit inside header-row or row-group elements)."""
    found = []
    stack = list(reversed(node.childNodes))
    while stack:
        child = stack.pop()
        if getattr(child, "qname", None) and child.qname[1] == tag:
            found.append(child)
        elif getattr(child, "childNodes", None) and child.qname[1] != "table":
            stack.extend(reversed(child.childNodes))
    return found


def _outline_level(value: object) -> int:
    """A heading's outline level as the file states it, 1 when that is no small number:
    int() refuses over 4,300 digits (and a non-ASCII digit such as "²"), which made the
    whole file unreadable; any level past Markdown's six is shown as six anyway."""
    text = str(value)
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else 1
