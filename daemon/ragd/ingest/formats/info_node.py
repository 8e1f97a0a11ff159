"""One GNU Info node → Markdown: its underlined titles as headings, prose as paragraphs,
examples verbatim as code, its menu as a list, cross references as their words.

What makeinfo writes, and how it is read back:

- A title is a line underlined by a line of `*` (chapter), `=` (section), `-`
  (subsection) or `.` (subsubsection) of its own length; the manual's name is the level
  above them all. A node that opens with no title (a footnotes node, a bare Top) is
  headed by its name, one level under the node it is `Up:` from (a chapter under Top).
- Prose is filled to 72 columns: a paragraph's first line indented by 3, a list item's
  by 3 with its marker, a table's description and a quotation by 5 or more. Examples
  (`@example`, `@smallexample`, `@verbatim`) are indented too, but not filled: their
  lines break where the author broke them. So an indented run of lines is prose when
  each of its line breaks was the filler's (the next line's first word would not have
  fitted), or, one line long, when it reads as a sentence; otherwise it is code.
- `* Menu:` opens the node's menu, which ends with its last entry before any paragraph
  (most often the node's end; bc's nodes go on with their text): `* Name::  description` or
  `* Label: Node.  description` entries, each a list item "Name — description", and
  comment lines between them, kept as text. An index node (makeinfo marks it
  `\\0\\b[index\\0\\b]`, and its entries end with `(line N)`) is a menu of pointers, not
  prose: its entries are dropped (the words they index are in the sections they point to).
- A cross reference reads as the words it shows: `*note Name::` → "see Name",
  `*Note Label: (manual)Node.` → "See Label." (the node after the label is the link's
  target, like a Markdown link's URL). Node names quoted with DEL (`\\x7f`) lose the quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragd.ingest.chunking import HEADING_MAX_CHARS
from ragd.ingest.formats.markdown import MAX_LEVEL, MarkdownWriter

# Heading levels of the underline characters; 1 is the manual's own name.
UNDERLINES = {"*": 2, "=": 3, "-": 4, ".": 5}
FILL_COLUMN = 72  # makeinfo's fill column: a filled line breaks before a word past it
DEEP = 4  # an indent past a paragraph's or a list item's first line (3)
MENU = "* Menu:"
# The Top node's title stands at a chapter's level; a node under it is a chapter.
TOPS = ("Top", "(dir)", "")
INDEX_MARKER = "\x00\x08[index\x00\x08]"
DEL = "\x7f"  # quotes a node name holding `:`, `,` or `.`
# makeinfo's in-band markers (`\0\b[index\0\b]`, `\0\b[image src=… alt=…\0\b]`): dropped;
# an image's caption is the text that follows it.
_MARKER = re.compile("\x00\x08\\[[^\x00]{0,4096}\x00\x08\\]")
# A title's section number: `10.1.1 `, `B.2 ` (an appendix's), never `A ` alone (a word).
_NUMBER = re.compile(r"(?:[0-9]{1,4}(?:\.[0-9]{1,4}){0,6}|[A-Z](?:\.[0-9]{1,4}){1,6}) +(?=[^ ])")
# `*note Label::` or `*Note Label: (file)Node.`: the label up to its colon (or quoted),
# then `:` (the label names the node) or the target up to the `.` or `,` ending it, across
# one line break at most. Every part is bounded, so a scan costs a constant per `*note`.
_NOTE = re.compile(
    r"\*([Nn])ote([ \t\n]{1,40})"
    r"(\x7f[^\x7f]{1,500}\x7f|[^:\x7f]{1,500}):"
    r"(:|[ \t\n]{0,40}(?:\([^()\n]{0,100}\))?"
    r"(?:\x7f[^\x7f\n]{0,500}\x7f|[^.,\t\x7f\n]{0,200}(?:\n[^.,\t\x7f\n]{0,200})?)([.,]))"
)


@dataclass
class Node:
    name: str
    up: str
    line: int  # the 0-based line of its header in the file
    lines: list[str]  # the lines after the header, to the next separator

    @classmethod
    def from_header(cls, header: str, line: int, lines: list[str]) -> Node:
        return cls(_field(header, "Node:"), _field(header, "Up:"), line, lines)


def _field(header: str, key: str) -> str:
    """A header field's value (`Node: ls invocation,  Next: …` → `ls invocation`): up to
    the next comma or tab, or between DEL quotes."""
    at = max(header.find(" " + key), header.find("\t" + key), header.find("," + key))
    if at < 0:
        return ""
    value = header[at + 1 + len(key) :].lstrip(" ")
    if value.startswith(DEL):
        end = value.find(DEL, 1)
        return value[1:end] if end > 0 else value[1:]
    ends = [e for e in (value.find(","), value.find("\t")) if e >= 0]
    return value[: min(ends)].strip() if ends else value.strip()


def see_notes(text: str) -> str:
    """Cross references as the words they show; line breaks kept, so lines still count."""
    return _NOTE.sub(_see, text).replace(DEL, "")


def _see(match: re.Match[str]) -> str:
    see = "See" if match.group(1) == "N" else "see"
    target = match.group(4)
    end = "" if target == ":" else match.group(5)
    return f"{see}{match.group(2)}{match.group(3).strip(DEL)}{end}" + "\n" * target.count("\n")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class NodeWriter:
    """Writes a manual's nodes, in file order, under the manual's name."""

    def __init__(self, manual: str) -> None:
        self.out = MarkdownWriter()
        self.out.heading(1, manual)  # the converter's own line: no origin
        self.levels: dict[str, int] = {}  # node name → the level of its heading
        self.written = 0  # nodes with something under their header
        # An example's lines not yet written, and the blank lines since: an example with a
        # blank line in it is one block of code, not two.
        self._example: list[tuple[int, str]] = []
        self._gap: list[tuple[int, str]] = []

    def write(self, node: Node) -> None:
        index = any(INDEX_MARKER in line for line in node.lines)
        lines = [_MARKER.sub("", s).replace("\x00", "") if "\x00" in s else s for s in node.lines]
        first = node.line + 2  # the 1-based line of lines[0]
        opening = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
        if opening == len(lines):
            return  # a header and nothing under it (a file cut short): no section
        self.written += 1
        if _title_level(lines, opening) is None:
            up = 1 if node.up in TOPS else self.levels.get(node.up, 1)
            self._heading(min(up + 1, MAX_LEVEL), node.name, node.line + 1)
            self.levels[node.name] = min(up + 1, MAX_LEVEL)
        block: list[tuple[int, str]] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            level = _title_level(lines, i) if i == 0 or not lines[i - 1].strip() else None
            if level is not None:
                self._paragraphs(block)
                block = []
                self._end_example()
                self._heading(level, line, first + i)
                self.levels.setdefault(node.name, level)
                i += 2
                continue
            if line.startswith(MENU):
                self._paragraphs(block)
                block = []
                self._end_example()
                end = _menu_end(lines, i)
                if not index and not _index_menu(lines, i):
                    self._menu(lines[:end], i, first)
                i = end
                continue
            if line.strip():
                block.append((first + i, line))
            else:
                self._paragraphs(block)
                block = []
                if self._example:
                    self._gap.append((first + i, ""))
            i += 1
        self._paragraphs(block)
        self._end_example()

    def _heading(self, level: int, title: str, number: int) -> None:
        title = title.strip()
        numbered = _NUMBER.match(title)
        if numbered is not None:
            title = title[numbered.end() :]
        self.out.end_lines()
        self.out.at, self.out.until = number, None
        self.out.heading(level, title.replace(DEL, ""))

    def _paragraphs(self, block: list[tuple[int, str]]) -> None:
        """A run of non-blank lines: prose and code as their indents and breaks say."""
        if not block:
            return
        self.out.end_lines()
        kinds = _prose_lines([line.rstrip() for _, line in block])
        start = 0
        for end in range(1, len(block) + 1):
            if end < len(block) and kinds[end] == kinds[start]:
                continue
            if kinds[start]:
                self._end_example()
                self._prose(block[start:end])
            elif start == 0 and self._example:  # the example goes on after a blank line
                self._example += self._gap + block[start:end]
            else:
                self._end_example()
                self._example = block[start:end]
            self._gap = []
            start = end

    def _end_example(self) -> None:
        if self._example:
            self._code(self._example)
        self._example, self._gap = [], []

    def _prose(self, run: list[tuple[int, str]]) -> None:
        if run:
            self.out.at, self.out.until = run[0][0], run[-1][0]
            self.out.paragraph(see_notes("\n".join(line.strip() for _, line in run)))

    def _code(self, run: list[tuple[int, str]]) -> None:
        margin = min(_indent(line) for _, line in run if line.strip())
        source = "\n".join(line[margin:].rstrip() for _, line in run)
        self.out.code(source.replace(DEL, ""), first_line=run[0][0])

    def _menu(self, lines: list[str], at: int, first: int) -> None:
        """The menu from line `at` (`* Menu:`) to the end of the node."""
        self.out.end_lines()
        self._comment(lines[at][len(MENU) :], first + at)
        entry: list[tuple[int, str]] = []  # an entry's first line and its continuations
        for i in range(at + 1, len(lines)):
            line = lines[i]
            if line.startswith("* "):
                self._entry(entry)
                entry = [(first + i, line[2:])]
            elif line.strip() and line[0] in " \t" and entry:
                entry.append((first + i, line))
            else:
                self._entry(entry)
                entry = []
                self.out.end_lines()
                self._comment(line, first + i)
        self._entry(entry)
        self.out.end_lines()

    def _comment(self, text: str, number: int) -> None:
        if text.strip():
            self.out.end_lines()
            self.out.at, self.out.until = number, None
            self.out.paragraph(see_notes(text.strip()))

    def _entry(self, entry: list[tuple[int, str]]) -> None:
        if not entry:
            return
        name, description = _menu_entry(entry[0][1])
        description = " ".join([description, *(line.strip() for _, line in entry[1:])])
        description = see_notes(description.strip())
        self.out.at, self.out.until = entry[0][0], entry[-1][0]
        self.out.line(f"- {name} — {description}" if description else f"- {name}")


def _title_level(lines: list[str], i: int) -> int | None:
    """The heading level of a title at line `i` (underlined on the next line), or None."""
    if i + 1 >= len(lines):
        return None
    title, under = lines[i].rstrip(), lines[i + 1].rstrip()
    if not under or under[0] not in UNDERLINES or under.count(under[0]) != len(under):
        return None
    if len(under) != len(title) or len(title) > HEADING_MAX_CHARS:
        return None
    if not title.strip(" *=-."):
        return None  # two rules, or a rule under a line of dots
    return UNDERLINES[under[0]]


def _menu_end(lines: list[str], at: int) -> int:
    """The line after the menu opened at `at`: past its last entry and that entry's
    indented continuation lines. The text after it is the node's body again (bc's
    Statements node opens with its menu, then carries the whole section); a menu's
    comments between entries are single lines (`Reference`, `-- The Detailed Node
    Listing --`), so two text lines running are a paragraph, and the menu ended before
    them, even if a body line further on opens with `* ` ("a\n* b" wrapped)."""
    end = at + 1
    run = 0  # text lines running that are no entry nor an entry's continuation
    for i in range(at + 1, len(lines)):
        line = lines[i]
        if line.startswith("* "):
            run, end = 0, i + 1
        elif not line.strip():
            run = 0
        elif line[0] in " \t" and end == i:
            end = i + 1  # an entry's continuation line
        else:
            run += 1
            if run > 1:
                break
    return end


def _index_menu(lines: list[str], at: int) -> bool:
    """A menu whose first entry points at a line (`(line 22)`, makeinfo's index entries,
    on its own line or the entry's): an index written without the index marker."""
    for line in lines[at + 1 : at + 4]:
        end = line.rstrip()
        if end.endswith(")") and "(line " in end[-16:]:
            return True
    return False


def _menu_entry(text: str) -> tuple[str, str]:
    """`Name::  desc` / `Label: (file)Node.  desc` → (name or label, description)."""
    if text.startswith(DEL):
        end = text.find(DEL, 1)
        name, rest = (text[1:end], text[end + 1 :]) if end > 0 else (text[1:], "")
        rest = rest[1:] if rest.startswith(":") else rest
    else:
        colon = text.find(":")
        if colon < 0:
            return text.strip(), ""
        name, rest = text[:colon], text[colon + 1 :]
    if rest.startswith(":"):
        return name.strip(), rest[1:].strip()
    return name.strip(), _after_target(rest.lstrip(" "))


def _after_target(rest: str) -> str:
    """What follows a menu entry's target node (`(file)Node.`), ended by `.`, `,` or a tab."""
    if rest.startswith("("):
        close = rest.find(")")
        rest = rest[close + 1 :] if close > 0 else rest
    if rest.startswith(DEL):
        close = rest.find(DEL, 1)
        return rest[close + 2 :].strip() if close > 0 else ""
    ends = [e for e in (rest.find("."), rest.find(","), rest.find("\t")) if e >= 0]
    return rest[min(ends) + 1 :].strip() if ends else ""


def _prose_lines(lines: list[str]) -> list[bool]:
    """Which lines of a block are prose. Not indented past a paragraph's first line: prose.
    Deeper: prose when the filler broke the line before or after it (the next line's
    first word would not have fitted, that line is not indented past this one's text, and
    neither looks like code), when it reads as a sentence, when it starts a description
    under a less indented label (and the label with it), or when it continues a
    definition's ` -- Function: …` line; anything else is code."""
    indents = [_indent(line) for line in lines]
    filled = [
        len(line) + 1 + len(after.split(None, 1)[0]) >= FILL_COLUMN
        and indent <= _text_column(line)
        and not _code_like(line)
        and not _code_like(after)
        for line, after, indent in zip(lines, lines[1:], indents[1:], strict=False)
    ]
    prose = [
        indents[i] < DEEP
        or (i < len(filled) and filled[i])
        or (i > 0 and filled[i - 1])
        or _sentence(lines[i].strip())
        or (i > 0 and indents[i] > indents[i - 1] and _wordy(lines[i]))
        for i in range(len(lines))
    ]
    labels = [False] * len(lines)
    for i in range(len(lines) - 2, -1, -1):  # labels over a description, stacked or not
        deeper = indents[i + 1] > indents[i] or (indents[i + 1] == indents[i] and labels[i + 1])
        labels[i] = not prose[i] and prose[i + 1] and deeper and not _code_like(lines[i])
    definition = False  # within a definition line and its continuations
    for i, line in enumerate(lines):
        head = line.lstrip().startswith("-- ") and indents[i] < DEEP
        definition = head or (definition and indents[i] >= 2 * DEEP)
        prose[i] = prose[i] or labels[i] or definition
    return prose


def _code_like(line: str) -> bool:
    """A shell prompt or comment, a C comment, a line ending as statements and pipes do."""
    text = line.strip()
    return text.startswith(("$ ", "# ", "#!", "> ", "/*", "//")) or text.endswith(
        (";", "{", "}", "\\", "|", "*/", "&&")
    )


def _text_column(line: str) -> int:
    """Where a line's text starts: after its indent and a list marker (`* `, `- `, `• `)."""
    indent = _indent(line)
    marker = line[indent : indent + 2]
    return indent + 2 if marker in ("* ", "- ", "• ") else indent


def _wordy(line: str) -> bool:
    """Three words or more, mostly letters: `True if the symbolic link is broken`."""
    letters = sum(c.isalpha() for c in line)
    code = any(c in line for c in ';{}=<>"\\$')
    return not code and len(line.split()) >= 3 and letters * 4 >= len(line.strip()) * 3


def _sentence(line: str) -> bool:
    """`Print the version and exit.`, not `find . -name '*.c'` or `cd ..`."""
    return (
        len(line) > 2
        and " " in line
        and (line[0].isalpha() or line[0] in "'\"‘“")
        and line[-1] in ".:?!"
        and (line[-2].isalnum() or line[-2] in "'\")’”")
    )
