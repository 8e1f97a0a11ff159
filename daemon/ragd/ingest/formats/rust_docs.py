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
- an `impl`'s or `trait`'s methods and an inline `mod`'s items are items a level down
  (`impl Regex > pub fn is_match > Example`), found at its body's indentation;
- a struct's (union's) documented fields and an enum's documented variants are items a
  level down too (`pub enum ErrorKind > variant InvalidValue > Examples`), as rustdoc
  lists them under the type;
- `#[doc = "…"]` attributes are doc lines, joined with the `///` lines around them
  (formats.rust_attributes), and a `///` counts only where rust_lexer says the line
  starts in code (not inside a string or a block comment);
- everything else is code, as `code._write_by_pattern` reads other languages; `//` and
  `/* */` comments stay code.

The Markdown is the Markdown reader's: HTML comments out (`markdown_comments`), setext
titles as `#` lines (`setext`), fences and headings as the chunker finds them. A fence a
doc comment leaves open is closed where the comment ends, so it cannot swallow the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragd.ingest.chunking import Fences, atx_heading
from ragd.ingest.formats.markdown import MAX_LEVEL, MarkdownWriter, names_heading
from ragd.ingest.formats.rust_attributes import doc_attribute
from ragd.ingest.formats.rust_hidden import RustExamples
from ragd.ingest.formats.rust_lexer import Lexed, lex_lines
from ragd.ingest.heading_text import rendered_title
from ragd.ingest.markdown_comments import without_comments
from ragd.ingest.setext import underlined_to_atx

# Definitions, matched where a line's indentation ends (column 0 at the top level); the
# matched text (whitespace folded) heads the section.
DEFINITION = re.compile(
    r"(?:pub(?:\([^)]*\))?\s+)?(?:async\s+|unsafe\s+|const\s+)*"
    r"(?:(?:fn|struct|enum|trait|mod)\s+\w+|impl\b[^{;]*[^{;\s])"
)
# Items that head a section only when documented: a crate's undocumented constants and
# type aliases stay with the code around them, as before.
DOCUMENTED_ONLY = re.compile(
    r"(?:pub(?:\([^)]*\))?\s+)?(?:const\s+\w+|static\s+(?:mut\s+)?\w+|type\s+\w+"
    r"|union\s+\w+|macro_rules!\s*\w+)"
)
_LINE_DOC = re.compile(r"[ \t]*(///(?!/)|//!)")
_BLOCK_DOC = re.compile(r"[ \t]*(/\*\*(?![*/])|/\*!)")
_ABOVE_ITEM = re.compile(r"[ \t]*(//(?!!)|/\*(?!!)|\*|#\[)")  # comments, outer attributes
# `#[doc = "…"]`, `#[cfg_attr(not(feature = "help"), doc = "…")]`: the text (unescaped only).
_DOC_ATTRIBUTE = re.compile(
    r'[ \t]*#!?\[(?:cfg_attr\((?:[^"\n]|"[^"\n]*")*?)?\bdoc\s*=\s*"([^"\\\n]*)"'
)
_FENCE_TEXT = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_CODE_KIND = re.compile(r"(#!\[|#\[|pub(?:\([^)]*\))?\s+use\b|use\b|extern\s+crate\b|\w+)")
# Items that hold items: an `impl`'s or a `trait`'s methods, an inline `mod`'s items.
CONTAINER = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(?:impl|trait|mod)\b")
# Items whose members are fields or variants (as headed: `pub struct Config`, `variant
# Set`, whose `{ … }` holds fields too), and those members' own lines.
_SHAPE = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(struct|union|enum|variant)\s")
_FIELD = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?(?:r#)?(\w+)\s*:(?!:)")
_VARIANT = re.compile(r"(\w+)\s*(?:[({=,]|$)")
MODULE_SHIFT = 1  # `# Syntax` of the module docs → `## Syntax`
ITEM_LEVEL = 2  # an item at level L has its docs' `# Examples` at L + 1
MEMBER_LEVELS = 4  # items inside items are read down to this level


@dataclass
class DocComment:
    """One doc comment: a run of `///` (or `//!`) lines and one-line `#[doc = …]`
    attributes (formats.rust_attributes), or one `/** */` (`/*! */`)."""

    inner: bool  # `//!`, `/*!`, `#![doc]`: the enclosing module's docs
    first: int  # its first line (0-based)
    last: int  # its last line
    text: list[str] = field(default_factory=list)  # its lines, markers off
    attributes: set[int] = field(default_factory=set)  # indexes of `text` from attributes
    block: bool = False  # a `/** */`

    def line_of(self, offset: int) -> int:
        """The file's line (0-based) of `text[offset]` (an attribute's text may be more
        lines than the one line it is written on)."""
        return min(self.first + offset, self.last)


@dataclass
class Docs:
    """A file's doc comments, which of its lines start in code, and the notes reading
    them left."""

    comments: list[DocComment]
    in_code: list[bool]  # rust_lexer: a line starting inside a string or comment is no item
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lines = {n for c in self.comments for n in _span(c)}  # in any doc comment
        self.outer = {n for c in self.comments if not c.inner for n in _span(c)}
        self.starting = {c.first: c for c in self.comments if not c.inner}

    def outer_in(self, span: range) -> list[DocComment]:
        """The outer doc comments starting in `span` (an item's lines above it)."""
        return [self.starting[n] for n in span if n in self.starting]


Item = tuple[int, int, str]  # (first line of its section, its definition's line, its heading)


def write_rust(lines: list[str], writer: MarkdownWriter, name: str = "") -> list[str]:
    """`lines` (a Rust file, `name` its path in its folder) into `writer`; returns notes
    (an HTML comment never closed)."""
    lexed = lex_lines(lines)
    docs = Docs(doc_comments(lines, lexed, name), lexed.in_code)
    starts = _item_starts(lines, range(len(lines)), 0, docs)
    top = starts[0][0] if starts else len(lines)
    module = [c for c in docs.comments if c.inner and c.last < top]
    _write_top(lines, range(0, top), module, writer, docs.notes)
    _write_items(lines, starts, len(lines), ITEM_LEVEL, docs, writer)
    return docs.notes


def _write_items(
    lines: list[str], starts: list[Item], stop: int, level: int, docs: Docs, writer: MarkdownWriter
) -> None:
    """Each item a section at `level`: heading, its docs' lead, its code (up to its first
    member, when it is an `impl`, `trait` or `mod` holding items), its docs' sections, its
    members a level down. An item runs to the next one's section (`stop`: the last)."""
    bounds = [first for first, _, _ in starts] + [stop]
    for (first, line, heading), after in zip(starts, bounds[1:], strict=False):
        item_docs = docs.outer_in(range(first, line))
        writer.heading(level, heading)
        lead, rest = _doc_markdown(item_docs, level, lines, docs.notes)
        _write_markdown(lead, writer)
        members = _members(lines, line, after, heading, docs) if level < MEMBER_LEVELS else []
        code = range(first, members[0][0] if members else after)
        _write_code(lines, code, {n for c in item_docs for n in _span(c)}, writer)
        _write_markdown(rest, writer)
        _write_items(lines, members, after, level + 1, docs, writer)


def _members(lines: list[str], line: int, after: int, heading: str, docs: Docs) -> list[Item]:
    """The items inside a container's body (an `impl`'s methods, a `trait`'s, an inline
    `mod`'s items), or a struct's or an enum's documented fields or variants, found at
    the indentation of the body's first line."""
    kind = _member_kind(heading)
    if kind is None or lines[line].rstrip().endswith(";"):
        return []
    if heading.startswith("variant ") and not lines[line].rstrip().endswith("{"):
        return []  # a unit or tuple variant: no fields of its own to read
    body = next((n for n in range(line + 1, after) if lines[n].strip()), None)
    if body is None:
        return []
    indent = len(lines[body]) - len(lines[body].lstrip())
    return _item_starts(lines, range(line + 1, after), indent, docs, kind) if indent else []


def _member_kind(heading: str) -> str | None:
    """What the body of the item headed `heading` holds: "item" (an `impl`, `trait`,
    `mod`), "field" (a `struct`, a `union`, an enum's `variant X { … }`), "variant" (an
    `enum`), or None (nothing read as members)."""
    if CONTAINER.match(heading):
        return "item"
    shape = _SHAPE.match(heading)
    if shape is None:
        return None
    return "variant" if shape.group(1) == "enum" else "field"


def doc_comments(lines: list[str], lexed: Lexed, name: str = "") -> list[DocComment]:
    """The file's doc comments in order, found where `lexed` says a line starts in code:
    a `///` inside a raw string is the string's text."""
    comments: list[DocComment] = []
    for number, line in enumerate(lines):
        if not lexed.in_code[number]:
            continue  # inside a string or comment (a block doc's own lines among them)
        block = _BLOCK_DOC.match(line)
        if block:
            last = lexed.block_last.get(number)
            if last is not None:  # closed, nothing after its `*/`: else its lines are code
                text = _block_text(lines, number, last)
                comments.append(DocComment(block.group(1) == "/*!", number, last, text, block=True))
            continue
        doc = _LINE_DOC.match(line)
        attribute = None if doc or "doc" not in line else doc_attribute(line, name)
        if doc is not None:
            _add_line(comments, doc.group(1) == "//!", number, [line[doc.end() :]], False)
        elif attribute is not None:
            _add_line(comments, attribute[0], number, attribute[1], True)
    for comment in comments:
        if not comment.block:
            comment.text = _unindented(comment.text, comment.attributes)
    return comments


def _add_line(
    comments: list[DocComment], inner: bool, number: int, text: list[str], attribute: bool
) -> None:
    """A `///` (`//!`) line's or a doc attribute's text, joined to the comment on the line
    above when it is one of the same kind, as rustdoc joins them."""
    last = comments[-1] if comments else None
    if last is None or last.block or last.inner != inner or last.last != number - 1:
        last = DocComment(inner, number, number)
        comments.append(last)
    if attribute:
        last.attributes.update(range(len(last.text), len(last.text) + len(text)))
    last.text += text
    last.last = number


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


def _unindented(text: list[str], attributes: set[int] | frozenset[int] = frozenset()) -> list[str]:
    """The lines less the indentation all the non-blank ones share (rustdoc's unindent),
    counted on the `///` lines when there are any: a `#[doc = "…"]` among them is cut as
    far as its own blanks go."""
    indents = [_indent(line) for n, line in enumerate(text) if line.strip() and n not in attributes]
    if not indents:
        indents = [_indent(line) for line in text if line.strip()]
    cut = min(indents, default=0)
    return [line[min(cut, _indent(line)) :].rstrip() if line.strip() else "" for line in text]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _span(comment: DocComment) -> range:
    return range(comment.first, comment.last + 1)


def _item_starts(
    lines: list[str], span: range, indent: int, docs: Docs, kind: str = "item"
) -> list[Item]:
    """The items of `span`: definitions at `indent` in code and outside every doc
    comment, each section starting at the doc comments, comments and attributes right
    above it. `kind` "field" or "variant": a struct's fields or an enum's variants
    instead, those documented, headed `field name`, `variant Name` (as rustdoc lists
    them under the type, each with its docs)."""
    starts: list[Item] = []
    for number in span:
        line = lines[number]
        opening = line[indent : indent + 1]
        if not (opening.isalpha() or opening == "_") or number in docs.lines:
            continue
        if line[:indent].strip() or not docs.in_code[number]:
            continue
        heading, documented_only = _definition(line, indent, kind)
        if not heading:
            continue
        floor = starts[-1][1] + 1 if starts else span.start
        first = _first_above(lines, number, floor, docs)
        if documented_only and not docs.outer_in(range(first, number)):
            continue
        starts.append((first, number, heading))
    return starts


def _definition(line: str, indent: int, kind: str) -> tuple[str, bool]:
    """The heading of the `kind` of member `line` defines at `indent` ("" when none), and
    whether it heads a section only when documented."""
    if kind == "item":
        match = DEFINITION.match(line, indent) or DOCUMENTED_ONLY.match(line, indent)
        heading = " ".join(match.group(0).split()) if match else ""
        return heading, match is not None and match.re is DOCUMENTED_ONLY
    member = (_FIELD if kind == "field" else _VARIANT).match(line, indent)
    return (f"{kind} {member.group(1)}" if member else ""), True


def _first_above(lines: list[str], number: int, floor: int, docs: Docs) -> int:
    """`number`, moved up over the outer doc comments, comments and attributes right
    above it (they belong to it), never past `floor` nor into the module's docs."""
    first = number
    while first > floor:
        above = first - 1
        if above in docs.outer or (above not in docs.lines and _ABOVE_ITEM.match(lines[above])):
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
    lead, rest = _doc_markdown(module, MODULE_SHIFT, lines, notes)
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
    return names_heading(kinds)


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
    comments: list[DocComment], shift: int, lines: list[str], notes: list[str]
) -> tuple[Marked, Marked]:
    """The comments' Markdown, read as one text as rustdoc joins them, headings `shift`
    levels down, split before the first heading: (the lead, the sections)."""
    fences = Fences()
    examples = RustExamples()
    marked: Marked = []
    first_heading: int | None = None
    for index, comment in enumerate(comments):
        if index:
            marked.append(("", None))
            examples.line("", fences.feed(""), fences.run, fences.run, fences.deep)
            between = range(comments[index - 1].last + 1, comment.first)
            fence = _fence_in_attributes(lines, between)
            if fence is not None:
                examples.line(fence[0], fences.feed(fence[0]), "", fences.run)
                marked.append(fence)
        text, dropped = without_comments("\n".join(comment.text))
        notes += [f"line {comment.first + 1}: {note}" for note in dropped]
        for offset, line in enumerate(underlined_to_atx(text).split("\n")):
            run = fences.run
            fenced = fences.feed(line)
            heading = None if fenced else atx_heading(_up_to_three_blanks_off(line))
            shown = examples.line(line, fenced, run, fences.run, fences.deep)
            if shown is None:
                continue  # a line rustdoc hides from the reader (`# use std::fmt;`)
            line = shown
            if heading is not None:
                line = f"{'#' * min(heading[0] + shift, MAX_LEVEL)} {rendered_title(heading[1])}"
                first_heading = len(marked) if first_heading is None else first_heading
            marked.append((line, comment.line_of(offset) + 1))
    if fences.run:  # left open: closed here, or it would run on over the file's code
        marked.append((fences.run, None))
    cut = len(marked) if first_heading is None else first_heading
    return marked[:cut], marked[cut:]


def _up_to_three_blanks_off(line: str) -> str:
    """`line` without the one to three blanks a heading may be indented by (CommonMark):
    clap's `///```` closing an example leaves every other line of its comment one blank
    in after the unindent, and ` # Examples` is still a heading on the page."""
    return line.lstrip(" ") if _indent(line) <= 3 else line


def _fence_in_attributes(lines: list[str], span: range) -> tuple[str, int] | None:
    """The first fence line a `#[doc = "…"]` attribute in `span` writes, and its line:
    clap opens an example's fence between two `///` runs with a pair of them, one per
    feature (`#[cfg_attr(feature = "help", doc = " ```")]`); without it the example's
    `# use clap::Arg;` was read as a heading."""
    for number in span:
        attribute = _DOC_ATTRIBUTE.match(lines[number])
        if attribute and _FENCE_TEXT.match(attribute.group(1)):
            return attribute.group(1).strip(), number + 1
    return None


def _write_markdown(marked: Marked, writer: MarkdownWriter) -> None:
    """Each blank-line-apart run of `marked` as a block, at its lines."""
    while marked and not marked[-1][0].strip():
        marked = marked[:-1]
    while marked and not marked[0][0].strip():
        marked = marked[1:]
    if marked:
        writer.markdown("\n".join(line for line, _ in marked), [at for _, at in marked])
