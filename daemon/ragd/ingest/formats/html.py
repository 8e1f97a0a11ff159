"""HTML (``.html``, ``.htm``, ``.xhtml``) through lxml: ``h1``–``h6`` become heading paths.

lxml wraps libxml2's HTML parser: fast, tolerant of the tag soup real pages are, and it
reads the document's declared encoding. The tree is walked iteratively (`iterwalk`), so
no nesting depth can exhaust Python's stack; libxml2 itself stops at 256 levels, and a
document it had to cut there is skipped rather than indexed half-read.

Kept: headings, paragraphs, list items (``- …``), table rows (``| a | b |``), ``pre`` as
code. Dropped: scripts, styles, navigation chrome (``nav``), forms and embedded objects.
A page without an ``h1`` gets its ``<title>`` as the top heading.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import Document, SkipFile, decode_text, looks_binary
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "HTML"

_DECLARES_ENCODING = re.compile(rb"<meta[^>]+charset|<\?xml[^>]+encoding", re.I)

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
SKIPPED = {
    "head",
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "svg",
    "math",
    "iframe",
    "object",
    "embed",
    "form",
    "button",
    "select",
}
BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "aside",
    "header",
    "footer",
    "blockquote",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "hr",
    "br",
    "body",
    "html",
}


def parse(name: str, data: bytes) -> Document:
    root = parse_tree(data)
    writer = MarkdownWriter()
    title_element = root.find(".//title")
    title = clean(title_element.text_content()) if title_element is not None else ""
    if title and root.find(".//h1") is None:
        writer.heading(1, title)
    write_markdown(root, writer)
    return Document(kind="markdown", title=PurePath(name).stem, text=writer.text())


def parse_tree(data: bytes) -> Any:
    """Bytes → an lxml element tree; a document libxml2 had to truncate is skipped."""
    import lxml.etree
    import lxml.html

    encoding = None
    if _DECLARES_ENCODING.search(data[:4096]) and not looks_binary(data):
        pass  # libxml2 honours the declared encoding
    else:
        # Otherwise libxml2 assumes Latin-1; decode as every text file is (BOM, else UTF-8).
        encoding = "utf-8"
        data = decode_text(data)[0].encode("utf-8")
    parser = lxml.html.HTMLParser(encoding=encoding, remove_comments=True, remove_pis=True)
    try:
        root = lxml.etree.fromstring(data, parser)
    except lxml.etree.XMLSyntaxError as exc:
        raise SkipFile(f"unreadable HTML ({exc})") from None
    for error in parser.error_log:
        if error.type_name == "ERR_RESOURCE_LIMIT":  # libxml2 stopped reading part-way
            if "depth" in error.message:
                raise SkipFile("HTML nested deeper than the parser's limit (256 elements)")
            raise SkipFile(f"HTML beyond the parser's limits ({error.message.strip()})")
    if root is None:
        raise SkipFile("HTML has no content")
    return root


class _Walker:
    """Inline text gathered into the current block; a block boundary writes it out."""

    def __init__(self, writer: MarkdownWriter, shift: int) -> None:
        self.writer = writer
        self.shift = shift
        self.inline: list[str] = []
        self.prefix = ""
        self.cells: list[str] | None = None

    def add(self, text: str | None) -> None:
        if text:
            self.inline.append(text)

    def flush(self) -> None:
        text = clean("".join(self.inline))
        self.inline = []
        if not text:
            return
        if self.cells is not None:
            self.cells.append(text)
        elif self.prefix:
            self.writer.line(self.prefix + text)
        else:
            self.writer.paragraph(text)
        self.prefix = ""

    def start(self, tag: str, element: Any) -> bool:
        """Handle an opening tag; False when its subtree has been consumed here."""
        if tag in SKIPPED:
            return False
        if tag in HEADINGS or tag == "pre":
            self.flush()
            if tag == "pre":
                self.writer.code(element.text_content())
            else:
                self.writer.heading(HEADINGS[tag] + self.shift, element.text_content())
            return False
        if tag == "li":
            self.flush()
            self.prefix = "- "
        elif tag == "tr":
            self.flush()
            self.cells = []
        elif tag in ("td", "th") or tag in BLOCKS:
            self.flush()
        self.add(element.text)
        return True

    def end(self, tag: str) -> None:
        if tag in ("td", "th", "li") or tag in BLOCKS:
            self.flush()
        elif tag == "tr" and self.cells is not None:
            self.flush()
            row, self.cells = self.cells, None
            if row:
                self.writer.line("| " + " | ".join(row) + " |")
        if tag in ("ul", "ol", "table"):
            self.writer.end_lines()


def write_markdown(root: Any, writer: MarkdownWriter, shift: int = 0) -> None:
    """Walk the tree under `root`, writing its text and its headings `shift` levels down."""
    import lxml.etree

    walker = _Walker(writer, shift)
    events = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, element in events:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        tag = tag.rpartition("}")[2]  # XHTML: {namespace}tag
        if event == "start":
            if not walker.start(tag, element):
                events.skip_subtree()  # its "end" event still comes, and with it the tail
            continue
        walker.end(tag)
        walker.add(element.tail)
    walker.flush()
