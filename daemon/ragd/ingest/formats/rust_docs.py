"""Rust source read as rustdoc shows it: the doc comments are the documentation.

A crate's user documentation is written in its doc comments, Markdown rendered by
rustdoc: the module's own (`//!` lines, `/*! … */`, usually a long page at the top of
`src/lib.rs` with `# Usage`, `# Syntax`, `## Grouping and flags`) and each item's (`///`
lines, `/** … */`, above its `fn`, `struct`, `impl`, …, with `# Examples`, `# Panics`).
Read as code they had no heading path, and the examples of a `/*! */` page, written at
column 0, were taken for the file's definitions (regex's `src/lib.rs`: 13 chunks headed
`fn main`, none "Syntax").

So, with the comment markers (`//!`, `///`, `/**`, a block's leading ` * `) taken off:

- the module docs are Markdown at the top of the file, their headings one level down
  (`# Syntax` → `## Syntax`, a level with the items, so the first item closes them);
  code between them and the first item gets a heading of its own when they wrote any
  (`module code (attributes, use)`), or it would be read as the last doc section's;
- an item's docs follow its heading (the signature, as for every language): its
  description, then the item's code, then the doc's own sections two levels down
  (`pub fn new > Examples`), so the code stays under the item and not its last section;
- lines inside a doc comment are never taken for definitions;
- everything else is code, as `code._write_by_pattern` reads other languages; `//` and
  `/* */` comments stay code. Doc comments inside an item's body (a method's in an
  `impl`, a field's) stay in its code.

The Markdown is the Markdown reader's: HTML comments out (`markdown_comments`), setext
titles as `#` lines (`setext`), fences and headings as the chunker finds them. A fence a
doc comment leaves open is closed where the comment ends, so it cannot swallow the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragd.ingest.chunking import Fences, atx_heading
from ragd.ingest.formats.markdown import MAX_LEVEL, MarkdownWriter
from ragd.ingest.markdown_comments import without_comments
from ragd.ingest.setext import underlined_to_atx

# Top-level definitions, matched at column 0; the matched text (whitespace folded) heads
# the section.
DEFINITION = re.compile(
    r"^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+)*"
    r"(?:(?:fn|struct|enum|trait|mod)\s+\w+|impl\b[^{;]*[^{;\s])"
)
# Items that head a section only when documented: a crate's undocumented constants and
# type aliases stay with the code around them, as before.
DOCUMENTED_ONLY = re.compile(
    r"^(?:pub(?:\([^)]*\))?\s+)?(?:const\s+\w+|static\s+(?:mut\s+)?\w+|type\s+\w+"
    r"|union\s+\w+|macro_rules!\s*\w+)"
)
_LINE_DOC = re.compile(r"[ \t]*(///(?!/)|//!)")
_BLOCK_DOC = re.compile(r"[ \t]*(/\*\*(?![*/])|/\*!)")
_ABOVE_ITEM = re.compile(r"[ \t]*(//(?!!)|/\*(?!!)|\*|#\[)")  # comments, outer attributes
_CODE_KIND = re.compile(r"(#!\[|#\[|pub(?:\([^)]*\))?\s+use\b|use\b|extern\s+crate\b|\w+)")
MODULE_SHIFT = 1  # `# Syntax` of the module docs → `## Syntax`
ITEM_LEVEL = 2
ITEM_SHIFT = 2  # `# Examples` of an item's docs → `### Examples`, under the item's `##`


@dataclass
class DocComment:
    """One doc comment: a run of `///` (or `//!`) lines, or one `/** */` (`/*! */`)."""

    inner: bool  # `//!`, `/*!`: the enclosing module's docs
    first: int  # its first line (0-based)
    text: list[str] = field(default_factory=list)  # one per source line, markers off

    @property
    def last(self) -> int:
        return self.first + len(self.text) - 1


def write_rust(lines: list[str], writer: MarkdownWriter) -> list[str]:
    """`lines` (a Rust file) into `writer`; returns notes (an HTML comment never closed)."""
    comments = doc_comments(lines)
    in_doc = {n for c in comments for n in range(c.first, c.last + 1)}
    outer = {n for c in comments if not c.inner for n in range(c.first, c.last + 1)}
    starts = _item_starts(lines, in_doc, outer)
    bounds = [first for first, _, _ in starts] + [len(lines)]
    notes: list[str] = []
    module = [c for c in comments if c.inner and c.last < bounds[0]]
    _write_top(lines, range(0, bounds[0]), module, writer, notes)
    for (first, line, heading), after in zip(starts, bounds[1:], strict=False):
        docs = [c for c in comments if not c.inner and first <= c.first and c.last < line]
        writer.heading(ITEM_LEVEL, heading)
        lead, rest = _doc_markdown(docs, ITEM_SHIFT, notes)
        _write_markdown(lead, writer)
        _write_code(lines, range(first, after), {n for c in docs for n in _span(c)}, writer)
        _write_markdown(rest, writer)
    return notes


def doc_comments(lines: list[str]) -> list[DocComment]:
    """The file's doc comments in order; a block's nested `/* */` counted as rustc does."""
    comments: list[DocComment] = []
    number = 0
    while number < len(lines):
        line = lines[number]
        block = _BLOCK_DOC.match(line)
        if block:
            end = _block_end(lines, number)
            if end is not None:
                inner = block.group(1) == "/*!"
                comments.append(DocComment(inner, number, _block_text(lines, number, end)))
                number = end + 1
                continue
        doc = _LINE_DOC.match(line)
        if doc:
            inner = doc.group(1) == "//!"
            last = comments[-1] if comments else None
            text = line[doc.end() :]
            if last and last.inner == inner and last.last == number - 1:
                last.text.append(text)
            else:
                comments.append(DocComment(inner, number, [text]))
        number += 1
    for comment in comments:
        if comment.text and _is_line_doc(lines[comment.first]):
            comment.text = _unindented(comment.text)
    return comments


def _is_line_doc(line: str) -> bool:
    return _LINE_DOC.match(line) is not None


def _block_end(lines: list[str], first: int) -> int | None:
    """The line closing the block comment opened on `first`, or None: never closed, or
    code after its `*/` (then it is read as code, nothing of that line lost)."""
    depth = 0
    for number in range(first, len(lines)):
        line = lines[number]
        depth += line.count("/*") - line.count("*/")
        if depth <= 0:
            return number if line.rstrip().endswith("*/") else None
    return None


def _block_text(lines: list[str], first: int, last: int) -> list[str]:
    """A block doc comment's lines without `/**`/`/*!`, `*/` and the ` * ` each line of
    its body opens with (when every one does, as rustdoc strips it), unindented."""
    text = [line for line in lines[first : last + 1]]
    opener = _BLOCK_DOC.match(text[0])
    text[0] = text[0][opener.end() :] if opener else text[0]  # type: ignore[union-attr]
    text[-1] = text[-1].rstrip()[:-2]
    body = text[1:]
    starred = [line for line in body if line.strip()]
    if starred and all(line.lstrip().startswith("*") for line in starred):
        body = [line.lstrip()[1:] if line.strip() else "" for line in body]
    return [text[0].strip(), *_unindented(body)]


def _unindented(text: list[str]) -> list[str]:
    """The lines less the indentation all the non-blank ones share (rustdoc's unindent)."""
    indents = [len(line) - len(line.lstrip()) for line in text if line.strip()]
    cut = min(indents, default=0)
    return [line[cut:].rstrip() if line.strip() else "" for line in text]


def _span(comment: DocComment) -> range:
    return range(comment.first, comment.last + 1)


def _item_starts(lines: list[str], in_doc: set[int], outer: set[int]) -> list[tuple[int, int, str]]:
    """(first line of its section, its definition's line, its heading) per item: a
    definition at column 0 outside every doc comment, its section starting at the doc
    comments, comments and attributes right above it."""
    starts: list[tuple[int, int, str]] = []
    for number, line in enumerate(lines):
        if number in in_doc or not line[:1].isalpha():
            continue
        match = DEFINITION.match(line) or DOCUMENTED_ONLY.match(line)
        if match is None:
            continue
        floor = starts[-1][1] + 1 if starts else 0
        first = _first_above(lines, number, floor, in_doc, outer)
        if match.re is DOCUMENTED_ONLY and not any(n in outer for n in range(first, number)):
            continue
        starts.append((first, number, " ".join(match.group(0).split())))
    return starts


def _first_above(
    lines: list[str], number: int, floor: int, in_doc: set[int], outer: set[int]
) -> int:
    """`number`, moved up over the outer doc comments, comments and attributes right
    above it (they belong to it), never past `floor` nor into the module's docs."""
    first = number
    while first > floor:
        above = first - 1
        if above in outer or (above not in in_doc and _ABOVE_ITEM.match(lines[above])):
            first = above
        else:
            break
    return first


def _write_top(
    lines: list[str],
    span: range,
    module: list[DocComment],
    writer: MarkdownWriter,
    notes: list[str],
) -> None:
    """The lines before the first item: code above the module docs, the docs, the code
    after them (headed when the docs wrote headings, see the module's doc)."""
    if not module:
        writer.code("\n".join(lines[span.start : span.stop]), "rust", first_line=1)
        return
    doc_lines = {n for c in module for n in _span(c)}
    above = range(span.start, module[0].first)
    _write_code(lines, above, doc_lines, writer)
    lead, rest = _doc_markdown(module, MODULE_SHIFT, notes)
    _write_markdown(lead + rest, writer)
    after = range(module[0].first, span.stop)
    code = [n for n in after if n not in doc_lines and lines[n].strip()]
    if code and any(atx_heading(line) for line, _ in rest):
        writer.heading(ITEM_LEVEL, f"module code ({_kinds([lines[n] for n in code])})")
    _write_code(lines, after, doc_lines, writer)


def _kinds(code: list[str]) -> str:
    """What loose code holds, by its lines' first words: `attributes, use, static`."""
    names = {"#![": "attributes", "#[": "attributes", "extern": "extern crate"}
    kinds: list[str] = []
    for line in code:
        match = _CODE_KIND.match(line)
        if match is None or line[:1].isspace():
            continue
        word = match.group(1)
        kind = "use" if word.endswith("use") else names.get(word.split()[0], word.split()[0])
        if kind not in kinds:
            kinds.append(kind)
    return ", ".join(kinds[:3]) + (", …" if len(kinds) > 3 else "")


def _write_code(lines: list[str], span: range, skip: set[int], writer: MarkdownWriter) -> None:
    """The lines of `span` not in `skip`, each unbroken run a code block at its lines."""
    run: list[int] = []
    for number in [*span, None]:
        if number is not None and number not in skip:
            run.append(number)
            continue
        if run:
            writer.code("\n".join(lines[run[0] : run[-1] + 1]), "rust", first_line=run[0] + 1)
            run = []


Marked = list[tuple[str, int | None]]  # Markdown lines, each with its line in the file


def _doc_markdown(
    comments: list[DocComment], shift: int, notes: list[str]
) -> tuple[Marked, Marked]:
    """The comments' Markdown, headings `shift` levels down, split before the first
    heading: (the lead, the sections)."""
    lead: Marked = []
    rest: Marked = []
    for comment in comments:
        text, dropped = without_comments("\n".join(comment.text))
        notes += [f"line {comment.first + 1}: {note}" for note in dropped]
        text = underlined_to_atx(text)
        fences = Fences()
        for offset, line in enumerate(text.split("\n")):
            heading = None if fences.feed(line) else atx_heading(line)
            if heading is not None:
                level = min(heading[0] + shift, MAX_LEVEL)
                line = f"{'#' * level} {heading[1]}"
            (rest if rest or heading else lead).append((line, comment.first + offset + 1))
        if fences.run:  # left open: closed here, or it would run on over the file's code
            (rest or lead).append((fences.run, None))
        (rest or lead).append(("", None))
    return lead, rest


def _write_markdown(marked: Marked, writer: MarkdownWriter) -> None:
    """Each blank-line-apart run of `marked` as a block, at its lines."""
    while marked and not marked[-1][0].strip():
        marked = marked[:-1]
    while marked and not marked[0][0].strip():
        marked = marked[1:]
    if marked:
        writer.markdown("\n".join(line for line, _ in marked), [at for _, at in marked])
