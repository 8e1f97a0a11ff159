"""LaTeX (``.tex``): sections become heading paths.

Read in one pass by a reader of our own, as TeX reads a file, expanding no macro but
the document's own argument-less ones whose bodies are words (`latex_definitions`):
pylatexenc 2.10 (the maintained Python parser) left verbatim blocks out, raised
IndexError on a plain ``\\href{…}{…}`` and recursed once per brace (RecursionError at
500 nested groups, which would skip the file).

- ``\\title{}`` heads the file (level 1); ``\\part`` … ``\\subparagraph`` (starred too) are
  headings, levels counted from the shallowest one the file uses; a ``\\section[short]{long}``
  is headed by its long title, the one printed above the section (the short one is the
  table of contents' abbreviation). ``abstract`` and ``thebibliography`` are headed
  "Abstract" and "References" beside the top sections.
- The preamble (before ``\\begin{document}``, when there is one) is not text, and nothing
  after ``\\end{document}`` is; comments (``%`` to the end of the line, not ``\\%``) and
  ``comment`` environments are dropped, and so is ``\\iffalse … \\fi``.
- ``verbatim``, ``lstlisting``, ``minted`` (…) are code blocks, in their language when
  they name one; ``\\verb|x|`` is `` `x` ``.
- ``itemize``/``enumerate``/``description`` are lists (``\\item[term]`` as "term: …");
  ``tabular`` and its kin are rows ``| a | b |``; rules (``\\hline``) are left out.
- Math stays as its source between dollars (``$x^2$``, display math ``$$…$$``): it is what
  the author wrote and a user types, and the dollars say it is a formula, where a bare
  ``\\frac{a}{b}`` would read as noise.
- ``\\cite{k}`` is "[k]": the key names the bibliography entry, where "[1]" names nothing.
  ``\\label``, ``\\ref`` and their kin are dropped: the number a reader sees ("Section 3")
  is computed by LaTeX, and the key is the author's handle, not the text.
- ``\\emph{x}``, ``\\textbf{x}`` and any command not known here show their arguments'
  words; ``\\href{url}{text}`` its text, ``\\url{u}`` the address; a footnote is put in
  parentheses where it stands; ``\\input{f}``/``\\include{f}`` are "(includes f)", never read.

Linear in the file's length: one forward scan, an explicit stack of open groups and
environments (100,000 nested braces are a list, not recursion), each closing string
searched for once (`latex_source.Source`), a word macro's words worked out once when it
is defined (a ``\\def`` that calls itself shows nothing) and capped in length, count and
total shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from ragd.ingest.document import Document, decode_text, split_lines
from ragd.ingest.formats import latex_macros as known
from ragd.ingest.formats.latex_definitions import Definitions
from ragd.ingest.formats.latex_source import Source
from ragd.ingest.formats.line_reader import markdown_document
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "LaTeX"
_SPECIAL = re.compile(r"[\\{}\]$%&~\n]")
MAX_CAPTURES = 8  # headings' titles captured inside each other (more are read as text)
MAX_LEVEL = 6
# A footnote inside a title, marked while the title is read (control characters: what
# `decode_text` leaves of them in a file can at worst move words out of a heading).
NOTE_OPEN, NOTE_CLOSE = "\x01", "\x02"
MAX_LIST_INDENT = 4  # nested lists indent two spaces a level, up to this many levels


@dataclass
class _Frame:
    """An open group or environment: where text inside it goes, and what closing it does."""

    out: list[str]
    kind: str = "group"  # "group" ({…}), "bracket" ([…] of \item), "env"
    env: str = ""
    short: bool = False  # ended by a paragraph's end, as LaTeX ends a section title
    captured: bool = False  # `out` is its own, handed to `on_close`
    on_close: Callable[[str, bool], None] | None = None  # (text, closed by its own mark)


@dataclass
class _List:
    name: str
    marker: str  # "- ", or "1" for numbered items
    indent: int
    count: int = 0


@dataclass
class _Table:
    cell: list[str] = field(default_factory=list)
    cells: list[str] = field(default_factory=list)
    line: int = 0


class _Reader:
    def __init__(self, text: str, preamble: bool) -> None:
        self.src = Source(text)
        self.preamble = preamble  # text is dropped until \begin{document}
        self.block: list[str] = []
        self.block_line: int | None = None
        # The block is a list item's: (its prefix, indentation, whether the prefix says more
        # than a bullet or number: a description's term, a bibliography entry's key).
        self.item: tuple[str, int, bool] | None = None
        self.stack = [_Frame(self.block, kind="root")]
        self.lists: list[_List] = []
        self.tables: list[_Table] = []
        self.open_envs: dict[str, int] = {}
        self.captures = 0
        self.title: str | None = None
        # The depth of the last sectioning command: a Beamer frame's title heads a
        # section one deeper (None: no sectioning command yet, frames at the top).
        self.section_depth: int | None = None
        # The innermost sectioning command's heading (depth, title), else the document's
        # title: what a frame without a title of its own stands under.
        self.section_heading: tuple[int, str] | None = None
        self.under_frame = False  # the last heading written is a frame's title
        # Where the `]` closing the last \item's term is: an \item before it is part of
        # that term, as TeX reads an optional argument to its `]`, not an item whose
        # term is looked for again (each `\item[` scanned to the same `]`: n², a line
        # of 20,000 of them took 110 s).
        self.term_end = -1
        self.ops: list[tuple] = []  # what to write, replayed once heading levels are known
        self.definitions = Definitions()  # the document's own macros that stand for words
        self.ended = False

    # ---- the scan ----

    def run(self) -> None:
        src, text = self.src, self.src.text
        while src.pos < src.end and not self.ended:
            match = _SPECIAL.search(text, src.pos)
            stop = match.start() if match else src.end
            if stop > src.pos:
                self.emit(text[src.pos : stop].replace("``", '"').replace("''", '"'))
            src.pos = stop + 1
            if match is None:
                break
            mark = match.group()
            if mark == "\\":
                self._control()
            elif mark == "{":
                self.stack.append(_Frame(self.out))
            elif mark == "}":
                if self.stack[-1].kind == "group":
                    self._pop(closed=True)
            elif mark == "]":
                if self.stack[-1].kind == "bracket":
                    self._pop(closed=True)
                else:
                    self.emit("]")
            elif mark == "$":
                self._dollar()
            elif mark == "%":
                self._comment()
            elif mark == "&":
                self._next_cell()
            elif mark == "~":
                self.emit(" ")
            elif src.peek() == "\n":
                while src.peek() == "\n":
                    src.pos += 1
                self.paragraph_end()
            else:
                self.emit(" ")
        while len(self.stack) > 1:
            self._pop(closed=False)
        self.flush()

    @property
    def out(self) -> list[str]:
        return self.stack[-1].out

    def emit(self, text: str) -> None:
        out = self.out
        out.append(text)
        if out is self.block and self.block_line is None and text.strip():
            self.block_line = self.src.line()

    def _comment(self) -> None:
        """`%` to the end of the line, its line break and the next line's indentation."""
        src = self.src
        newline = src.find("\n", src.pos)
        src.pos = src.end if newline < 0 else newline + 1
        while src.peek() in (" ", "\t") and src.peek():
            src.pos += 1
        if src.peek() == "\n":  # the next line is blank: a paragraph ends
            while src.peek() == "\n":
                src.pos += 1
            self.paragraph_end()

    def paragraph_end(self) -> None:
        while self.stack[-1].short:
            self._pop(closed=False)
        if self.out is self.block and self.item is None:
            self.flush()
        else:
            self.emit(" ")

    def push(self, frame: _Frame) -> None:
        if frame.captured:
            if self.captures >= MAX_CAPTURES:
                frame.out, frame.captured = self.out, False
            else:
                self.captures += 1
        if frame.env:
            self.open_envs[frame.env] = self.open_envs.get(frame.env, 0) + 1
        self.stack.append(frame)

    def _pop(self, closed: bool) -> None:
        frame = self.stack.pop()
        if frame.env:
            self.open_envs[frame.env] -= 1
        if frame.captured:
            self.captures -= 1
        if frame.on_close is not None:
            frame.on_close("".join(frame.out) if frame.captured else "", closed)

    # ---- blocks ----

    def flush(self) -> None:
        """Write the block of text read so far: a paragraph, or a list item's line."""
        text = clean("".join(self.block))
        self.block.clear()
        line, self.block_line = self.block_line, None
        until = self.src.line()
        if self.item is not None:
            prefix, indent, labelled = self.item
            if text or labelled:
                self.ops.append(("line", (prefix + text).strip(), indent, line or until, until))
            self.item = ("", indent, False)  # what follows in the item continues it
        elif text:
            self.ops.append(("paragraph", text, line or until, until))

    def flush_block(self) -> None:
        """Flush, unless the text read goes into a heading, a term or a table cell."""
        if self.out is self.block:
            self.flush()

    def heading(self, depth: int | None, title: str, line: int) -> None:
        """A heading `depth` deep (None: beside the top sections; -1: the title). A
        footnote in its title is a paragraph under it, out of the heading path."""
        title, notes = _notes_apart(title)
        if clean(title):
            self.ops.append(("heading", depth, clean(title), line))
        if clean(notes):
            self.ops.append(("paragraph", clean(notes), line, line))

    def capture(self, on_text: Callable[[str], None], short: bool = True) -> None:
        """Read the next `{…}` argument into `on_text` (nothing when there is none)."""
        src = self.src
        src.skip_space()
        if src.peek() != "{":
            on_text("")
            return
        src.pos += 1
        self.push(_Frame([], short=short, captured=True, on_close=lambda text, _: on_text(text)))

    def wrap(
        self,
        opening: str,
        closing: str,
        then_skip: str = "",
        after: Callable[[], None] | None = None,
    ) -> None:
        """The next `{…}` argument read as text between `opening` and `closing`; the
        arguments of `then_skip` after it skipped, then `after` called."""
        src = self.src
        src.skip_space()
        if src.peek() != "{":
            return
        src.pos += 1
        self.emit(opening)

        def close(_: str, closed: bool) -> None:
            self.emit(closing)
            if closed and then_skip:
                src.skip(then_skip)
            if after is not None:
                after()

        self.push(_Frame(self.out, on_close=close))

    # ---- commands ----

    def _control(self) -> None:
        src = self.src
        name = src.control_word()
        if not name:
            symbol = src.peek()
            src.pos += 1 if symbol else 0
            self._symbol(symbol)
            return
        src.star()
        if name in known.SECTIONS:
            self._section(known.SECTIONS[name])
        elif name == "title":
            self._title()
        elif name == "frametitle":
            self._frame_title()
        elif name == "begin":
            self._begin(src.required(long=False).strip())
        elif name == "end":
            self._end(src.required(long=False).strip())
        elif name in ("item", "bibitem"):
            self._item(name)
        elif name in known.WORDS:
            self.emit(known.WORDS[name])
        elif name in known.LETTER_ACCENTS:
            self._accent(name)
        elif name in known.CITATIONS:
            src.skip("oo")
            keys = [key.strip() for key in src.required(long=False).split(",")]
            self.emit(" [" + ", ".join(key for key in keys if key) + "]")
        elif name in known.INPUTS:
            self._input(name)
        elif name in known.DEFINITIONS:
            defined = src.required()  # the name
            start = src.pos
            brace = src.find("{", src.pos)
            src.pos = src.end if brace < 0 else brace
            body = src.required()  # the body, not read as text
            # A body never closed is none: what follows it is read as text. Recorded only
            # with no parameters before its brace: `\def\x{…}`.
            given_back = src.give_back(brace)
            if brace >= 0 and not given_back and not src.text[start:brace].strip():
                self.definitions.define(defined, None, body)
        else:
            self._other(name)

    def _other(self, name: str) -> None:
        src = self.src
        if name in ("verb", "lstinline", "mintinline"):
            self._inline_code(name)
        elif name in ("url", "nolinkurl"):
            self.emit(src.required(long=False, address=True))
        elif name == "href":
            src.required(long=False, address=True)  # the address; the text after it is read
        elif name == "iffalse":
            src.past_false_branch()
        elif name in ("par", "endgraf"):
            self.paragraph_end()
        elif name == "tabularnewline":
            self._row_end()
        elif name == "caption":
            src.skip("o")
            self.flush_block()
            self.wrap("", "", after=self.flush_block)
        elif name in known.WRAPPED:
            src.skip(known.SKIPPED.get(name, ""))
            if self.captures and self.out is not self.block:  # in a title: set apart
                self.wrap(NOTE_OPEN, NOTE_CLOSE)
            else:
                self.wrap(*known.WRAPPED[name])
        elif name == "texorpdfstring":
            self.wrap("", "", then_skip="r")
        elif name in known.COMMAND_DEFINITIONS:
            defined, arguments, _, body = src.skip(known.SKIPPED[name])
            replace = name != "providecommand"
            self.definitions.define(defined or "", arguments, body or "", replace)
        elif name in known.SKIPPED:
            src.skip(known.SKIPPED[name])
        else:
            shown = self.definitions.shown(name)
            if shown is not None:
                self.emit(shown)

    def _symbol(self, symbol: str) -> None:
        src = self.src
        if symbol == "\\":
            src.star()
            src.optional()  # \\[2mm]
            self._row_end()
        elif symbol in ("[", "("):
            closing = "\\]" if symbol == "[" else "\\)"
            self._math(closing, " $$" if symbol == "[" else "$", "$$ " if symbol == "[" else "$")
        elif symbol in known.ACCENTS:
            self._accent(symbol)
        else:
            self.emit(known.SYMBOLS.get(symbol, symbol))

    def _accent(self, mark: str) -> None:
        src, text = self.src, self.src.text
        pos = src.pos
        if mark in known.LETTER_ACCENTS and text.startswith(" ", pos):
            pos += 1
        if text.startswith("{", pos) and text.startswith("}", pos + 2):
            base, src.pos = text[pos + 1], pos + 3
        elif pos < src.end and text[pos].isalpha():
            base, src.pos = text[pos], pos + 1
        else:
            return
        self.emit(unicodedata.normalize("NFC", base + known.ACCENTS[mark]))

    def _section(self, depth: int) -> None:
        src = self.src
        src.optional()  # the short title, for the table of contents
        self.flush_block()
        line = src.line()
        self.section_depth = depth
        self.capture(lambda title: self._section_heading(depth, title, line))

    def _section_heading(self, depth: int, title: str, line: int) -> None:
        self.heading(depth, title, line)
        # An untitled section writes no heading: no frame in it is sent back to another.
        self.section_heading = (depth, title) if clean(title) else None
        self.under_frame = False

    def _frame_title(self) -> None:
        """A Beamer frame's title (`\\frametitle{…}`, `\\begin{frame}{…}`): the slide's
        heading, under the \\section or \\subsection it stands in. Read as words, every
        slide's text ran on under its section with no title of its own."""
        src = self.src
        self._skip_overlay()
        src.optional()  # the short title
        self.flush_block()
        line = src.line()
        depth = known.SECTIONS["section"] if self.section_depth is None else self.section_depth + 1
        self.capture(lambda title: self._frame_heading(depth, title, line))

    def _frame_heading(self, depth: int, title: str, line: int) -> None:
        self.heading(depth, title, line)
        self.under_frame = self.under_frame or bool(clean(title))

    def _untitled_frame(self) -> None:
        """A frame with no title (none as its argument, no `\\frametitle` before its end):
        its slide stands under the section it is in, as its own heading path says, not
        under the title of the frame before it (where its text ran on). Each of the two
        strings is searched for once and remembered (`Source.find`), so this is linear."""
        src = self.src
        end = src.find("\\end{frame}", src.pos)
        titled = src.find("\\frametitle", src.pos)
        if titled >= 0 and (end < 0 or titled < end):
            return
        if self.under_frame and self.section_heading is not None:
            self.heading(*self.section_heading, src.line())
            self.under_frame = False

    def _skip_overlay(self) -> None:
        """Past a Beamer overlay specification (`<2->`), which is not text."""
        src = self.src
        src.skip_space()
        if src.peek() == "<":
            close = src.find(">", src.pos)
            newline = src.find("\n", src.pos)
            if close >= 0 and (newline < 0 or close < newline):
                src.pos = close + 1

    def _title(self) -> None:
        src = self.src
        src.optional()
        line = src.line()

        def titled(title: str) -> None:
            if self.title is None and clean(title):
                self.title = clean(title)
                if not self.preamble:
                    self.heading(-1, title, line)

        self.capture(titled)

    def _item(self, name: str) -> None:
        src = self.src
        if not self.lists or src.pos < self.term_end:
            return
        self.flush()
        listed = self.lists[-1]
        listed.count += 1
        marker = f"{listed.count}. " if listed.marker == "1" else listed.marker
        if name == "bibitem":
            src.optional()
            self.item = (f"{marker}[{src.required(long=False).strip()}] ", listed.indent, True)
            return
        self.item = (marker, listed.indent, False)
        self._skip_overlay()  # Beamer's \item<2->
        src.skip_space()
        term_at = src.pos
        if src.peek() != "[" or src.optional() is None:
            return
        self.term_end = src.pos
        src.pos = term_at + 1  # the term read again as text: it may hold markup
        separator = ": " if listed.name == "description" else " "

        def termed(term: str, _: bool) -> None:
            term = "".join(_notes_apart(term))
            if clean(term):
                self.item = (f"{marker}{clean(term)}{separator}", listed.indent, True)

        self.push(_Frame([], kind="bracket", short=True, captured=True, on_close=termed))

    def _input(self, name: str) -> None:
        src = self.src
        src.skip_space()
        if name in ("import", "subimport"):
            folder = src.required(long=False).strip()
            target = folder + src.required(long=False).strip()
        elif name != "input" or src.peek() == "{":
            target = src.required(long=False).strip()
        else:  # TeX's own form, \input chapter1
            src.skip_space()
            start = src.pos
            while src.peek() and src.peek() not in " \n\t{}%\\":
                src.pos += 1
            target = src.text[start : src.pos]
        if target:
            self.flush_block()
            self.ops.append(("paragraph", f"(includes {target})", src.line(), src.line()))

    def _inline_code(self, name: str) -> None:
        src = self.src
        if name == "mintinline":
            src.skip("or")
        elif name == "lstinline":
            src.skip("o")
        delimiter = src.peek()
        if delimiter == "{" and name != "verb":
            self.emit(f"`{src.required(long=False)}`")
            return
        if not delimiter or delimiter.isalpha() or delimiter.isspace():
            return
        end = src.find(delimiter, src.pos + 1)
        newline = src.find("\n", src.pos + 1)
        if end < 0 or 0 <= newline < end:
            return  # not closed on its line: LaTeX would stop with an error
        self.emit(f"`{src.text[src.pos + 1 : end]}`")
        src.pos = end + 1

    # ---- math ----

    def _dollar(self) -> None:
        src = self.src
        if src.peek() == "$":
            src.pos += 1
            self._math("$$", " $$", "$$ ")
        else:
            self._math("$", "$", "$")

    def _math(self, closing: str, opening_shown: str, closing_shown: str) -> None:
        """Math up to `closing`, as written, unless a paragraph ends first (then the
        opening was a stray character and is shown as one)."""
        src = self.src
        found = src.find_unescaped(closing, src.pos)
        blank = src.find("\n\n", src.pos)
        if found < 0 or 0 <= blank < found:
            self.emit(opening_shown.strip())
            return
        body = src.text[src.pos : found]
        src.pos = found + len(closing)
        self.emit(f"{opening_shown}{clean(body)}{closing_shown}")

    # ---- environments ----

    def _begin(self, name: str) -> None:
        src = self.src
        if name == "document":
            if self.preamble:
                self.preamble = False
                self.ops.clear()  # what the preamble held is settings, not text
                self.block.clear()
                self.block_line, self.item = None, None
                if self.title:
                    self.heading(-1, self.title, src.line())
                    self.section_heading = (-1, self.title)
            return
        if name in known.VERBATIM and not self._boxed_text(name):
            self._verbatim(name)
        elif name in known.DROPPED:
            if src.until(f"\\end{{{name}}}") is None:
                src.pos = src.end
        elif name in known.MATH:
            body = src.until(f"\\end{{{name}}}")
            if body is None:
                self.push(_Frame(self.out, kind="env", env=name))
            else:
                self.emit(f" $${clean(body)}$$ ")
        elif name in known.LISTS:
            self._begin_list(name)
        elif name in known.TABLES:
            self._begin_table(name)
        else:
            if name == "frame":
                self._skip_overlay()
            src.skip(known.ENVIRONMENT_ARGUMENTS.get(name, ""))
            self.flush_block()
            if name == "abstract":
                self.heading(None, "Abstract", src.line())
            elif name in known.NAMED:
                self.emit(name.capitalize() + ". ")
            self.push(
                _Frame(self.out, kind="env", env=name, on_close=lambda _, __: self.flush_block())
            )
            if name == "frame":  # its title as its argument, read inside the frame
                self._skip_overlay()
                src.skip_space()
                if src.peek() == "{":
                    self._frame_title()
                else:
                    self._untitled_frame()

    def _end(self, name: str) -> None:
        if self.open_envs.get(name):
            while self.stack[-1].env != name:
                self._pop(closed=False)
            self._pop(closed=True)
        elif name == "document":
            self.ended = True

    def _boxed_text(self, name: str) -> bool:
        """Whether a `screen` is ascmac's box of text rather than Cadabra's session, which
        always names its input lines, `\\begin{screen}{1,2}`: the box takes no argument."""
        return name == "screen" and self.src.peek() != "{"

    def _verbatim(self, name: str) -> None:
        src = self.src
        options = src.skip(known.VERBATIM[name])
        language = _language(name, options)
        newline = src.text.find("\n", src.pos, src.pos + 2)  # the rest of the opening line
        if newline >= 0:
            src.pos = newline + 1
        first = src.line()
        body = src.until(f"\\end{{{name}}}")
        if body is None:  # never closed: LaTeX reads the rest of the file as verbatim
            body, src.pos = src.text[src.pos :], src.end
        self.flush_block()
        self.ops.append(("code", body, language, first))

    def _begin_list(self, name: str) -> None:
        self.src.skip(known.ENVIRONMENT_ARGUMENTS.get(name, "") + "o")
        self.flush_block()
        if name == "thebibliography":
            self.heading(None, "References", self.src.line())
        if not self.lists:  # a nested list stays in its list's block
            self.ops.append(("break",))
        indent = 2 * min(len(self.lists), MAX_LIST_INDENT)
        self.lists.append(_List(name, known.LISTS[name], indent))
        outer = self.item

        def close(_: str, __: bool) -> None:
            self.flush()
            self.lists.pop()
            self.item = ("", outer[1], False) if outer is not None and self.lists else None
            if not self.lists:
                self.ops.append(("break",))

        self.push(_Frame(self.block, kind="env", env=name, on_close=close))

    def _begin_table(self, name: str) -> None:
        self.src.skip(known.TABLES[name])
        self.flush_block()
        self.ops.append(("break",))
        table = _Table(line=self.src.line())
        self.tables.append(table)

        def close(_: str, __: bool) -> None:
            # The last row needs no `\\`: its cells are written here (the frame is
            # already off the stack, so `_row_end` would no longer see them as a cell's).
            self._write_row(table)
            self.tables.pop()
            self.ops.append(("break",))

        self.push(_Frame(table.cell, kind="env", env=name, on_close=close))

    def _in_cell(self) -> _Table | None:
        return self.tables[-1] if self.tables and self.out is self.tables[-1].cell else None

    def _next_cell(self) -> None:
        table = self._in_cell()
        if table is None:
            self.emit(" ")
            return
        table.cells.append(clean("".join(table.cell)))
        table.cell.clear()

    def _row_end(self) -> None:
        table = self._in_cell()
        if table is None:
            self.emit(" ")
            return
        self._write_row(table)

    def _write_row(self, table: _Table) -> None:
        table.cells.append(clean("".join(table.cell)))
        table.cell.clear()
        if any(table.cells):
            row = "| " + " | ".join(table.cells) + " |"
            self.ops.append(("line", row, 0, table.line, self.src.line()))
        table.cells.clear()
        table.line = self.src.line()

    # ---- writing ----

    def write(self) -> MarkdownWriter:
        """The operations collected, with heading levels counted from the shallowest
        sectioning command the file uses."""
        depths = [op[1] for op in self.ops if op[0] == "heading" and op[1] not in (None, -1)]
        top = min(depths, default=0)
        base = 2 if any(op[0] == "heading" and op[1] == -1 for op in self.ops) else 1
        writer = MarkdownWriter()
        for op in self.ops:
            kind = op[0]
            if kind == "break":
                writer.end_lines()
                continue
            if kind == "heading":
                _, depth, title, line = op
                level = 1 if depth == -1 else base + (top if depth is None else depth) - top
                writer.at, writer.until = line, None
                writer.heading(min(level, MAX_LEVEL), title)
            elif kind == "paragraph":
                writer.at, writer.until = op[2], op[3]
                writer.paragraph(op[1])
            elif kind == "line":
                writer.at, writer.until = op[3], op[4]
                writer.line(op[1], op[2])
            else:
                writer.at, writer.until = op[3], None
                writer.code(op[1], op[2], op[3])
        return writer


def _notes_apart(text: str) -> tuple[str, str]:
    """A captured title's own words, and the footnotes marked in it."""
    if NOTE_OPEN not in text:
        return text, ""
    own, notes = [], []
    for part in text.split(NOTE_OPEN):
        note, _, rest = part.rpartition(NOTE_CLOSE)
        notes.append(note)
        own.append(rest)
    return " ".join(own), " ".join(notes)


def _language(name: str, options: list[str | None]) -> str:
    """A listing's language: minted's argument, lstlisting's `language=…` option."""
    if name == "minted":
        return (options[-1] or "").strip().lower()
    for option in options:
        for setting in (option or "").split(","):
            key, _, value = setting.partition("=")
            if key.strip() == "language":
                return value.strip().strip("{}").split("]")[-1].strip().lower()
    return ""


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    text = "\n".join(line.rstrip() for line in split_lines(text))
    reader = _Reader(text, preamble="\\begin{document}" in text)
    reader.run()
    if reader.preamble:  # "\begin{document}" only in a comment or a verbatim block
        reader = _Reader(text, preamble=False)
        reader.run()
    return markdown_document(name, notes, reader.write())
