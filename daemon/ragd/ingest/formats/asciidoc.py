"""AsciiDoc (``.adoc``, ``.asciidoc``): section titles become heading paths.

No Python library reads AsciiDoc the way Asciidoctor does, so this is a reader of its
block structure, one line at a time, keeping what a reader of the rendered page sees:

- `= Title`, `== Section` … (and Markdown's `#` form) are headings at their level; so is
  a two-line title (`Title` over `=====`, `-----`, `~~~~~`, `^^^^^`, `+++++` as long as
  it, give or take one) — except over exactly four `-`, `=` or `+`, which also open a
  listing, example or passthrough block: read as a title, the block's closing line
  would open another one and turn the rest of the file inside out, so that case stays
  a block (`_setext_level`).
- `----` listing and `....` literal blocks, Markdown's ``` fences, a `[source]` or
  `[literal]` paragraph and an indented (literal) paragraph are code, the language
  taken from `[source,python]`; `++++` passthrough is kept as code too (its words).
- `|===` tables (and CSV `,===`, DSV `:===`) are rows `| a | b |` (`formats.asciidoc_tables`).
- `NOTE:` paragraphs and `[WARNING]` blocks keep their label; example, sidebar, quote and
  open blocks (`====`, `****`, `____`, `--`) are read for their contents.
- attribute entries (`:toc:`), comments (`//`, `////` blocks), block attribute and anchor
  lines (`[source,python]`, `[[id]]`) and preprocessor lines (`ifdef::…[]`) are markup,
  not text; `include::file[]` is shown as "(includes file)" and never followed;
  `image::x.png[Alt]` is its alt text.
- inline: attribute references, links and cross references as the text a reader sees
  (`formats.asciidoc_inline`).

Every block keeps the lines it came from (code line for line). Each line is looked at a
bounded number of times: closing lines are found by scanning forward once, an open
container only compares a line with the innermost delimiter, so 100,000 nested
delimiters or a 10 MB line cost linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragd.ingest.document import Document, decode_text, split_lines
from ragd.ingest.formats.asciidoc_inline import Attributes, shown
from ragd.ingest.formats.asciidoc_quotes import unescaped_quotes
from ragd.ingest.formats.asciidoc_tables import table_rows
from ragd.ingest.formats.line_reader import LineReader
from ragd.ingest.formats.markdown import clean

FORMAT = "AsciiDoc"
ADMONITIONS = ("NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION")
VERBATIM = "-.+`"  # listing, literal, passthrough delimiters (and ``` fences)
CONTAINERS = "=*_"  # example, sidebar, quote (and `--`, the open block)
TABLE_MARKS = "|,:!"
DATA_FORMATS = {"csv": ",", "dsv": ":", "tsv": "\t", "psv": "|"}  # a table's `format=`
SETEXT = {"=": 1, "-": 2, "~": 3, "^": 4, "+": 5}  # levels of a two-line title's underline
MAX_INDENT_LEVELS = 4  # a nested list item is indented two spaces a level, up to this
MAX_DEPTH = 8  # list depths told apart (each has its own count): deeper ones are one

# A plain-text file that says it is AsciiDoc in a mail-like header (git's how-tos:
# `Content-type: text/asciidoc` under `From:`/`Subject:`), looked for in its first bytes.
_DECLARED = re.compile(
    rb"^content-type:[ \t]*text/asciidoc[ \t]*\r?$", re.IGNORECASE | re.MULTILINE
)
DECLARATION_BYTES = 4096
_HEADER_END = re.compile(rb"\r?\n[ \t]*\r?\n")  # the first blank line


def declared_asciidoc(data: bytes) -> bool:
    """Does this text file's header (its lines before the first blank one) declare it
    AsciiDoc? (loaders.parse reads it as one.) A body quoting the line does not."""
    head = _HEADER_END.split(data[:DECLARATION_BYTES], maxsplit=1)[0]
    return _DECLARED.search(head) is not None


def delimiter(line: str) -> str | None:
    """The delimited block `line` opens or closes (its stripped self), or None."""
    text = line.rstrip()
    if text == "--" or text.startswith("```"):
        return text[:3] if text.startswith("```") else text
    if len(text) < 4:
        return None
    first = text[0]
    if first in VERBATIM + CONTAINERS + "/" and text.count(first) == len(text):
        return text
    if first in TABLE_MARKS and text.count("=") == len(text) - 1:
        return text
    return None


def heading(line: str) -> tuple[int, str] | None:
    """`== Title` (or `## Title`) → (level, title); a closing run (`== Title ==`) dropped."""
    mark = line[:1]
    if mark not in ("=", "#"):
        return None
    level = len(line) - len(line.lstrip(mark))
    if level > 6 or line[level : level + 1] not in (" ", "\t"):
        return None
    title = line[level:].strip()
    if title.endswith(" " + mark * level):
        title = title[:-level].rstrip()
    return (level, title) if title else None


def _setext_level(title: str, underline: str) -> int | None:
    """A two-line title's level, when `underline` is one under `title` (see the module)."""
    rule = underline.rstrip()
    if not rule or rule[0] not in SETEXT or rule.count(rule[0]) != len(rule):
        return None
    text = title.rstrip()
    if not text[:1].isalnum() or abs(len(text) - len(rule)) > 1 or len(rule) < 2:
        return None
    if len(rule) == 4 and rule[0] in "-=+":
        return None  # also a listing, example or passthrough block: that it stays
    return SETEXT[rule[0]]


def attribute_entry(line: str) -> tuple[str, str] | None:
    """`:name: value` → (name, value); `:name!:` unsets."""
    if not line.startswith(":"):
        return None
    end = line.find(":", 1)
    name = line[1:end] if end > 1 else ""
    if not name or not all(c.isalnum() or c in "-_!" for c in name):
        return None
    value = line[end + 1 :]
    if value and not value[0].isspace():
        return None
    return name, value.strip()


def block_attributes(line: str) -> str | None:
    """The inside of a block attribute or anchor line (`[source,python]`, `[[id]]`)."""
    text = line.strip()
    if len(text) >= 2 and text[0] == "[" and text[-1] == "]":
        return text[1:-1]
    return None


def block_macro(line: str) -> tuple[str, str, str] | None:
    """`name::target[attributes]` on a line of its own → (name, target, attributes)."""
    text = line.rstrip()
    colons = text.find("::")
    if colons < 1 or not text.endswith("]"):
        return None
    name = text[:colons]
    if not all(c.isalnum() or c in "-_" for c in name):
        return None
    bracket = text.find("[", colons)
    target = text[colons + 2 : bracket]
    if bracket < 0 or any(c.isspace() for c in target):
        return None
    return name, target, text[bracket + 1 : -1]


def list_item(line: str) -> tuple[str, int, str] | None:
    """A list item's (marker kind, depth, text): `* a`, `** a`, `- a`, `. a`, `1. a`."""
    text = line.lstrip()
    mark = text[:1]
    if mark in ("*", "."):
        depth = len(text) - len(text.lstrip(mark))
        rest = text[depth:]
        if rest[:1] in (" ", "\t") and rest.strip():
            return ("*" if mark == "*" else ".", min(depth, MAX_DEPTH), rest.strip())
        return None
    if mark == "-" and text[1:2] in (" ", "\t") and text[2:].strip():
        return ("*", 1, text[2:].strip())
    digits = len(text) - len(text.lstrip("0123456789"))
    if (
        0 < digits < 10
        and text[digits : digits + 1] == "."
        and text[digits + 1 : digits + 2] == " "
    ):
        return ("1", 1, text[: digits + 1] + " " + text[digits + 2 :].strip())
    return None


def description_term(line: str) -> tuple[str, str] | None:
    """`term:: definition` (also `:::`, `::::`, `;;`) → (term, definition)."""
    for mark in ("::", ";;"):
        at = line.find(mark)
        while at > 0:
            end = at + len(mark)
            while mark == "::" and line[end : end + 1] == ":" and end - at < 4:
                end += 1
            if (end == len(line) or line[end] in " \t") and not line[at - 1].isspace():
                return line[:at].strip(), line[end:].strip()
            at = line.find(mark, end)
    return None


def comment(line: str) -> bool:
    return line.startswith("//") and delimiter(line) is None


@dataclass
class _Pending:
    """What block attribute lines said about the next block."""

    style: str = ""
    language: str = ""
    attributes: list[str] = field(default_factory=list)
    title: str = ""
    title_line: int = 0


class _Reader(LineReader):
    def __init__(self, lines: list[str], attributes: Attributes) -> None:
        super().__init__(lines)
        self.attributes = attributes
        self.pending = _Pending()
        self.containers: list[str] = []  # open example/sidebar/quote/open blocks
        self.quotes: list[str] = []  # each one's attribution, said at its end
        self.ordinals: dict[int, int] = {}  # the last number of each depth of a `.` list
        self.attached = False  # the line before was a `+`: this block is a list item's
        self.list_kind = ""  # the marker of the list being read ("" : none)

    def shown(self, text: str) -> str:
        # escaped quotes first, as Asciidoctor: a value's `\*` is shown as it is written
        return shown(unescaped_quotes(text), self.attributes)

    def block(self, i: int) -> int:
        """Read the block starting at line i; the index of the line after it."""
        line = self.lines[i]
        if not line.strip() or comment(line):
            return i + 1
        attached, self.attached = self.attached, line == "+"
        item = list_item(line)
        ended = item is None or (item[1] == 1 and item[0] != self.list_kind)
        if not attached and not self.attached and ended:
            self.ordinals.clear()  # the list ended: the next one counts from 1 again
            self.writer.end_lines()
            self.list_kind = item[0] if item else ""
        mark = delimiter(line)
        if mark is not None:
            return self._delimited(i, mark)
        entry = attribute_entry(line)
        if entry is not None:
            return self._attribute_entry(i, *entry)
        inside = block_attributes(line)
        if inside is not None:
            self._note_attributes(inside)
            return i + 1
        if line.startswith(".") and line[1:2] not in ("", ".", " ", "\t"):
            self.pending.title, self.pending.title_line = line[1:].strip(), i
            return i + 1
        if not self.containers:
            titled = heading(line)
            if titled is None and i + 1 < len(self.lines):
                level = _setext_level(line, self.lines[i + 1])
                if level is not None:
                    self._heading(i, level, line.strip())
                    return i + 2
            if titled is not None:
                self._heading(i, *titled)
                return i + 1
        self._block_title()
        macro = block_macro(line)
        if macro is not None:
            self._macro(i, *macro)
            return i + 1
        if line == "+":  # a list continuation: the next block belongs to the item
            return i + 1
        if item is not None:
            return self._list_item(i, *item)
        if line[:1] in (" ", "\t"):
            return self._literal_paragraph(i)
        return self._paragraph(i)

    # -- headings and markup lines ------------------------------------------------------

    def _heading(self, i: int, level: int, title: str) -> None:
        self._block_title()
        self.pending = _Pending()
        self.place(i)
        self.writer.heading(level, self.shown(title))

    def _attribute_entry(self, i: int, name: str, value: str) -> int:
        # A value continued with ` \` at a line's end runs on over the next lines. The
        # parts are joined once at the end: adding each line to the value so far copied
        # it every time, quadratic over a file of continued lines.
        parts = [value]
        while parts[-1].endswith("\\") and i + 1 < len(self.lines):
            i += 1
            parts[-1] = parts[-1][:-1].rstrip()
            parts.append(self.lines[i].strip())
        self.attributes.define(name, " ".join(parts))
        return i + 1

    def _note_attributes(self, inside: str) -> None:
        if inside.startswith("[") or inside.startswith("#"):
            return  # `[[id]]`, `[#id.role]`: an anchor
        parts = _attribute_list(inside)
        style = parts[0].lstrip("%").split("%")[0].split("#")[0].split(".")[0].lower()
        self.pending.style = style
        self.pending.attributes = parts
        if style == "source" and len(parts) > 1 and "=" not in parts[1]:
            self.pending.language = parts[1]

    def _block_title(self) -> None:
        """A `.Title` line waiting for its block: written as a paragraph of its own."""
        if self.pending.title:
            self.place(self.pending.title_line)
            self.writer.paragraph(self.shown(self.pending.title))
            self.pending.title = ""

    def _label(self, style: str, first: int) -> None:
        """A `[NOTE]`-styled block's label, said before its contents."""
        style = style.upper()
        if style in ADMONITIONS:
            self.place(first)
            self.writer.paragraph(style + ":")

    def _macro(self, i: int, name: str, target: str, attributes: str) -> None:
        self.place(i)
        if name == "include":
            self.writer.paragraph(f"(includes {self.shown(target)})")  # never read
        elif name == "image":
            given = _attribute_list(attributes)
            named = [a.partition("=")[2] for a in given if a.replace(" ", "").startswith("alt=")]
            alt = (named or given)[0].strip().strip('"')
            if "=" not in alt:
                self.writer.paragraph(self.shown(alt))
        self.pending = _Pending()

    # -- delimited blocks ---------------------------------------------------------------

    def _delimited(self, i: int, mark: str) -> int:
        if self.containers and mark == self.containers[-1]:
            self.containers.pop()  # the innermost open container closes
            attribution = self.quotes.pop()
            if attribution:
                self.place(i)
                self.writer.paragraph(attribution)
            return i + 1
        self._block_title()
        pending, self.pending = self.pending, _Pending()
        kind = mark[0]
        if kind == "/":
            return self._closing(i, mark) + 1  # a comment block: nothing of it is text
        if kind in TABLE_MARKS:
            end = self._closing(i, mark)
            self._table(i, end, kind, pending)
            return end + 1
        if kind in VERBATIM and mark != "--":  # `--` opens a container, not a listing
            end = self._closing(i, mark)
            language = self.lines[i].strip()[3:].strip() if kind == "`" else pending.language
            self.writer.code("\n".join(self.lines[i + 1 : end]), language, i + 2)
            return end + 1
        self._label(pending.style, i)
        self.containers.append(mark)
        self.quotes.append(_attribution(pending) if kind == "_" else "")
        return i + 1

    def _closing(self, i: int, mark: str) -> int:
        """The line closing the block `mark` opens at line i (the end of the file when
        none does, as in Asciidoctor)."""
        end = i + 1
        while end < len(self.lines) and self.lines[end].rstrip() != mark:
            end += 1
        return end

    def _table(self, i: int, end: int, kind: str, pending: _Pending) -> None:
        separator = kind
        for attribute in pending.attributes:
            name, _, value = attribute.replace(" ", "").partition("=")
            if name == "format":
                separator = DATA_FORMATS.get(value.strip('"'), separator)
        rows = table_rows(self.lines[i + 1 : end], separator, _columns(pending.attributes))
        for cells, first, last in rows:
            self.place(i + 1 + first, i + 1 + last)
            self.writer.line("| " + " | ".join(clean(self.shown(c)) for c in cells) + " |")
        self.writer.end_lines()

    # -- paragraphs and lists -----------------------------------------------------------

    def _paragraph_end(self, i: int) -> int:
        """The line after the paragraph starting at line i: a blank line, a delimiter or
        a heading ends it; comment lines inside it are left out."""
        end = i + 1
        while end < len(self.lines):
            line = self.lines[end]
            if not line.strip() or delimiter(line) is not None or heading(line) is not None:
                break
            if attribute_entry(line) is not None or block_attributes(line) is not None:
                break
            if line == "+":
                break
            end += 1
        return end

    def _paragraph(self, i: int) -> int:
        end = self._paragraph_end(i)
        lines = [
            _described(_unbroken(line.strip())) for line in self.lines[i:end] if not comment(line)
        ]
        pending, self.pending = self.pending, _Pending()
        if pending.style in ("source", "listing", "literal"):
            self.writer.code("\n".join(self.lines[i:end]), pending.language, i + 1)
            return end
        self._label(pending.style, i)
        self.place(i, end - 1)
        self.writer.paragraph(self.shown("\n".join(lines)))
        return end

    def _literal_paragraph(self, i: int) -> int:
        end = self._paragraph_end(i)
        block = self.lines[i:end]
        indent = min(len(line) - len(line.lstrip()) for line in block if line.strip())
        self.pending = _Pending()
        self.writer.code("\n".join(line[indent:] for line in block), "", i + 1)
        return end

    def _list_item(self, i: int, kind: str, depth: int, text: str) -> int:
        """One item and the lines that continue it (up to a blank line, another item,
        a delimiter or a `+`)."""
        self.pending = _Pending()
        end = i + 1
        parts = [text]
        while end < len(self.lines):
            line = self.lines[end]
            if not line.strip() or line == "+" or delimiter(line) is not None:
                break
            if list_item(line) is not None or heading(line) is not None:
                break
            if block_attributes(line) is not None or attribute_entry(line) is not None:
                break
            if not comment(line):
                parts.append(_unbroken(line).strip())
            end += 1
        if kind == ".":  # an ordered item numbered as the page shows it
            number = self.ordinals.get(depth, 0) + 1
            self.ordinals[depth] = number
            for deeper in [d for d in self.ordinals if d > depth]:
                del self.ordinals[deeper]
            marker = f"{number}."
        else:
            marker = "-" if kind == "*" else ""
        self.place(i, end - 1)
        body = self.shown(" ".join(parts))
        indent = 2 * min(depth - 1, MAX_INDENT_LEVELS)
        self.writer.line(f"{marker} {body}".strip(), indent)
        return end


def _described(line: str) -> str:
    """`term:: definition` as "term: definition"."""
    term = description_term(line)
    if term is None:
        return line
    return term[0] + (": " + term[1] if term[1] else ":")


def _unbroken(line: str) -> str:
    """A line without its hard line break (a trailing ` +`)."""
    return line[:-2] if line.endswith(" +") else line


def _attribute_list(inside: str) -> list[str]:
    """`source,python` → ["source", "python"]; a quoted value keeps its commas
    (`cols="1,2"`)."""
    parts: list[str] = []
    start, quoted = 0, False
    for at, character in enumerate(inside):
        if character == '"':
            quoted = not quoted
        elif character == "," and not quoted:
            parts.append(inside[start:at].strip())
            start = at + 1
    parts.append(inside[start:].strip())
    return parts


def _attribution(pending: _Pending) -> str:
    """`[quote, Author, Source]`: who said it, written after the quote."""
    if pending.style not in ("quote", "verse"):
        return ""
    who = [p.strip('"') for p in pending.attributes[1:3] if p and "=" not in p]
    return "— " + ", ".join(who) if who else ""


def _columns(attributes: list[str]) -> int | None:
    """How many columns `cols="1,2,3"` or `cols="3*"` gives a table, when it says."""
    spec = ""
    for part in attributes:
        name, _, value = part.partition("=")
        if name.strip() == "cols":
            spec = value.strip().strip('"').strip("'")
    if not spec:
        return None
    if "*" in spec and "," not in spec:
        count = spec.partition("*")[0]
        return int(count) if count.isdigit() and 0 < len(count) < 4 else None
    total = 0
    for column in spec.split(","):
        count, star, _ = column.partition("*")
        total += int(count) if star and count.strip().isdigit() and len(count) < 4 else 1
    return total or None


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    return _Reader(split_lines(text), Attributes(budget=len(text))).document(name, notes)
