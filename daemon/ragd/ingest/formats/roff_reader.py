"""Reading a man page's troff line by line: what both macro packages share (pure).

`RoffReader` runs the page's lines through the troff requests that decide what text a
reader sees — macro definitions and `.ig` blocks (not shown; one the file never closes
ends at its opening line, and the lines after it are read as the page's: troff hides
the rest of the file, where a reader would rather see its text), string definitions, the
`.if`/`.ie`/`.el` conditionals as nroff (the terminal formatter `man` runs) takes them,
no-fill blocks, `tbl` tables, `.so` includes — and hands every other request to the
macro package (`macro`, in `man_macros` and `mdoc`). Requests that only format
(`.ne`, `.ad`, `.hy`, `.ft`…) print nothing and are dropped; an unknown macro keeps the
words it was given, since a page's own macros (`.URL` in util-linux's pages) carry text.

Work is linear in the page: one pass, each line read once (twice after a block never
closed, and no more: `_feed_lines`); a conditional nested inside a
conditional is followed at most `MAX_NESTED` deep on one line; a string a page defines is
capped at `MAX_STRING` characters (`.ds a \\*a\\*a` doubles it per line otherwise), and
the strings one line prints add at most `troff.STRING_ALLOWANCE` beyond its own length,
and those the whole page prints at most `troff.DOCUMENT_ALLOWANCE` beyond the page's size.
"""

from __future__ import annotations

from ragd.ingest.formats.man_blocks import Blocks
from ragd.ingest.formats.markdown import clean
from ragd.ingest.formats.troff import (
    CHAR_KEY,
    CHARACTER,
    STRINGS,
    Strings,
    continues,
    is_control,
    render,
    render_all,
    split_arguments,
    split_request,
    strip_comment,
)

MAX_NESTED = 8  # `.if n .if n …` followed this deep on one line
MAX_STRING = 1_000  # characters a `.ds` string may hold
MAX_STRINGS = 2_000  # strings a page may define
# Requests that format but print nothing (man(7), mdoc(7) and troff's own).
NO_TEXT = frozenset(
    "ad na hy nh ne ft fam ps vs ll in ti ta tc lc ce ul cu nr rr rm rn als ev pc hw hc "
    "cc c2 ec eo lf tm tm1 ab ex it itc mso do nroff troff pl bp pn po ns rs fl cs bd "
    "tr char fchar schar lg kern ss sy pso open close write opena nop return shift "
    "PD DT AT UC IX PU LO HY Hy fp fzoom ftr hla hlm hpf hym hys linetabs mk rt defcolor blm "
    "lsm warn".split()
)  # fmt: skip
# Conditions on a name (`d sopath`: is the string or macro defined; `r`: the register).
NAMED_TESTS = frozenset({"d", "r", "m", "c", "F", "S"})
TERMINATED_BY_DOTS = frozenset({"de", "de1", "dei", "am", "am1", "ami", "ig"})
DEFINES = frozenset({"de", "de1", "dei", "am", "am1", "ami"})
# Requests that, inside a macro's definition, show none of the words it is called with:
# the formatting-only ones, breaks, and the margin character Tcl's `.VS` sets. Not `.nop`
# and `.do`, which print the rest of their line (`.nop \\$1`): a page's own words.
QUIET_IN_DEFINITIONS = (NO_TEXT - {"nop", "do"}) | {"", "br", "sp", "mc", "mk"}


class RoffReader:
    """The shared line loop; a macro package overrides `macro`."""

    def __init__(self, page: str = "") -> None:
        self.page = page  # the name the page is installed under (`tar` for tar.1.gz)
        self.blocks = Blocks()
        self.strings = Strings(STRINGS)
        self.skip_to: str | None = None  # the request ending a `.de`/`.ig` block (`.`: `..`)
        # Where the lines after the last such block's opening line start (0-based), and
        # where the line being fed ends: a block never closed is read again from there.
        self.block_after = 0
        self.line_end = 0
        self.false_depth = 0  # inside a conditional block that nroff does not read
        self.last_condition = True  # the outcome of the last `.ie`, for its `.el`
        # Inside `.TS`: "options", then "format" until its format line ends, then "rows".
        self.table: str | None = None
        self.tab = "\t"  # the table's cell separator
        self.row: list[str] = []  # the lines of a table row not yet complete
        self.row_open = 0  # `T{` cells open in it
        self.row_start = 0  # the line it starts on
        self.pending_heading = 0  # `.SH` with no words: the next text line is the heading
        self.depth = 0  # `.RS` levels open (counted, capped: it only ever ends blocks)
        # Macros the page defines whose bodies print nothing (`silent`), and the one whose
        # `.de` body is being read with whether it has printed nothing so far.
        self.silent: set[str] = set()
        self.defining: tuple[str, bool] | None = None

    def read(self, lines: list[str]) -> Blocks:
        self.strings.allow(sum(len(line) + 1 for line in lines))
        self._feed_lines(lines, 0)
        if self.skip_to is not None:  # a `.de`/`.ig` block the file never closed
            resume, self.skip_to, self.defining = self.block_after, None, None
            self._feed_lines(lines, resume)
        self.write_row(len(lines))  # a `T{` cell the file never closed
        return self.blocks

    def _feed_lines(self, lines: list[str], begin: int) -> None:
        """Feed `lines[begin:]`, a line ending in an escaped newline joined to the next.
        An unclosed block's lines are read a second time (`read`), no more: what that
        second reading leaves open stays unread, so a file is read at most twice."""
        joined: list[str] = []  # lines ending in an escaped newline, joined to the next
        start = begin + 1
        for number in range(begin + 1, len(lines) + 1):
            raw = lines[number - 1]
            if not joined:
                start = number
            if (len(raw) - len(raw.rstrip("\\"))) % 2:
                joined.append(raw[:-1])
                continue
            self.line_end = number
            self.feed("".join([*joined, raw]) if joined else raw, start)
            joined = []
        if joined:
            self.line_end = len(lines)
            self.feed("".join(joined), start)

    def feed(self, raw: str, number: int) -> None:
        if self.skip_to is not None:
            if is_control(raw) and split_request(raw)[0] == self.skip_to:
                self.skip_to = None  # `..`, `.  .` or `.END` for `.de NAME END`
                self.defined()
            elif self.defining is not None:
                name, quiet = self.defining
                self.defining = (name, quiet and _prints_nothing(raw))
            return
        if self.false_depth:
            self.false_depth += raw.count("\\{") - raw.count("\\}")
            self.false_depth = max(self.false_depth, 0)
            return
        line = strip_comment(raw)
        if not line.strip() and raw.lstrip().startswith("\\#"):
            return  # `\#` removes its line, newline and all
        for _ in range(MAX_NESTED + 1):  # the last turn reads the text the last one runs
            if not is_control(line):
                break
            name, rest = split_request(line)
            if name not in ("if", "ie", "el"):
                self.request(name, rest, number)
                return
            taken = self.condition(name, rest)
            if taken is None:
                return
            line = taken
        else:
            return
        self.text_line(line, number)

    def condition(self, name: str, rest: str) -> str | None:
        """The line a conditional runs, or None when nroff would not run it (a block
        `\\{ … \\}` not run is then skipped up to its end)."""
        rest = rest.lstrip(" \t")
        if name == "el":
            holds, body = not self.last_condition, rest
        else:
            test, body = _split_condition(rest)
            holds = _nroff_holds(test)
            if name == "ie":
                self.last_condition = holds
        body = body.lstrip(" \t")
        opens = body.startswith("\\{")
        if opens:
            body = body[2:].lstrip(" \t")
        if not holds:
            if opens:
                self.false_depth = max(1 + body.count("\\{") - body.count("\\}"), 0)
            return None
        return body if body.strip() else None

    def text_line(self, line: str, number: int) -> None:
        if self.table is not None:
            self.table_line(line, number)
            return
        if not line.strip() and self.blocks.code is None:
            self.blocks.flush()  # a blank line is a paragraph break (`.sp`)
            return
        text = render(line, self.strings)
        if self.pending_heading:
            level, self.pending_heading = self.pending_heading, 0
            self.blocks.heading(level, text, number)
            return
        self.blocks.text(text, number, continues(line))

    def request(self, name: str, rest: str, number: int) -> None:
        """A troff request both packages know, else the macro package's `macro`."""
        args = split_arguments(rest)
        if name in TERMINATED_BY_DOTS:
            end = args[0] if name == "ig" and args else (args[1] if len(args) > 1 else ".")
            self.skip_to, self.block_after = end, self.line_end
            if name in DEFINES and args:
                appended = name.startswith("am") and args[0] not in self.silent
                self.defining = (args[0], not appended)
        elif name in ("ds", "ds1", "as", "as1"):
            self.define(name, rest)
        elif name in ("char", "fchar", "schar"):
            self.define_character(rest)
        elif name == "so":
            self.blocks.flush()
            self.blocks.text(f"(includes {' '.join(args)})", number)
            self.blocks.flush()
        elif name in ("nf", "EX"):
            self.blocks.start_code()
        elif name in ("fi", "EE"):
            self.blocks.end_code()
        elif name == "br":
            self.blocks.line_break()
        elif name == "sp":
            self.paragraph_break(number)
        elif name == "TS":
            self.blocks.flush()
            self.table, self.tab, self.row, self.row_open = "options", "\t", [], 0
        elif name == "T&" and self.table is not None:
            self.table = "format"  # a new format for the rows that follow
        elif name == "TE":
            self.write_row(number)  # a `T{` cell never closed ends with its table
            self.blocks.flush()
            self.table = None
        elif name not in NO_TEXT and name:
            self.macro(name, args, number)

    def title(self, words: list[str]) -> str:
        """The page's heading from its title macro's words (`.TH` or mdoc's `.Dt`)."""
        return page_title(words, self.page)

    def paragraph_break(self, number: int) -> None:
        if self.blocks.code is not None:
            self.blocks.text("", number)
        else:
            self.blocks.flush()

    def define(self, name: str, rest: str) -> None:
        """`.ds name value` (`.as` appends): a string the page prints with `\\*(name`. The
        strings a definition names are looked up against its line's allowance alone, not
        the page's printing allowance: what it stores is held to `MAX_STRING`, so each
        definition costs its line's length and no more, and printing is what the page's
        allowance bounds. A definition doubling itself (`.ds x \\*x\\*x`, 1,000 lines)
        had spent that allowance, so every string printed after it printed nothing."""
        key, _, value = rest.lstrip(" \t").partition(" ")
        value = value.lstrip(" \t")
        value = render(value[1:] if value.startswith('"') else value, self.strings.defined)
        if name.startswith("as"):
            value = self.strings.get(key, "") + value
        if key and (key in self.strings or len(self.strings) < MAX_STRINGS):
            self.strings[key] = value[:MAX_STRING]

    def define_character(self, rest: str) -> None:
        """`.char \\[pdfmom] \\*[BD]pdfmom`: a character the text prints as `\\[pdfmom]`
        (mom's documents name their programs so): read as `\\[pdfmom]` without its
        definition, each had printed nothing."""
        match = CHARACTER.match(rest.lstrip(" \t"))
        if match is None:
            return
        key = CHAR_KEY + (match.group(1) or match.group(2))
        value = rest.lstrip(" \t")[match.end() :].lstrip(" \t")
        value = render(value[1:] if value.startswith('"') else value, self.strings.defined)
        if key in self.strings or len(self.strings) < MAX_STRINGS:
            self.strings[key] = value[:MAX_STRING]

    def table_line(self, line: str, number: int) -> None:
        """A `tbl` table: its options (`tab(:)` names the cell separator) and format lines
        are layout, its rows text: one line each, cells joined by ` | `; a `T{ … T}` cell
        runs over lines, and its row with it."""
        stripped = line.strip()
        if self.table == "options":
            self.table = "format"
            if stripped.endswith(";"):
                found = stripped.find("tab(")
                self.tab = stripped[found + 4] if 0 <= found < len(stripped) - 4 else "\t"
                return
        if self.table == "format":
            if stripped.endswith("."):
                self.table = "rows"
            return
        if not self.row and stripped in ("_", "=", ""):
            return
        if not self.row:
            self.row_start = number
        self.row.append(line)
        self.row_open += line.count("T{") - line.count("T}")
        if self.row_open <= 0:
            self.write_row(number)

    def write_row(self, number: int) -> None:
        """The table row read so far, as one line of its cells joined by ` | `: when it is
        complete, or when its table or the file ends inside a `T{` cell never closed
        (whose text, every line since the `T{`, had been dropped there)."""
        if not self.row:
            return
        cells = "\n".join(self.row).replace("T{", "").replace("T}", "").split(self.tab)
        text = " | ".join(c for c in (clean(c) for c in render_all(cells, self.strings)) if c)
        self.row, self.row_open = [], 0
        if text:
            self.blocks.text(text, self.row_start, until=number)
            self.blocks.line_break()

    def defined(self) -> None:
        """A `.de` body has ended: the macro is silent if no line of it printed."""
        if self.defining is not None:
            name, quiet = self.defining
            if quiet and len(self.silent) < MAX_STRINGS:
                self.silent.add(name)
            else:
                self.silent.discard(name)  # redefined to print
            self.defining = None

    def macro(self, name: str, args: list[str], number: int) -> None:
        """A macro the package does not know: its words are kept, its numbers dropped;
        none of a macro the page defined to print nothing (Tcl's `.AS Tcl_Interp
        Tcl_CreateInterp in/out`, which only measures tab stops, had been a section of its
        own atop each of tcllib's 432 pages: newuser45)."""
        if name in self.silent:
            return
        words = render_all(args, self.strings)
        if any(c.isalpha() for word in words for c in word):
            self.blocks.text(" ".join(words), number)


def _prints_nothing(raw: str) -> bool:
    """Whether a line of a macro's definition prints nothing: blank, a comment, or a
    request (behind conditions, `.if !"\\$1"" .nr )A 10n`) that only formats. A text line,
    a block `\\{ … \\}` or anything else is taken to print."""
    line = strip_comment(raw)
    for _ in range(MAX_NESTED):
        if not line.strip():
            return True
        if not is_control(line):
            return False
        name, rest = split_request(line)
        if name not in ("if", "ie", "el"):
            return name in QUIET_IN_DEFINITIONS
        body = rest if name == "el" else _split_condition(rest.lstrip(" \t"))[1]
        line = body.lstrip(" \t")
        if line.startswith("\\{"):
            return False
    return False


def page_title(words: list[str], page: str = "") -> str:
    """`.TH TAR 1` in tar.1.gz → `tar(1)`; `.TH FAQ 3pm` in Log::Log4perl::FAQ.3pm.gz →
    `Log::Log4perl::FAQ(3pm)`.

    An all-capitals title that is the file's name (headers print `LS(1)`), or a title that is
    the last `::` parts of a module's name (pod2man's title for a module's page), is written
    as the file is named: the name `man` is called with. Any other all-capitals title is a
    command's name shouted (`.TH PYTHON 1` in python3.11.1) and is lower-cased; a title in
    mixed capitals is the page's own spelling (`.TH vDSO 7`) and is kept, as `man` shows it.
    """
    if not words:
        return ""
    name = words[0]
    installed, folded = page.casefold(), name.casefold()
    shouted = name.isupper()
    if page.endswith("::" + name) or (
        shouted and page and (installed == folded or installed.endswith("::" + folded))
    ):
        name = page
    elif shouted:
        name = name.lower()
    return f"{name}({words[1]})" if len(words) > 1 and words[1] else name


def _split_condition(rest: str) -> tuple[str, str]:
    """(condition, what it runs): `'a'b' .TP` compares two strings, which may hold blanks."""
    negated = rest.startswith("!")
    delimiter = rest[1:2] if negated else rest[:1]
    if delimiter and not delimiter.isalnum() and delimiter not in "\\(!":
        first = rest.find(delimiter, 1 + negated)
        second = rest.find(delimiter, first + 1) if first >= 0 else -1
        if second >= 0:
            return rest[: second + 1], rest[second + 1 :]
    test, _, body = rest.partition(" ")
    if test.removeprefix("!") in NAMED_TESTS:  # `!d sopath .ds sopath`: the name is the test's
        name, _, body = body.lstrip(" \t").partition(" ")
        test = f"{test} {name}"
    return test, body


def _nroff_holds(test: str) -> bool:
    """Whether nroff takes a condition: `n` (the terminal formatter) yes, `t` no; groff's
    `\\n(.g` is set (man runs groff); a comparison or register we do not track, no."""
    negated = test.startswith("!")
    test = test[1:] if negated else test
    if test == "n" or test.startswith(("\\n(.g", "\\n[.g]")):
        holds = True
    elif test[:1] and not test[:1].isalnum() and test[:1] not in "\\(":
        parts = test.split(test[0])  # 'a'b': equal strings
        holds = len(parts) == 4 and parts[1] == parts[2]
    elif test in ("t", "o", "e", "v") or test.partition(" ")[0] in NAMED_TESTS:
        holds = False  # (a string, register or macro we do not know of is not defined)
    else:
        holds = test[:1].isdigit() and test.lstrip("0123456789") == "" and int(test[:9]) > 0
    return holds != negated
