"""groff documents that are not man pages (pure): papers, books, letters and slides written
with the ms, me, mom or mm macro packages (`pic.ms`, `meintro.me`, `typesetting.mom`,
`short_reference.roff`, gzipped as Debian installs them).

They share troff with man pages (`roff_reader.RoffReader`: strings, conditionals, macro
definitions, tables); what differs is the macro package, read here as one: the heading
macros of all four head sections (ms `.NH 2` / `.SH` with the heading on the next line,
`.TL` the title; me `.sh 2 "Title"`, `.uh`; mom `.TITLE`, `.HEADING 2 NAMED id "Title"`;
mm `.H 2 "Title"`), their paragraph and list macros break paragraphs or open items,
displays (`.DS`/`.DE`, `.(l`/`.)l`) and the preprocessors' sources (a `pic` picture
between `.PS` and `.PE`, an `eqn` equation) are kept as written, line by line, and hdtbl's
table macros (`.TR .TD cell .TD cell`, several on a line) become rows of cells. A macro
the document defines itself is read by the base class (meref.me's own `.TL`), and a
macro that only sets a style (mom's `.PRINTSTYLE TYPESET`, `.FAMILY T`, hdtbl's
`.TBL border=0`: every word a keyword in capitals, a number or a `key=value`) prints
nothing. Linear in the document, as the man reader is.
"""

from __future__ import annotations

from ragd.ingest.document import Document, decode_text, split_lines
from ragd.ingest.formats import man
from ragd.ingest.formats.line_reader import markdown_document
from ragd.ingest.formats.roff_reader import DEFINES, MAX_STRING, RoffReader
from ragd.ingest.formats.troff import (
    is_control,
    render,
    render_all,
    split_arguments,
    split_request,
)

FORMAT = "groff document"
SUFFIXES = (".ms", ".me", ".mom", ".roff")  # not `.mm`: Objective-C++ sources are named so
MAX_LEVEL = 6

PARAGRAPHS = frozenset({"PP", "LP", "QP", "XP", "P", "pp", "lp", "hl", "QUOTE", "BLOCKQUOTE"})
# Displays and preprocessor sources, kept line by line: opening macro → closing one.
VERBATIM = {
    "DS": "DE", "ID": "DE", "LD": "DE", "CD": "DE", "BD": "DE", "(l": ")l", "(c": ")c",
    "PS": "PE", "EQ": "EN", "G1": "G2", "CODE_BLOCK": "CODE_BLOCK_OFF",
}  # fmt: skip
VERBATIM_ENDS = frozenset(VERBATIM.values())
# Blocks whose text is filled as paragraphs: keeps, quotes, footnotes, delayed text,
# abstracts.
BLOCK_EDGES = frozenset(
    "(b )b (z )z (q )q (f )f (d )d (x )x KS KE KF AB AE FS FE QS QE RS RE".split()
)
# Macros that print their arguments in a font (ms and me). me's print the first and the
# second glued to it (`.i fact or`: `factor`; `.q` in quotes), ms's the third, the first
# and the second (`.I troff ) (`: `(troff)`).
ME_FONTS = frozenset("b i r bi u q bx rb ib sm".split())
FONTS = ME_FONTS | frozenset("B I R BI BX UL CW".split())
# Requests and macros that, in a document's own macro, make it start a new paragraph.
BREAKS = PARAGRAPHS | frozenset({"br", "sp", "bp", "ip", "np", "IP", "SH", "NH", "sh", "uh"})
ITEMS = frozenset({"IP", "ip", "np", "bu", "ITEM", "LI"})
HDTBL = frozenset({"TBL", "TR", "TD", "TH", "ETB", "CPTN"})
# mom's and mm's title macros, whose words head the document; mom's text-bearing macros.
TITLES = frozenset({"TITLE", "DOCTITLE", "TL"})
BYLINES = frozenset({"SUBTITLE", "AUTHOR", "COPYRIGHT", "CHAPTER_TITLE", "AU", "AI"})
COVERS = frozenset({"DOC_COVER", "COVER"})
MOM_HEADS = {"HEAD": 2, "SUBHEAD": 3, "SUBSUBHEAD": 4}
LINK_WORDS = frozenset({"PREFIX", "SUFFIX"})
# mom's macros that name things rather than print them: link targets, the PDF's own
# title, colours (`.NEWCOLOUR dark-grey RGB #343434`), the document type.
# Pictures and www.tmac's page furniture (`.PSPIC -L gnu.eps 2i 2i`, `.ALN "#eeeeee" 30`,
# rules and link styles) name files and colours, not words.
QUIET = frozenset(
    "PDF_TARGET PDF_TITLE DOCTYPE HEAD NEWCOLOR NEWCOLOUR XCOLOR HEADER_LEFT HEADER_RIGHT "
    "HEADER_CENTER HEADER_CENTRE FOOTER_LEFT FOOTER_RIGHT FOOTER_CENTER FOOTER_CENTRE "
    "PSPIC PDFPIC PDF_IMAGE IMAGE ALN HX NHR HR LNS BCL BGIMG LINKSTYLE HTML-IMAGE "
    "HTML-IMAGE-LEFT HTML-IMAGE-RIGHT HTML-IMAGE-END HTML-IMAGE-INLINE".split()
) | frozenset("wh ch dt em nx rd".split())  # troff's traps and next file: `.wh -3 fo`
# Three-part titles, `'left'centre'right'` (`%` the page number): troff's `.tl` and me's
# running headers and footers, printed once each.
THREE_PART = frozenset({"tl", "he", "fo", "oh", "eh", "of", "ef"})
SWITCHES = frozenset({"on", "off", "end", "yes", "no"})  # mom's `.COVERTEXT end`, `.CODE off`


# The macros above and requests a groff document gives at the start of a line with `.`:
# any one of them (or a `.\\"` comment) makes a file named `*.me` or `*.ms` troff source.
# Not those that are English words or names a wrapped line of text may start with (`.in`,
# `.so files`, `.ls`, `.it`).
KNOWN = (
    PARAGRAPHS | VERBATIM.keys() | VERBATIM_ENDS | BLOCK_EDGES | BREAKS | ITEMS | HDTBL
    | TITLES | BYLINES | MOM_HEADS.keys()
    | frozenset("H HU HEADING START PRINTSTYLE de de1 am ig ds nr nf fi br sp bp TS TE "
                "mso tl ie".split())
)  # fmt: skip
MAX_SNIFFED = 4_000  # lines looked at for a request


def written_in_roff(text: str) -> bool:
    """Whether a `*.me`/`*.ms`/`*.mom`/`*.roff` file is troff source: a line of its first
    `MAX_SNIFFED` starts with `.` and a request or macro of the packages read here, or is a
    `.\\"` comment. A plain-text note named so (a DOS-era `READ.ME`, vim's `click.me`) has
    none; read as troff, its `'de facto'` line had opened a macro definition that swallowed
    the rest of the file and `C:\\new\\table` lost two words. A line starting with `'`
    (troff's other control character) is not counted: plain text quotes so."""
    for line in text.splitlines()[:MAX_SNIFFED]:
        if not line.startswith("."):
            continue
        if line.startswith(('.\\"', ".\\#")):
            return True
        name = split_request(line)[0]
        if name in KNOWN:
            return True
    return False


def is_roff_document(name: str) -> bool:
    lowered = name.lower().removesuffix(".gz")
    return lowered.endswith(SUFFIXES)


def _number(word: str) -> bool:
    """`2`, not `²` (a digit to `isdigit`, not to `int`)."""
    return word.isascii() and word.isdigit()


def _in_font(name: str, words: list[str]) -> str:
    """What a font macro prints: me's `.i fact or` → `factor`, `.q word ,` → `“word”,`;
    ms's `.I troff ) (` → `(troff)`. Joined by blanks, sendmail's op.me (a -me guide) had
    read `fact or`, `opt ions`, `uname (1)`. Words past those the macro prints (troff
    drops them) are kept, after a blank."""
    if not words:
        return ""
    first, *after = words
    if name in ME_FONTS:
        if name == "q":
            first = f"“{first}”"
        glued, rest = first + "".join(after[:1]), after[1:]
    else:
        glued, rest = "".join(after[1:2]) + first + "".join(after[:1]), after[2:]
    return " ".join([glued, *rest])


def _setting(word: str) -> bool:
    """A word of a macro that only sets a style: `TYPESET`, `12p`, `.5v`, `border=0`."""
    if "=" in word or word in SWITCHES:
        return True
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return True
    if all(c.isupper() or c == "_" for c in letters):
        return True
    return word[0] in "+-.0123456789" and len(letters) <= 2


class DocumentMacros(RoffReader):
    def __init__(self, page: str = "") -> None:
        super().__init__(page)
        self.own: set[str] = set()  # macros the document defines itself
        self.breaking: set[str] = set()  # … whose definition starts a paragraph or breaks
        # … that end a diversion (`.di`): meref.me's `.DE` sets the macro's name collected
        # since its `.TL` as the tag of the description that follows.
        self.tagging: set[str] = set()
        self.verbatim_end: str | None = None  # the macro closing the display open
        self.cells: list[list[str]] = []  # hdtbl: the cells of the row being read, in pieces
        self.hdtbl = False  # inside hdtbl's `.TBL` … `.ETB` (ms's `.TH` ends a tbl header)
        self.row_line = 0
        self.titles: set[str] = set()  # running headers and footers printed

    def define(self, name: str, rest: str) -> None:
        """A string that names other strings as `\\E*[CODE]` (mom's `.ds cod`) names them
        when it is printed: they are looked up once more, here, and held to `MAX_STRING`
        as every string is (a second look stored up to twice that: over its line's
        allowance, such a string then printed nothing)."""
        super().define(name, rest)
        key = rest.lstrip(" \t").partition(" ")[0]
        value = self.strings.get(key, "")
        if "\\*" in value:
            self.strings[key] = render(value, self.strings.defined)[:MAX_STRING]

    def feed(self, raw: str, number: int) -> None:
        """A line; inside a macro's definition, whether it breaks the paragraph (meref.me's
        own `.TL`, which starts each entry with `.lp`, had run each entry into the one
        before)."""
        if self.skip_to is not None and self.defining is not None and is_control(raw):
            request, rest = split_request(raw)
            if request in BREAKS and len(self.breaking) < 10_000:
                self.breaking.add(self.defining[0])
            if request == "di" and not rest.strip() and len(self.tagging) < 10_000:
                self.tagging.add(self.defining[0])
        super().feed(raw, number)

    def request(self, name: str, rest: str, number: int) -> None:
        if name in DEFINES:
            words = rest.split()
            if words and len(self.own) < 10_000:
                self.own.add(words[0])
        super().request(name, rest, number)

    def text_line(self, line: str, number: int) -> None:
        if self.verbatim_end is not None and self.table is None:
            self.blocks.text(render(line, self.strings), number)
            return
        if line[:1] in (" ", "\t") and line.strip():
            self.blocks.line_break()  # troff breaks before a line that starts with a blank
        if self.cells and line.strip():  # an hdtbl cell's text goes on over lines
            self.cells[-1].append(render(line, self.strings).strip())
            return
        super().text_line(line, number)

    def macro(self, name: str, args: list[str], number: int) -> None:
        if name in self.own and not (name in HDTBL and (self.hdtbl or name == "TBL")):
            if name in self.tagging and self.verbatim_end is None:
                if not self.blocks.paragraph_as_tag():
                    self.paragraph_break(number)
            elif name in self.breaking and self.verbatim_end is None:
                self.paragraph_break(number)
            super().macro(name, args, number)
            return
        blocks = self.blocks
        if self.verbatim_end is not None:
            if name == self.verbatim_end or name in VERBATIM_ENDS:
                blocks.end_code()
                self.verbatim_end = None
            elif name in FONTS:
                blocks.text(_in_font(name, render_all(args, self.strings)), number)
            return  # other requests inside a display set its layout
        if name in VERBATIM:
            self.verbatim_end = VERBATIM[name]
            blocks.start_code()
        elif name == "TBL" or (self.hdtbl and name in HDTBL):
            self.table_macros(name, args, number)
        elif self.heading(name, args, number):
            pass
        elif name in PARAGRAPHS or name in BLOCK_EDGES:
            self.paragraph_break(number)
        elif name in ITEMS:
            words = [w for w in render_all(args, self.strings) if not _number(w)]
            tag = words[0] if name in ("IP", "ip", "LI") and words else ""
            blocks.item(tag, number)
            if name == "ITEM" and words:
                blocks.text(" ".join(words), number)
        elif name in FONTS:
            words = render_all(args, self.strings)
            if words:
                blocks.text(_in_font(name, words), number)
        elif name in THREE_PART:
            self.three_part_title(name, args, number)
        elif name == "DC" and len(args) > 1:  # a drop cap: `.DC T HIS mydarkred`
            blocks.text("".join(render_all(args[:2], self.strings)), number)
        elif name in ("PDF_LINK", "PDF_WWW_LINK"):
            words = [w for w in render_all(args[1:], self.strings) if w not in LINK_WORDS]
            if words:
                blocks.text(" ".join(words), number)
        elif not self.sets_style(name, args):
            super().macro(name, args, number)

    def three_part_title(self, name: str, args: list[str], number: int) -> None:
        """`.oh 'Star Trek''USD:31-%'` → `Star Trek USD:31-`, once: 4.4BSD's trek.me had
        been cited by `'Star Trek''USD:31-%' 'USD:31-%''Star Trek'`, its `.oh` and `.eh`
        read as words."""
        title = " ".join(render_all(args, self.strings))
        parts = title[1:].replace("%", "").split(title[:1]) if title else []
        words = " ".join(p.strip() for p in parts if p.strip())
        seen = " ".join(sorted(words.split()))  # `.eh` gives `.oh`'s parts the other way
        if words and (name == "tl" or seen not in self.titles):
            if len(self.titles) < 10_000:
                self.titles.add(seen)
            self.blocks.text(words, number)
            self.blocks.flush()

    def sets_style(self, name: str, args: list[str]) -> bool:
        """A macro that prints none of its words: mom's naming and styling ones, or any
        whose every word is a setting (`.PRINTSTYLE TYPESET`, `.TBL border=0`)."""
        if name in QUIET or name.endswith("_STYLE"):
            return True
        return bool(args) and all(_setting(w) for w in render_all(args, self.strings))

    def heading(self, name: str, args: list[str], number: int) -> bool:
        """Whether `name` heads a section (and, if so, it has been written)."""
        words = render_all(args, self.strings)
        if name in TITLES or name in BYLINES:  # `.TITLE DOC_COVER "…"`: for the cover too
            words = [w for w in words if w not in COVERS]
        # (only ASCII digits, and few: `²` is a digit int() refuses, and so is one of 5,000
        # digits; either had made the whole document unreadable, whatever the macro)
        number_given = bool(words) and _number(words[0])
        level = int(words[0][:2]) if number_given else 1
        level = max(1, min(MAX_LEVEL - 1, level)) + 1
        if name in ("NH", "SH"):
            self.blocks.end_code()
            self.blocks.flush()
            self.pending_heading = level
        elif name in TITLES:
            if words:
                self.blocks.heading(1, " ".join(words), number)
            else:
                self.blocks.flush()
                self.pending_heading = 1
        elif name in ("sh", "H", "HEADING"):
            first = 1 if number_given else 0  # `.H Title`: level 1
            title = [w for w in words[first:] if w not in ("NAMED", "PARAHEAD")]
            if "NAMED" in words[first:]:
                at = words.index("NAMED", first)
                title = [w for w in words[at + 2 :] if w != "PARAHEAD"]
            if title:
                self.blocks.heading(level, " ".join(title), number)
        elif name in ("uh", "HU"):
            if words:
                self.blocks.heading(2, " ".join(words), number)
        elif name in MOM_HEADS and words and not words[0].startswith("<"):
            self.blocks.heading(MOM_HEADS[name], " ".join(words), number)
        elif name in BYLINES:
            self.blocks.flush()
            if words:
                self.blocks.text(" ".join(words), number)
            self.blocks.flush()
        else:
            return False
        return True

    def table_macros(self, name: str, args: list[str], number: int) -> None:
        """hdtbl: `.TR .TD Macro .TD Description` (macros may follow on the line); a row's
        cells are written as one line, joined by ` | `, when the next row or the table's
        end comes."""
        calls: list[tuple[str, list[str]]] = [(name, [])]
        for arg in args:
            if arg.startswith(".") and arg[1:] in HDTBL:
                calls.append((arg[1:], []))
            else:
                calls[-1][1].append(arg)
        for call, words in calls:
            if call in ("TD", "TH", "CPTN"):
                text = " ".join(w for w in render_all(words, self.strings) if "=" not in w)
                if not self.cells:
                    self.row_line = number
                self.cells.append([text.strip()])
            else:  # TR, TBL, ETB: the row before ends
                self.end_row(number)
                if call != "TR":
                    self.blocks.flush()
                self.hdtbl = call != "ETB"

    def end_row(self, number: int) -> None:
        cells = [c for c in (" ".join(p for p in cell if p) for cell in self.cells) if c]
        if cells:
            self.blocks.text(" | ".join(cells), self.row_line, until=number)
            self.blocks.line_break()
        self.cells = []


def written_as_man_page(lines: list[str]) -> bool:
    """A man page kept as `*.roff` (`tool.1.roff`): its first lines give `.TH` a title and a
    section (`.TH LS 1`; ms's `.TH` ends a table's header and takes no arguments), or
    mdoc's `.Dd`/`.Dt`. Read by the ms macros, `ls.roff` had lost each section's name
    (`.SH DESCRIPTION`) and been headed by the line after it."""
    for line in lines[:MAX_SNIFFED]:
        if not is_control(line):
            continue
        request, rest = split_request(line)
        if request in ("Dd", "Dt"):
            return True
        words = split_arguments(rest) if request == "TH" else []
        if len(words) > 1 and words[1][:1].isdigit():
            return True
    return False


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    lines = split_lines(text)
    if written_as_man_page(lines):
        return man.read(name, text, notes)
    reader = DocumentMacros()
    blocks = reader.read(lines)
    reader.end_row(len(lines))
    return markdown_document(name, notes, blocks.finish())
