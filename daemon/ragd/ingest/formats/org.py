"""Emacs Org-mode (``.org``): headlines become heading paths.

Read one line at a time, as Org's own parser splits a file into elements:

- `#+TITLE:` heads the whole file (level 1) when it comes before the first headline; the
  headlines `*`, `**`, … sit below it. A headline's TODO keyword (`TODO`, `DONE` and
  those a `#+TODO:` line declares), priority and tags are not in its heading path but
  on a line under it (`formats.org_inline` says why). A `COMMENT` headline (`* COMMENT
  Draft`) is left out with its body and every deeper headline under it, as Org's export
  leaves it out.
- `#+BEGIN_SRC lang` … `#+END_SRC`, `#+BEGIN_EXAMPLE`, `#+BEGIN_EXPORT` and `: fixed
  width` lines are code (Org's escaping comma before `*` and `#+` taken off); a
  `#+BEGIN_COMMENT` block is dropped; any other block (`QUOTE`, `VERSE`, `CENTER`,
  special blocks) is read for its contents. A block is one only when its `#+END_` line
  comes before the next headline (Org's rule); else its first line is text.
- `#+KEYWORD:` lines (`#+AUTHOR:`, `#+OPTIONS:`, `#+STARTUP:`, `#+TBLFM:`…) and `# comment`
  lines are settings, not text; `#+CAPTION:` is the words shown under a table or figure
  and is kept; `#+INCLUDE: "file"` is shown as "(includes file)" and never followed.
- drawers: `:PROPERTIES:` and `:LOGBOOK:` (ids, clock entries: what Org's own export
  leaves out) are dropped with their contents; another drawer's contents are text.
- tables are rows `| a | b |` (rule lines `|---+---|` left out); lists are list lines,
  a description item's `::` a colon; `[[target][text]]` links are their text.

Each line is looked at a bounded number of times: where a block or drawer ends is read
from lists of the `#+END_` and `:END:` lines made once, walked forward as the reader
moves (never a search per opening line), so 100,000 unclosed `#+BEGIN_SRC` lines or a
10 MB line cost linear time.
"""

from __future__ import annotations

import bisect
from collections import defaultdict

from ragd.ingest.document import Document, decode_text, split_lines
from ragd.ingest.formats.line_reader import LineReader
from ragd.ingest.formats.markdown import clean
from ragd.ingest.formats.org_inline import (
    DEFAULT_KEYWORDS,
    KEYWORD_SETTINGS,
    declared_keywords,
    headline,
    shown,
)

FORMAT = "Org"
VERBATIM = frozenset({"src", "example", "export"})
ADMONITIONS = frozenset({"note", "tip", "important", "warning", "caution"})
DROPPED_DRAWERS = frozenset({"properties", "logbook"})
MAX_INDENT_LEVELS = 4  # a nested list item is indented two spaces a level, up to this


def keyword_line(line: str) -> tuple[str, str] | None:
    """`#+NAME: value` → (name lowered, value); `#+begin_src python` → ("begin_src", "python")."""
    text = line.lstrip()
    if not text.startswith("#+"):
        return None
    head, colon, value = text[2:].partition(":")
    if colon and head and " " not in head:
        return head.lower(), value.strip()
    name, _, arguments = text[2:].partition(" ")
    return name.lower(), arguments.strip()


def drawer_name(line: str) -> str | None:
    """`:PROPERTIES:` → "properties" (a line that could open or close a drawer)."""
    text = line.strip()
    name = text[1:-1]
    if len(text) < 3 or text[0] != ":" or text[-1] != ":":
        return None
    if not all(c.isalnum() or c in "-_" for c in name):
        return None
    return name.lower()


def list_item(line: str) -> tuple[int, str] | None:
    """An item's (indentation, text with its marker): `- a`, `+ a`, ` * a`, `1. a`, `1) a`."""
    text = line.lstrip()
    indent = len(line) - len(text)
    mark = text[:2]
    if mark in ("- ", "+ ") or (mark == "* " and indent > 0):
        return indent, "- " + _described(text[2:].strip())
    digits = len(text) - len(text.lstrip("0123456789"))
    if (
        0 < digits < 10
        and text[digits : digits + 1] in (".", ")")
        and text[digits + 1 : digits + 2] == " "
    ):
        return indent, text[:digits] + ". " + _described(text[digits + 2 :].strip())
    return None


def _described(text: str) -> str:
    """A description item's `term :: definition` as "term: definition"."""
    term, separator, definition = text.partition(" :: ")
    return f"{term}: {definition}" if separator else text


def _table_row(line: str) -> str | None:
    """`| a | b |` cleaned; None for a rule line (`|---+---|`)."""
    text = line.strip()
    if text.startswith("|-"):
        return None
    cells = text.strip("|").split("|")
    return "| " + " | ".join(clean(shown(cell)) for cell in cells) + " |"


class _Ends:
    """The lines that close blocks and drawers, looked up forward as the reader moves:
    each list is walked once over the whole file."""

    def __init__(self, lines: list[str]) -> None:
        self.headlines: list[int] = []
        self.levels: list[int] = []  # each headline's stars
        self.blocks: dict[str, list[int]] = defaultdict(list)
        self.drawers: list[int] = []
        for number, line in enumerate(lines):
            titled = headline(line, DEFAULT_KEYWORDS) if line.startswith("*") else None
            if titled is not None:
                self.headlines.append(number)
                self.levels.append(titled.level)
            elif line.lstrip()[:6].lower() == "#+end_":
                named = keyword_line(line)
                if named is not None:
                    self.blocks[named[0][4:]].append(number)
            elif drawer_name(line) == "end":
                self.drawers.append(number)
        self.count = len(lines)
        self._next: dict[int, int] = defaultdict(int)  # per list: the first index not passed

    def _after(self, positions: list[int], line: int) -> int | None:
        """The first of `positions` past `line` (asked with growing `line`s)."""
        key = id(positions)
        index = self._next[key]
        while index < len(positions) and positions[index] <= line:
            index += 1
        self._next[key] = index
        return positions[index] if index < len(positions) else None

    def _within_section(self, end: int | None, line: int) -> int | None:
        """`end`, when no headline comes between `line` and it."""
        if end is None:
            return None
        stop = self._after(self.headlines, line)
        return end if stop is None or end < stop else None

    def subtree_end(self, line: int, level: int) -> int:
        """The first headline past `line` of `level` stars or fewer (where the subtree of
        the headline at `line` ends), else the end of the file. The headlines passed over
        are those the reader skips: each is looked at once in all."""
        index = bisect.bisect_right(self.headlines, line)
        while index < len(self.headlines) and self.levels[index] > level:
            index += 1
        return self.headlines[index] if index < len(self.headlines) else self.count

    def block(self, name: str, line: int) -> int | None:
        return self._within_section(self._after(self.blocks[name], line), line)

    def drawer(self, line: int) -> int | None:
        return self._within_section(self._after(self.drawers, line), line)


class _Reader(LineReader):
    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.ends = _Ends(lines)
        self.keywords = set(DEFAULT_KEYWORDS)
        self.title_at: int | None = None
        first_headline = self.ends.headlines[0] if self.ends.headlines else len(lines)
        for number, line in enumerate(lines):
            named = keyword_line(line) if line.startswith("#+") else None
            if named is None:
                continue
            if named[0] in KEYWORD_SETTINGS:
                self.keywords |= declared_keywords(named[1])
            elif named[0] == "title" and self.title_at is None and number < first_headline:
                self.title_at = number

    def block(self, i: int) -> int:
        line = self.lines[i]
        text = line.strip()
        if not text:
            self.writer.end_lines()
            return i + 1
        titled = headline(line, frozenset(self.keywords)) if line.startswith("*") else None
        if titled is not None:
            self.writer.end_lines()
            if titled.commented:  # left out with all it holds, as Org's export does
                return self.ends.subtree_end(i, titled.level)
            self._headline(i, titled.level, titled.title, titled.state())
            return i + 1
        if text.startswith("#+"):
            return self._keyword(i)
        if text == "#" or text.startswith("# "):
            return i + 1  # a comment
        drawer = drawer_name(line)
        if drawer is not None and drawer != "end":
            end = self.ends.drawer(i)
            if end is not None:
                return end + 1 if drawer in DROPPED_DRAWERS else i + 1
        if drawer == "end":
            return i + 1
        if text.startswith("|"):
            row = _table_row(line)
            if row is not None:
                self.place(i)
                self.writer.line(row)
            return i + 1
        if text == ":" or text.startswith(": "):
            return self._fixed_width(i)
        if _rule(text):
            return i + 1
        item = list_item(line)
        if item is not None:
            return self._list_item(i, *item)
        return self._paragraph(i)

    def _headline(self, i: int, level: int, title: str, state: str) -> None:
        self.place(i)
        self.writer.heading(level + (self.title_at is not None), shown(title))
        if state:
            self.writer.paragraph(state)

    def _keyword(self, i: int) -> int:
        named = keyword_line(self.lines[i])
        name, value = named if named is not None else ("", "")
        self.place(i)
        if name.startswith("begin_"):
            return self._block(i, name[6:], value)
        if name == "title" and i == self.title_at:
            self.writer.heading(1, shown(value))
        elif name == "caption":
            self.writer.paragraph(shown(value))
        elif name == "include":
            target = value.split('"')[1] if value.count('"') >= 2 else value.partition(" ")[0]
            self.writer.paragraph(f"(includes {target})")  # never read
        return i + 1

    def _block(self, i: int, name: str, arguments: str) -> int:
        end = self.ends.block(name, i)
        if end is None:
            return self._paragraph(i)  # not closed in its section: Org reads it as text
        if name == "comment":
            return end + 1
        if name in VERBATIM:
            body = [_unescaped(line) for line in self.lines[i + 1 : end]]
            language = arguments.split()[0] if arguments and name == "src" else ""
            self.writer.code("\n".join(body), language, i + 2)
            return end + 1
        if name in ADMONITIONS:
            self.writer.paragraph(name.upper() + ":")
        return i + 1  # its contents are read as they come; its end line is a keyword

    def _fixed_width(self, i: int) -> int:
        end = i
        while end < len(self.lines):
            text = self.lines[end].strip()
            if text != ":" and not text.startswith(": "):
                break
            end += 1
        body = [line.strip()[2:] for line in self.lines[i:end]]
        self.writer.code("\n".join(body), "", i + 1)
        return end

    def _continues(self, line: str) -> bool:
        """Whether `line` goes on with the paragraph or item before it."""
        text = line.strip()
        if not text or text.startswith(("#+", "|")) or text == "#" or text.startswith("# "):
            return False
        if line.startswith("*") and headline(line, DEFAULT_KEYWORDS) is not None:
            return False
        if text == ":" or text.startswith(": ") or drawer_name(line) is not None:
            return False
        return list_item(line) is None and not _rule(text)

    def _paragraph(self, i: int) -> int:
        end = i + 1
        while end < len(self.lines) and self._continues(self.lines[end]):
            end += 1
        self.place(i, end - 1)
        self.writer.paragraph(shown("\n".join(line.strip() for line in self.lines[i:end])))
        return end

    def _list_item(self, i: int, indent: int, text: str) -> int:
        """An item and the lines indented under it that continue it."""
        end = i + 1
        parts = [text]
        while end < len(self.lines):
            line = self.lines[end]
            deeper = len(line) - len(line.lstrip()) > indent
            if not self._continues(line) or not (deeper or _wrapped(parts[-1], line)):
                break
            parts.append(line.strip())
            end += 1
        self.place(i, end - 1)
        level = min(indent // 2, MAX_INDENT_LEVELS)
        self.writer.line(shown(" ".join(parts)), 2 * level)
        return end


def _wrapped(item: str, line: str) -> bool:
    """Does a line no deeper than an item's bullet go on with it? Org ends the item there,
    but an author who wraps by hand writes on at the margin: Postmodern's manual
    (newuser56) had "- S-SQL is used to compile … doing as much as" / "possible of the work
    at compile time.", read as an item and a paragraph of half a sentence each (the keyless
    answer quoted "possible of the work at compile time. Finally,"). Only when the item
    stops mid-sentence and the line does not start one: a paragraph written under a list
    without a blank line ("- SET NULL" / "Set the referencing column(s) to null." in the
    same manual's create-tables page, "- pears" / "The fruit is fresh.") is its own."""
    return _unfinished(item) and not _starts_sentence(line.strip())


def _unfinished(text: str) -> bool:
    """Does an item's line stop mid-sentence? Not when it ends a sentence or a lead-in,
    its stop inside a closing bracket, quote or markup (`(see 2.)`, `"stop."`,
    `=make.=`) or before a footnote (`a claim.[fn:1]`)."""
    text = text.rstrip()
    if text.endswith("]") and "[fn:" in text:
        text = text[: text.rfind("[fn:")]
    return not text.rstrip(_CLOSERS).endswith(_STOPS)


_STOPS = (".", "!", "?", ":", ";", "。", "！", "？", "：", "；", "…")
_CLOSERS = ")]}\"'”’»=~*/+_ "


def _starts_sentence(text: str) -> bool:
    """A capital then a small letter or a non-letter ("Set the", "A list", "I think"); not
    a small letter ("possible of"), an acronym ("SQL types") or a mark ("(see below)")."""
    first, second = text[:1], text[1:2]
    return first.isupper() and not (second.isalpha() and second.isupper())


def _rule(text: str) -> bool:
    """A horizontal rule (five dashes or more): an element of its own, which ends the
    paragraph or item above it rather than being read as its words."""
    return len(text) >= 5 and text.count("-") == len(text)


def _unescaped(line: str) -> str:
    """A code line without the comma Org puts before a `*` or `#+` that starts it."""
    text = line.lstrip()
    if text.startswith((",*", ",#+")):
        return line[: len(line) - len(text)] + text[1:]
    return line


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    return _Reader(split_lines(text)).document(name, notes)
