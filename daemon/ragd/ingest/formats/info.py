"""GNU Info manuals (`coreutils.info.gz`; split ones as `find.info-1.gz`, `find.info-2.gz`
beside `find.info.gz`; the `dir` file) → Markdown, one heading per section.

An Info file is nodes separated by the `\\x1f` character, each opening with a header line
(`File: coreutils.info,  Node: ls invocation,  Next: …,  Up: …`), and after them the
tables an Info reader navigates by (`Indirect:`, `Tag Table:`, `End Tag Table`, the local
variables): only the nodes are text. What comes before the first node is makeinfo's
banner, the copyright notice the Top node repeats and the `dir` entries: dropped too, so
a split manual's main file (its indirect table and that banner) is a file with no text,
and each part file is read on its own with its headings (`info_node` writes a node).

The manual's name heads the page (`# coreutils`), and its underlined titles are the
levels under it: `*` a chapter (`##`), `=` a section, `-` a subsection, `.` a
subsubsection. gzip is undone by the loader (`ingest.gzipped`, within the daemon's cap,
as for `NEWS.gz`), so this module reads plain bytes and writes at most a few characters
more than it reads (headings' `#`, list dashes, fences); the loader checks the cap on it.

A file named like one but holding no node and no Info table (a Drupal module's
`foo.info`, an unrelated file called `dir`) is read as plain text.
"""

from __future__ import annotations

import codecs
import re
from pathlib import PurePath

from ragd.core.no_text import has_no_text
from ragd.ingest.document import (
    Document,
    SkipFile,
    decode_keeping_nul,
    looks_binary,
    split_lines,
)
from ragd.ingest.formats.info_node import Node, NodeWriter

FORMAT = "GNU Info manual"
SEPARATOR = "\x1f"  # opens every node and table
DIR_NAMES = ("dir", "dir.old")  # the directory node install-info maintains, and its backup
MAX_PART = 999  # `find.info-12`: the highest part number read by name
# The coding the manual declares in its local variables (`coding: iso-8859-15`, ed's),
# searched for in the file's last bytes only, where makeinfo writes it.
_CODING = re.compile(rb"\ncoding: {0,8}([A-Za-z0-9_.-]{1,40})")
CODING_TAIL = 4096
# makeinfo's in-band markers: `\0\b[index\0\b]` opens an index node, `\0\b[image …\0\b]`
# stands for a picture (the figure's caption follows it as text). Never text.
MARKER_BYTES = b"\x00\x08"


def is_info_name(name: str) -> bool:
    """`coreutils.info`, `find.info-2`, either gzipped, and `dir`: names of Info files."""
    base = PurePath(name).name.lower()
    base = base.removesuffix(".gz")
    if base in DIR_NAMES or base.endswith(".info"):
        return True
    stem, dash, part = base.rpartition("-")
    return bool(dash) and stem.endswith(".info") and _part_number(part)


def _part_number(part: str) -> bool:
    return part.isascii() and part.isdigit() and 0 < int(part[:4]) <= MAX_PART


def manual_name(name: str) -> str:
    """`find.info-1.gz` → `find`: the manual a file belongs to, for its top heading."""
    base = PurePath(name).name.removesuffix(".gz")
    stem, dash, part = base.rpartition("-")
    if dash and stem.lower().endswith(".info") and _part_number(part):
        base = stem
    return base[: -len(".info")] if base.lower().endswith(".info") else base


def parse(name: str, data: bytes) -> Document:
    text, notes = _decode(data)
    lines = split_lines(text)
    nodes, separators = _segments(lines)
    title = manual_name(name)
    if not separators:  # no Info structure at all: someone's `foo.info` or `dir`
        return Document(kind="text", title=title, text=text, notes=notes, located="lines")
    writer = NodeWriter(title)
    for node in nodes:
        writer.write(node)
    if not writer.written:  # a split manual's indirect table, a banner, empty nodes
        raise SkipFile(has_no_text(FORMAT))
    out = writer.out
    return Document(
        kind="markdown",
        title=title,
        text=out.text(),
        notes=notes,
        located="lines",
        origins=out.origins(),
        reaches=out.reaches(),
    )


def _decode(data: bytes) -> tuple[str, list[str]]:
    """The text in the coding the manual declares (else UTF-8, as makeinfo writes it),
    with makeinfo's markers left in (`info_node` reads and drops them): their NUL bytes
    do not make a manual binary."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode_keeping_nul(data)  # UTF-16 or UTF-32 by its BOM (not makeinfo's, but text)
    if looks_binary(data.replace(MARKER_BYTES, b"")):
        raise SkipFile("binary content (not text)")
    coding = "utf-8-sig"
    declared = _CODING.search(data[-CODING_TAIL:])
    if declared is not None and declared.group(1).lower() not in (b"utf-8", b"utf8"):
        coding = declared.group(1).decode("ascii")
    try:  # bytes.decode takes text encodings only (`rot13` is refused, as unknown ones)
        return data.decode(coding), []
    except LookupError:
        coding = "utf-8-sig"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode(coding), []
    except UnicodeDecodeError as exc:
        text = data.decode(coding, errors="replace")
        bad = text.count("\ufffd")
        return text, [f"invalid {coding} at byte {exc.start}: {bad} character(s) replaced"]


def _segments(lines: list[str]) -> tuple[list[Node], int]:
    """The nodes of the file, and how many `\\x1f` separators it has. A segment runs from
    one separator to the next; one that is not a node (the banner before the first
    separator, the tables after the nodes, anything unknown) is not text."""
    pieces: list[tuple[int, list[str]]] = []  # (0-based line it starts at, its lines)
    start, body = 0, []
    separators = 0
    for number, line in enumerate(lines):
        if SEPARATOR not in line:
            body.append(line)
            continue
        parts = line.split(SEPARATOR)
        separators += len(parts) - 1
        body.append(parts[0])
        pieces.append((start, body))
        pieces.extend((number, [part]) for part in parts[1:-1])  # `\x1f\x1f` on one line
        start, body = number, [parts[-1]]
    pieces.append((start, body))
    nodes: list[Node] = []
    for first_line, segment in pieces[1:]:  # pieces[0]: before the first separator
        at = _first_filled(segment)
        if at is None:
            continue
        header = segment[at].strip(" \t\f")
        if header.startswith("File:") and "Node:" in header:
            nodes.append(Node.from_header(header, first_line + at, segment[at + 1 :]))
    return nodes, separators


def _first_filled(segment: list[str]) -> int | None:
    """The first line with text: a separator may be followed by a form feed's line."""
    for at, line in enumerate(segment):
        if line.strip(" \t\f"):
            return at
    return None
