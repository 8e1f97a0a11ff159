"""The walk shared by the XML documentation readers (DocBook, Mallard): an element tree
→ Markdown blocks, with the vocabulary left to each reader.

Inline text is gathered into the current block; an element the reader names a block ends
the text before it and after it. A list item's first paragraph carries its marker, a term
or an admonition's label leads the paragraph after it ("Note: …", "Posted: …"), a table
row's cells are one line, code is a fence. Inside a table cell or a footnote, blocks do not
end the text (`run_in`): a cell is one line. Each reader dispatches on element names
(`XmlWalker.walk`); an element it does not know is inline (its text, its children's).

The walk recurses once per element level: libxml2 stops at 256 levels (`huge_tree` off),
so Python's stack is never at risk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import Any, ClassVar

from ragd.ingest.chunking import HEADING_MAX_CHARS
from ragd.ingest.document import UNPLACED, Document
from ragd.ingest.formats.mail_links import unshown_address
from ragd.ingest.formats.markdown import MarkdownWriter, clean

MAX_LIST_NESTING = 16  # deeper lists are written at this indent (as HTML's reader does)
XML_ID = "{http://www.w3.org/XML/1998/namespace}id"


def _cut(text: str) -> str:
    """A referenced title as a heading is kept: at most HEADING_MAX_CHARS."""
    if len(text) <= HEADING_MAX_CHARS:
        return text
    return text[: HEADING_MAX_CHARS - 1].rstrip() + "…"


def local(element: Any) -> str:
    """An element's name without its namespace (`{http://docbook.org/ns/docbook}para` → para)."""
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def with_target(text: str, target: str | None) -> str:
    """A link's text, and where it leads after it when the text does not show it: a
    `mailto:` address (as every reader writes one), a web address (DocBook's `ulink`:
    "the GnuCash wiki (https://wiki.gnucash.org)"); the bare target when there is no text."""
    target = (target or "").strip()
    if not target or target.startswith("#"):
        return text
    if not text.strip():
        return target.removeprefix("mailto:")
    address = unshown_address(target, text)
    if address is not None:
        return f"{text} ({address})"
    if target.lower().startswith("mailto:") or target in text:
        return text
    return f"{text} ({target})"


def ids_of(root: Any) -> dict[str, Any]:
    """The elements under `root` (itself included) that have an id (`id` or `xml:id`), by
    id; the first of two with one id."""
    ids: dict[str, Any] = {}
    for element in root.iter():
        key = (element.get("id") or element.get(XML_ID)) if isinstance(element.tag, str) else None
        if key:
            ids.setdefault(key, element)
    return ids


class XmlWalker:
    """Gathers an element tree's text into a MarkdownWriter. Subclasses name their
    elements in `handlers` (tag → method) and `blocks`; `skipped` are not text."""

    blocks: frozenset[str] = frozenset()
    skipped: frozenset[str] = frozenset()
    joins: ClassVar[
        dict[str, str]
    ] = {}  # an element whose children are joined by a mark (`+` of keys)
    shortcut = ""  # the child of such an element shown in parentheses after it

    def __init__(self, writer: MarkdownWriter, lines: int, root: Any) -> None:
        self.writer = writer
        self.ids = ids_of(root)  # the targets of references, by id
        self.resolving: set[str] = set()  # keys whose titles are being shown
        self.shown: dict[str, str] = {}  # key → what a reference to it shows
        self.lines = lines  # the file's line count: a line past it came from a DTD
        self.handlers: dict[str, Callable[[Any], None]] = {}
        self.inline: list[str] = []
        self.line: int | None = None  # the line the gathered text starts on
        self.lead = ""  # a label or term waiting for the next paragraph
        self.condition = ""  # what the next paragraph is shown under ("If gnome-classic: ")
        self.marker: str | None = None  # a list item's marker waiting for its first line
        self.items = 0  # list items open around the walk
        self.run_in = 0  # inside a cell or footnote: blocks do not end the text
        self.cells: list[str] | None = None
        self.level = 0  # sections open around the walk

    def read(self, root: Any, name: str, notes: list[str]) -> Document:
        """The whole tree from `root`, as the Document of the file `name`."""
        self.walk(root)
        self.end_text()
        writer = self.writer
        # A file of headings alone has no text (the reader's "no text" skip says so).
        return Document(
            kind="markdown",
            title=PurePath(name).stem,
            text=writer.text() if len(writer.blocks) > writer.headings else "",
            notes=notes,
            located="lines",
            origins=writer.origins(),
            reaches=writer.reaches(),
        )

    def items_of(self, element: Any, numbered: bool, items: frozenset[str]) -> None:
        """A list: each child named in `items` an item ("- " or "1. "), the rest walked."""
        self.end_text()
        number = 0
        for child in element:
            if local(child) in items:
                number += 1
                self.item(child, f"{number}. " if numbered else "- ")
            elif isinstance(child.tag, str):
                self.walk(child)
        self.end_text()

    # -- references -----------------------------------------------------------------

    def title_element(self, target: Any) -> Any:
        """The element whose text a reference to `target` shows (its title), or None."""
        return None

    def target(self, key: str) -> Any:
        """The element a reference to `key` points to, or None."""
        return self.ids.get(key)

    def title_of(self, key: str) -> str:
        """What a reference to `key` shows: its target's `xreflabel` or title, else the
        key itself (a target nowhere to be found). A title shown for a reference shows the
        references inside it by their targets' own words, not by their titles' references
        in turn: titles that referred on to each other doubled the text at every level
        (18 sections referring twice to the next: 6 MB out of 2 KB; 30 never ended) or
        recursed past Python's limit (a chain of 200 was "nested too deeply"). Each key's
        title is worked out once, and shown up to HEADING_MAX_CHARS, as a heading is."""
        target = self.target(key)
        if target is None:
            return key
        if target.get("xreflabel"):
            return str(target.get("xreflabel"))
        title = self.title_element(target)
        if self.resolving:  # inside a title shown for another reference: its own words
            words = "".join(title.itertext()) if title is not None else ""
            return _cut(clean(words)) or key
        if key not in self.shown:
            self.resolving.add(key)
            try:
                self.shown[key] = _cut(self.captured(title) if title is not None else "") or key
            finally:
                self.resolving.discard(key)
        return self.shown[key]

    def joined(self, element: Any) -> None:
        """A key combination "Ctrl+N", a menu path "File > New File (Ctrl+N)"."""
        parts, shortcut = [], ""
        for child in element:
            if local(child) == self.shortcut:
                shortcut = f" ({self.captured(child)})"
            elif isinstance(child.tag, str) and local(child) not in self.skipped:
                parts.append(self.captured(child))
        mark = self.joins[local(element)]
        self.add(mark.join(p for p in parts if p) + shortcut, element)

    # -- the walk ---------------------------------------------------------------------

    def walk(self, element: Any) -> None:
        tag = local(element)
        if tag in self.skipped or not tag:
            return
        handler = self.handlers.get(tag)
        if handler is not None:
            handler(element)
        elif tag in self.blocks:
            self.block(element)
        else:
            self.children(element)

    def children(self, element: Any, skip: Callable[[Any], bool] | None = None) -> None:
        """The element's text, its children walked, each one's tail after it."""
        self.add(element.text, element)
        for child in element:
            if isinstance(child.tag, str) and not (skip and skip(child)):
                self.walk(child)
            self.add(child.tail, element)

    def block(self, element: Any, skip: Callable[[Any], bool] | None = None) -> None:
        self.end_text(element)
        if self.line is None and not self.run_in:
            # The block's own line: an entity's elements carry lines of the entity's text.
            self.line = self._line_of(element)
        self.children(element, skip)
        self.end_text(element)

    def add(self, text: str | None, element: Any = None) -> None:
        if not text:
            return
        if self.line is None and text.strip() and element is not None:
            self.line = self._line_of(element)
        self.inline.append(text)

    def _line_of(self, element: Any) -> int:
        line = element.sourceline
        return line if isinstance(line, int) and 0 < line <= self.lines else UNPLACED

    def captured(self, element: Any, skip: Callable[[Any], bool] | None = None) -> str:
        """An element's text as one line (a title, a term), walked like any inline text."""
        saved, line = self.inline, self.line
        self.inline = []
        self.run_in += 1
        self.children(element, skip)
        self.run_in -= 1
        text = clean("".join(self.inline))
        self.inline, self.line = saved, line
        return text

    # -- blocks -----------------------------------------------------------------------

    def end_text(self, element: Any = None) -> None:
        """A block boundary: the text gathered so far is written (in a cell: a space)."""
        if self.run_in:
            self.inline.append(" ")
            return
        text = clean("".join(self.inline))
        self.inline = []
        if text:
            self.write(self.lead + text)
            self.lead = ""
        self.line = None

    def write(self, text: str) -> None:
        text, self.condition = self.condition + text, ""
        self.writer.at, self.writer.until = (self.line or UNPLACED), None
        indent = 2 * min(max(self.items - 1, 0), MAX_LIST_NESTING)
        if self.marker is not None:
            self.writer.line(self.marker + text, indent=indent)
            self.marker = None
        elif self.items:
            self.writer.line(text, indent=indent + 2)
        else:
            self.writer.end_lines()
            self.writer.paragraph(text)

    def write_pending(self) -> None:
        """A marker or lead with no paragraph of its own (an item that is only a list)."""
        if self.lead or self.marker is not None:
            lead, self.lead = self.lead.rstrip(": "), ""
            if lead:
                self.write(lead)
            self.marker = None

    def heading(self, text: str, element: Any) -> None:
        self.end_text()
        self.lead, self.marker = "", None
        self.writer.at, self.writer.until = self._line_of(element), None
        self.writer.heading(max(self.level, 1), text)

    def section(self, element: Any, title: str, skip: Callable[[Any], bool]) -> None:
        """A section headed by `title` (none: its text goes on under the parent's)."""
        self.end_text()
        self.level += 1
        if title:
            self.heading(title, element)
        self.children(element, skip)
        self.end_text()
        self.level -= 1

    def item(self, element: Any, marker: str, skip: Callable[[Any], bool] | None = None) -> None:
        """A list item: its first paragraph written after `marker`."""
        if self.run_in:
            self.children(element, skip)
            self.inline.append(" ")
            return
        self.end_text()
        self.write_pending()
        self.items += 1
        self.marker = marker
        self.children(element, skip)
        self.end_text()
        self.write_pending()
        self.items -= 1

    def conditional(self, element: Any, label: str, walk: Callable[[Any], None]) -> None:
        """`element` walked with its first paragraph led by `label` (a Mallard branch's
        condition); inside a line (a cell, a sentence) it is in parentheses with its words:
        "Press (If gnome-classic: the red) button"."""
        if self.run_in or self.in_line(element):
            self.add(f"({label}: ", element)
            walk(element)
            while self.inline and not self.inline[-1].strip():
                self.inline.pop()  # a block's end inside the line: no space before ")"
            self.inline[-1] = self.inline[-1].rstrip()
            self.add(") ", element)
            return
        self.end_text()
        self.condition = f"{label}: "
        walk(element)
        self.end_text()
        self.condition = ""

    def in_line(self, element: Any) -> bool:
        """Whether `element` stands inside a line of text rather than between blocks."""
        return False

    def led(self, element: Any, lead: str, skip: Callable[[Any], bool] | None = None) -> None:
        """A block whose first paragraph starts with `lead` (a label, a term)."""
        self.end_text()
        self.write_pending()
        self.lead = lead
        self.children(element, skip)
        self.end_text()
        self.write_pending()

    def row(self, element: Any) -> None:
        """A table row: its cells' text on one line."""
        if self.cells is not None:  # a table in a cell: its rows are the cell's text
            self.children(element)
            return
        self.end_text()
        self.write_pending()
        self.cells = []
        self.line = self._line_of(element)
        for child in element:
            if isinstance(child.tag, str) and local(child) not in self.skipped:
                self.cells.append(self.captured(child))
        cells, self.cells = self.cells, None
        if any(cells):
            self.writer.at, self.writer.until = (self.line or UNPLACED), None
            indent = 2 * min(self.items, MAX_LIST_NESTING)
            self.writer.line("| " + " | ".join(cells) + " |", indent=indent)
        self.line = None

    def code(self, element: Any, text: str, language: str = "") -> None:
        if self.run_in:
            self.inline.append(text)
            return
        self.end_text()
        self.write_pending()
        self.writer.end_lines()
        self.writer.at, self.writer.until = self._line_of(element), None
        self.writer.code(text, language)

    def raw_text(self, element: Any) -> str:
        """An element's text as written (code: line breaks kept), skipped elements left out."""
        parts = [element.text or ""]
        for child in element:
            if isinstance(child.tag, str) and local(child) not in self.skipped:
                parts.append(self.raw_text(child))
            parts.append(child.tail or "")
        return "".join(parts)
