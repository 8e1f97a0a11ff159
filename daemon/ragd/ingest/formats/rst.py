"""reStructuredText (``.rst``) through docutils: section titles become heading paths.

docutils is the reference implementation of the format (Sphinx builds on it), so section
levels come out exactly as the author's title adornments define them. It runs with
everything that could reach outside the file turned off: no ``include`` or ``raw`` file
insertion, no config files, no messages on stderr. Sphinx's directives and roles, which
docutils does not know, are registered first (`formats.sphinx`), so their bodies are read as
text: a `.. py:data::` is its signature and description, a `.. versionchanged::` its label
and note, a `` :class:`~a.B` `` the name `B`. An admonition docutils knows (`note`,
`warning`) keeps its label too.

Every block keeps the lines of the file it was read from: docutils records the line each
element starts on (a section title's is the line of its underline). A block runs from
that line to the last line of the last paragraph or code in it; an element docutils gave
no line (a table row) takes the lines of the elements inside it, else the line of the
nearest element around it that has one (so a generated table of contents is placed at its
directive); text with no line anywhere leaves the chunk holding it without lines. What a
substitution (`|name|`) puts in a paragraph is placed with that paragraph, not at its
definition.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from typing import Any

from ragd.ingest.document import UNPLACED, Document, SkipFile, decode_text, split_lines
from ragd.ingest.formats.line_reader import markdown_document
from ragd.ingest.formats.mail_links import unshown_address, with_address
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.sphinx import LABELS, register_unknown

FORMAT = "reStructuredText"
# docutils' own guard against slow inline parsing (its default): it drops a whole document
# holding a longer line, which would read as "has no text" unless we say why first.
MAX_LINE_CHARS = 10_000
# A section adornment: one punctuation character repeated (docutils' own rule).
_ADORNMENT = re.compile(r"^\s*([!-/:-@\[-`{-~])\1+\s*$")

SETTINGS = {
    "file_insertion_enabled": False,  # `.. include::` and `:file:` would read other files
    "raw_enabled": False,
    "_disable_config": True,
    "doctitle_xform": False,  # keep the top title a section, so it heads the path
    # `.. sectnum::` then numbers that title too ("1.5.1" where the page shows "5.1"):
    # docutils only records what was asked, and _NumbersBelowTitle numbers as it would.
    "sectnum_xform": False,
    # Keep the fields a file opens with (`:Author: Ann`) a field list: docutils' docinfo
    # rebuilds them without their lines or names; read as fields they are "Author: Ann"
    # at their own line, like any other field.
    "docinfo_xform": False,
    "report_level": 5,
    "halt_level": 5,
    "input_encoding": "unicode",
    "line_length_limit": MAX_LINE_CHARS,
}


def parse(name: str, data: bytes) -> Document:
    from docutils.core import publish_doctree

    text, notes = decode_text(data)
    lines = split_lines(text)
    refuse_long_lines(lines)
    register_unknown(text)
    writer = MarkdownWriter()
    with _numbers_as_long_as_a_line():
        overrides = dict(SETTINGS, warning_stream=io.StringIO())
        tree = publish_doctree(text, reader=_reader(), settings_overrides=overrides)
        _drop_messages(tree)
        _drop_sphinx_metadata(tree)
        _show_mail_addresses(tree)
        _write(tree, writer, 0, lines)
    return markdown_document(name, notes, writer)


def _reader() -> Any:
    """docutils' standalone reader, with the section numbering of `_numbers_below_title`
    and substitutions placed where they are used (`_unplace_substitution_definitions`)."""
    from docutils.readers.standalone import Reader
    from docutils.transforms import Transform

    class NumbersBelowTitle(Transform):
        # After docutils' SectNum (710) recorded the directive's options, before Contents
        # (720) copies the titles, numbers included, into a `.. contents::` table.
        default_priority = 715

        def apply(self) -> None:
            _numbers_below_title(self.document)

    class DefinitionsUnplaced(Transform):
        # Just before docutils' Substitutions (220) copies each definition's contents to
        # where it is used.
        default_priority = 219

        def apply(self) -> None:
            _unplace_substitution_definitions(self.document)

    class RagdReader(Reader):  # type: ignore[misc]
        def get_transforms(self) -> list[Any]:
            return [*super().get_transforms(), NumbersBelowTitle, DefinitionsUnplaced]

    return RagdReader()


def _unplace_substitution_definitions(document: Any) -> None:
    """Forget the lines of what substitution definitions hold. docutils replaces each
    `|name|` with a copy of its definition's contents, lines and all: the image of
    `.. |EXAMPLE| image::` on line 540 of docutils' demo.txt put the paragraph on line 89
    that shows it at lines 89–540, most of the file. Without a line of its own the copy
    is placed by the block it lands in; the definition itself is never text."""
    from docutils import nodes

    for definition in document.findall(nodes.substitution_definition):
        for element in definition.findall(nodes.Element, include_self=False):
            element.line = None


def _numbers_below_title(document: Any) -> None:
    """Number the sections as docutils does for `.. sectnum::`, from below the title and
    subtitle it would promote (its DocTitle's own test: a lone section, then a lone
    section inside that), which this reader keeps as sections (`doctitle_xform` off)."""
    from docutils.transforms.frontmatter import DocTitle
    from docutils.transforms.parts import SectNum

    settings = document.settings
    if not hasattr(settings, "sectnum_start"):  # no `.. sectnum::` in the file
        return
    root = document
    promoter = DocTitle(document)
    for _title_then_subtitle in range(2):
        section, _ = promoter.candidate_index(root)
        if section is None:
            break
        root = section
    numbering = SectNum(document)
    depth = settings.sectnum_depth
    numbering.maxdepth = sys.maxsize if depth is None else depth
    numbering.startvalue = settings.sectnum_start
    numbering.prefix = settings.sectnum_prefix
    numbering.suffix = settings.sectnum_suffix
    numbering.update_section_numbers(root)


@contextlib.contextmanager
def _numbers_as_long_as_a_line() -> Iterator[None]:
    """docutils reads a list's number with int() (and writes the next one with str()):
    Python refuses a number over 4,300 digits, its guard against the quadratic cost of
    converting untrusted text, and that error skipped the whole file. No line docutils
    reads here is longer than MAX_LINE_CHARS (`refuse_long_lines`), so numbers that long
    are allowed while it parses: ≈ 2 ms for the longest, in the parse worker."""
    before = sys.get_int_max_str_digits()
    if before:  # 0: no limit
        sys.set_int_max_str_digits(max(before, MAX_LINE_CHARS + 1))  # + 1: the next number
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def refuse_long_lines(lines: list[str], first: int = 1) -> None:
    """SkipFile naming the first line docutils would not read (`first`: the file's line
    number of `lines[0]`, for an rst block inside another file)."""
    for number, line in enumerate(lines, start=first):
        if len(line) > MAX_LINE_CHARS:
            raise SkipFile(
                f"{FORMAT} line {number} is {len(line):,} characters long "
                f"(docutils reads none of a file with a line over {MAX_LINE_CHARS:,})"
            )


def _drop_messages(tree: Any) -> None:
    """Remove docutils' own diagnostics from the tree. Sphinx-only markup (`:ref:`,
    `.. versionadded::`) makes docutils insert messages such as `(INFO/1) No role entry for
    "ref"` next to the text; `astext()` of a list item or a field would index them as if the
    author had written them (a quarter of the chunks of real Sphinx sources did)."""
    from docutils import nodes

    for message in list(tree.findall(nodes.system_message)):
        kept = _author_text(message)
        if kept:
            message.replace_self(kept)
        else:
            message.parent.remove(message)


# File-wide settings Sphinx reads from the fields a file opens with and never shows
# (`:orphan:` alone became a chunk "orphan" in 47 files of the pytest, Pyramid and trio docs).
SPHINX_METADATA = frozenset({"orphan", "tocdepth", "nocomments", "nosearch"})


def _drop_sphinx_metadata(tree: Any) -> None:
    """Remove Sphinx's file-wide settings from the field list a file opens with (what
    docutils would make its docinfo); bibliographic fields such as `:Author:` stay."""
    from docutils import nodes

    index = tree.first_child_not_matching_class(nodes.PreBibliographic)
    opening = tree[index] if index is not None else None
    if not isinstance(opening, nodes.field_list):
        return
    for field in [c for c in opening.children if isinstance(c, nodes.field)]:
        if field[0].astext().strip().lower() in SPHINX_METADATA:
            opening.remove(field)
    if not opening.children:
        tree.remove(opening)


def _show_mail_addresses(tree: Any) -> None:
    """A `mailto:` reference is followed by its address (`formats.mail_links`): every block
    below reads its text with `astext()`, which holds a reference's text only."""
    from docutils import nodes

    for reference in list(tree.findall(nodes.reference)):
        address = unshown_address(reference.get("refuri"), reference.astext())
        if address is None:
            continue
        parent = reference.parent
        after = parent.index(reference) + 1
        while after < len(parent) and isinstance(parent[after], nodes.target):
            after += 1  # `text <mailto:…>`_ defines a target beside the reference: no text
        if after < len(parent) and isinstance(parent[after], nodes.Text):
            parent[after] = nodes.Text(with_address(parent[after].astext(), address))
        else:
            parent.insert(after, nodes.Text(with_address("", address)))


def _author_text(message: Any) -> list[Any]:
    """The author's own text a diagnostic carries: a table docutils cannot parse (a cell
    running into the column margin, as in Celery's settings table) is dropped from the
    tree and kept only inside the error, as its source lines; those are indexed as a
    code block rather than lost. A section title inside a directive (Sphinx reads one in
    `.. only::`, docutils does not) is kept as a paragraph."""
    from docutils import nodes

    said = message[0].astext() if message.children else ""
    if said.startswith("Unexpected section title"):
        return _title_text(message)
    if not said.startswith("Malformed table."):
        return []
    blocks = [b.deepcopy() for b in message.findall(nodes.literal_block)]
    for block in blocks:  # the message's line is the table's last (its bottom border)
        if isinstance(message.line, int):
            block.line = max(1, message.line - block.astext().count("\n"))
    return blocks


def _title_text(message: Any) -> list[Any]:
    """A misplaced section title's words, without its adornment lines, as a paragraph at
    the title's line (the message's line is that of the underline)."""
    from docutils import nodes

    source = "".join(b.astext() for b in message.findall(nodes.literal_block))
    words = [line.strip() for line in source.splitlines() if not _ADORNMENT.match(line)]
    words = [line for line in words if line]
    if not words:
        return []  # a misplaced transition (`-----`): no text
    paragraph = nodes.paragraph(text=" ".join(words))
    line = message.line if isinstance(message.line, int) else message.get("line")
    if isinstance(line, int):
        paragraph.line = max(1, line - len(words))
    return [paragraph]


def _locate(writer: MarkdownWriter, node: Any, source: list[str]) -> None:
    """What is written next comes from the lines `node` spans (`UNPLACED` when unknown)."""
    from docutils import nodes

    spans = [
        _span(n, source)
        for n in node.findall(nodes.Element)
        if isinstance(n.line, int) and not isinstance(n, nodes.title)
    ]
    if not spans:  # a footnote's label: the line of the nearest element around it
        above = node.parent
        while above is not None and not isinstance(above.line, int):
            above = above.parent
        spans = [_span(above, source)] if above is not None else []
    if spans:
        writer.at = min(first for first, _ in spans)
        writer.until = max(last for _, last in spans)
    else:  # nothing to place (an empty table header) or no line anywhere to place it at
        writer.at, writer.until = (UNPLACED if node.astext().strip() else None), None


def _span(node: Any, source: list[str]) -> tuple[int, int]:
    """First and last line of an element docutils gave a line, kept inside the file."""
    from docutils import nodes

    newlines = node.rawsource.count("\n") if isinstance(node, nodes.TextElement) else 0
    first, last = node.line, node.line + newlines  # a code block's: its first line (sphinx)
    return max(1, min(first, len(source))), max(1, min(last, len(source)))


def _locate_title(writer: MarkdownWriter, title: Any) -> None:
    """A title's line is that of its underline; its text is on the line(s) above."""
    line = title.line if isinstance(title.line, int) else None
    writer.at = writer.until = line
    if line is not None:
        writer.at = max(1, line - 1 - title.rawsource.count("\n"))
        writer.until = max(writer.at, line - 1)


def _write(node: Any, writer: MarkdownWriter, level: int, source: list[str]) -> None:
    from docutils import nodes

    # Titles are written with their section; the rest is markup, not text.
    dropped = (
        nodes.title,
        nodes.system_message,
        nodes.comment,
        nodes.substitution_definition,
        nodes.target,
        nodes.raw,
    )

    for child in node.children:
        if isinstance(child, nodes.title) and not isinstance(node, nodes.section):
            _locate(writer, child, source)  # an admonition's, a topic's or a sidebar's title
            writer.paragraph(clean(child.astext()))
        elif isinstance(child, nodes.section):
            titles = [c for c in child.children if isinstance(c, nodes.title)]
            if titles:
                _locate_title(writer, titles[0])
            writer.heading(level + 1, titles[0].astext() if titles else "")
            _write(child, writer, level + 1, source)
        elif isinstance(child, dropped):
            continue
        elif isinstance(child, nodes.literal_block | nodes.doctest_block):
            _locate(writer, child, source)
            classes = [c for c in child.get("classes", []) if c != "code"]
            writer.code(child.astext(), classes[0] if classes else "")
        elif isinstance(child, nodes.bullet_list | nodes.enumerated_list):
            for item, marker in zip(child.children, _markers(child), strict=False):
                _locate(writer, item, source)
                writer.line(marker + " " + clean(item.astext()))
            writer.end_lines()
        elif isinstance(child, nodes.table):
            for title in (c for c in child.children if isinstance(c, nodes.title)):
                _locate(writer, title, source)  # a `list-table`'s or `csv-table`'s caption
                writer.paragraph(clean(title.astext()))
            for row in child.findall(nodes.row):
                _locate(writer, row, source)
                writer.line("| " + " | ".join(clean(e.astext()) for e in row.children) + " |")
            writer.end_lines()
        elif isinstance(child, nodes.definition_list_item | nodes.field):
            parts = [clean(c.astext()) for c in child.children]
            _locate(writer, child, source)
            writer.paragraph(": ".join(p for p in parts if p))
        elif isinstance(child, nodes.TextElement | nodes.Text):
            if isinstance(child, nodes.Element):
                _locate(writer, child, source)
            writer.paragraph(_signature(child) or clean(child.astext()))
        elif isinstance(child, nodes.Admonition) and not isinstance(child, nodes.admonition):
            _locate(writer, child, source)  # `note`, `warning`: their label, then their body
            writer.paragraph(LABELS.get(child.tagname, child.tagname.capitalize()) + ":")
            _write(child, writer, level, source)
        elif isinstance(child, nodes.Element):
            _write(child, writer, level, source)  # block quotes, admonitions, lists of terms


_ROMAN = (
    (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
    (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
)  # fmt: skip


def _markers(node: Any) -> list[str]:
    """Each item's marker as the built page shows it: `-` for a bullet list, the item's
    number for an enumerated one (`3.`, `(c)`, `iv)`), since "step 3" is part of the text
    a reader refers to."""
    from docutils import nodes

    count = len(node.children)
    if not isinstance(node, nodes.enumerated_list):
        return ["-"] * count
    start = int(node.get("start", 1))
    kind = node.get("enumtype", "arabic")
    prefix, suffix = node.get("prefix", ""), node.get("suffix", ".")
    return [prefix + _ordinal(n, kind) + suffix for n in range(start, start + count)]


def _ordinal(number: int, kind: str) -> str:
    if kind.endswith("alpha") and 1 <= number <= 26:
        letter = chr(ord("a") + number - 1)
        return letter.upper() if kind.startswith("upper") else letter
    if kind.endswith("roman") and number >= 1:
        roman = ""
        for value, letters in _ROMAN:
            while number >= value:
                roman, number = roman + letters, number - value
        return roman.upper() if kind.startswith("upper") else roman
    return str(number)


def _signature(node: Any) -> str:
    """A Sphinx object's signature line, as code (empty for any other paragraph)."""
    if "signature" not in node.get("classes", []) if hasattr(node, "get") else True:
        return ""
    text = clean(node.astext())
    return text if "`" in text else f"`{text}`"
