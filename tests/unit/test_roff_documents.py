"""groff documents that are not man pages (formats.roff_doc): papers in the ms and me macros,
mom's documents and hdtbl's tables are default patterns, gzipped too, read with their
headings, displays and pictures, and without the macros that only set a style. The
documents are small troff texts written here, in the forms groff's own papers use."""

from __future__ import annotations

import gzip
import re
from collections import Counter
from pathlib import PurePath

import pytest

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats.troff import DOCUMENT_ALLOWANCE
from ragd.ingest.loaders import parse
from tests.support.growth import GROWTH_LIMIT, growth_ratio

MS_PAPER = r""".TL
Drawing Harbour Charts
.AU
A. Pilot
.NH 1
Buoys and Beacons
.PP
A buoy is drawn as a circle.
.KS
.PS
B: circle "buoy";
arrow from B.e right;
.PE
.KE
.NH 2
Rounded Piers
.LP
A pier with rounded corners takes a
.B rad
modifier.
.TS
tab(@);
l l.
pier@box
.TE
.TH
.PP
Text after the table stays a paragraph.
"""

ME_PAPER = r""".de xx
.sp
..
.sh 1 "Tides and Currents"
.pp
Footnotes begin with the request
.b .(f
and end with
.b .)f .
.(l
\&.2c
two columns
.)l
.uh "Appendix"
.ip tide
The rise of the sea.
"""

MOM_DOCUMENT = r""".char \[berth]   \*[BD]berthd\*[PREV]
.ds cod  \E*[CODE]\&\E*[COND]
.ds codx \E*[CONDX]\E*[CODE off]\&
.PRINTSTYLE TYPESET
.FAMILY T
.PT_SIZE 12
.NEWCOLOUR dark-grey RGB #343434
.TITLE DOC_COVER "Mooring with mom"
.AUTHOR "A. Pilot"
.START
.HEADING 1 NAMED intro "Starting the daemon"
.PP
Run \[berth] with the \*[cod]--quay\*[codx] option.
.PDF_LINK intro PREFIX ( SUFFIX ) "the introduction"
.HEADING 2 "Pauses"
.PP
Enter PAUSE on a line by itself.
"""

HDTBL = r""".H Short Reference for the Mooring Macros
.TBL border=0 csp=.05n
.TR .TH Macro .TH Description
.TR
.TD \&.BERTH .TD Begin a new berth
.TD
continued on the next line
.ETB
"""


def read(name: str, text: str, gzipped: bool = False) -> str:
    data = text.encode()
    return parse(name, gzip.compress(data) if gzipped else data).text


def test_groff_documents_are_default_patterns_gzipped_or_not() -> None:
    accepts = PathFilter(DEFAULT_INCLUDE).accepts
    for name in ("pic.ms.gz", "meintro.me.gz", "doc/typesetting.mom", "hdtbl/rainbow.roff"):
        assert accepts(PurePath(name)), name
    assert not accepts(PurePath("viewer.mm"))  # Objective-C++ is named so as often as mm papers


def test_ms_headings_pictures_and_tables() -> None:
    text = read("pic.ms.gz", MS_PAPER, gzipped=True)
    assert text.startswith("# Drawing Harbour Charts")
    assert "## Buoys and Beacons" in text
    assert "### Rounded Piers" in text
    assert 'B: circle "buoy";\narrow from B.e right;' in text  # the picture as written
    assert "takes a rad modifier." in text
    assert "pier | box" in text
    assert "Text after the table stays a paragraph." in text  # ms's `.TH` is no hdtbl cell
    assert "## Text after" not in text


def test_me_headings_footnote_requests_and_a_document_s_own_macros() -> None:
    text = read("meintro.me", ME_PAPER)
    assert "## Tides and Currents" in text
    assert "Footnotes begin with the request .(f and end with .)f." in text
    assert ".2c\ntwo columns" in text
    assert "## Appendix" in text
    assert "tide" in text and "The rise of the sea." in text


def test_mom_headings_characters_strings_and_no_style_settings() -> None:
    text = read("mooring.mom", MOM_DOCUMENT)
    assert text.startswith("# Mooring with mom")
    assert "## Starting the daemon" in text and "NAMED" not in text.split("\n")[4]
    assert "### Pauses" in text
    assert "Run berthd with the --quay option." in text  # `.char` and nested strings
    assert "the introduction" in text and "intro PREFIX" not in text
    for setting in ("TYPESET", "dark-grey", "PT_SIZE", "\\*[", "DOC_COVER"):
        assert setting not in text


def test_hdtbl_rows_are_cells_on_one_line() -> None:
    text = read("short_reference.roff", HDTBL)
    assert "## Short Reference for the Mooring Macros" in text
    assert "Macro | Description" in text
    assert ".BERTH | Begin a new berth | continued on the next line" in text
    assert "border=0" not in text


def test_a_paper_s_sections_are_its_chunks_heading_paths() -> None:
    chunks = chunk_document(parse("pic.ms", MS_PAPER.encode()))
    paths = {chunk.heading_path for chunk in chunks}
    assert any("Rounded Piers" in path for path in paths)


REFERENCE = r""".de TL
.lp
.di XX
..
.de DE
.br
.di
..
.sh 1 "Paragraphing"
.TL
.b .lp
.DE
Begin a left-justified paragraph.
.TL
.b .pp
.DE
Like .lp, but indented.
"""


def test_a_document_s_own_macros_break_paragraphs_and_tag_entries() -> None:
    """meref.me's `.TL` starts a paragraph and a diversion, its `.DE` ends the diversion:
    the words between are the tag of the description after."""
    text = read("meref.me", REFERENCE)
    assert "- .lp — Begin a left-justified paragraph.\n- .pp — Like .lp, but indented." in text


WEB_PAGE = r""".mso www.tmac
.ALN "#eeeeee" 30
.defcolor mydarkred rgb 0.65f 0.1f 0.2f
.if !d sopath \
.  ds sopath
.if r ps4html .nr LL 10i
.PSPIC -L gnu.eps 2i 2i
.DC T HIS mydarkred
is the home page for groff.
"""


def test_www_furniture_colours_and_conditions_on_a_name_print_nothing() -> None:
    text = read("webpage.ms", WEB_PAGE)
    assert text.strip() == "THIS is the home page for groff."


def test_traps_and_the_next_file_print_nothing() -> None:
    """4.4BSD's trek.me (bsdgames) sets its footer trap with `.wh -3 fo`: it had opened
    with the words `-3 fo`; `.nx` names a file, `.em` and `.dt` a macro."""
    traps = ".wh -3 fo\n.ch fo -2\n.dt 1i xx\n.em done\n"
    text = read("trek.me", ".pp\n" + traps + "Star Trek\n.nx end.me\n")
    assert text.strip() == "Star Trek"


def test_three_part_titles_print_their_parts_once() -> None:
    """trek.me's chunks had all been cited as `'Star Trek''USD:31-%' 'USD:31-%''Star Trek'`."""
    source = ".oh 'Star Trek''USD:31-%'\n.eh 'USD:31-%''Star Trek'\n.pp\nWell, the war.\n"
    document = parse("trek.me", source.encode())
    assert document.text == "Star Trek USD:31-\n\nWell, the war."
    assert {c.heading_path for c in chunk_document(document)} == {"Star Trek USD:31-"}
    assert read("a.ms", ".LP\n.tl 'Left'Centre'Page %'\ntext\n") == "Left Centre Page\n\ntext"


MAN_PAGE = r""".TH MOOR 1 "May 2026" "harbour 1.0"
.SH NAME
moor \- tie a boat up
.SH DESCRIPTION
.B moor
ties the boat to the nearest bollard.
.TP
.B \-k
Keep the engine running.
"""


@pytest.mark.parametrize("name", ["moor.roff", "moor.1.roff", "moor.roff.gz"])
def test_a_man_page_kept_as_roff_is_read_as_a_man_page(name: str) -> None:
    """Read by the ms macros, a man page named `*.roff` had lost every section's name
    (`.SH DESCRIPTION`) and been headed by the line after it."""
    text = read(name, MAN_PAGE, gzipped=name.endswith(".gz"))
    assert text == parse("moor.1", MAN_PAGE.encode()).text
    assert "## DESCRIPTION" in text and text.startswith("# moor(1)")


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        ('.pp\nIntro.\n.sh ² "Units"\nBody.\n', "## ² Units"),
        (".NH ³\nUnits\n.PP\nBody.\n", "## Units"),
        (".PP\nIntro.\n.IP ¹ 4\nA footnote.\n", "- ¹ — A footnote."),
        (".NH " + "9" * 5_000 + "\nDeep\n.PP\nBody.\n", "###### Deep"),
    ],
)
def test_a_macro_given_a_digit_int_refuses_is_read(source: str, shown: str) -> None:
    """`²` is a digit to `str.isdigit` but not to `int`, nor is a number of 5,000 digits:
    any macro whose first word was one had made the whole document unreadable."""
    assert shown in read("units.ms", source)


def test_a_line_starting_with_a_blank_starts_a_new_line() -> None:
    """As troff breaks there: a plain-text `click.me` keeps its indented lines apart."""
    text = read("notes.me", '.pp\nInstructions:\n   type ":so hanoi.vim" to load\n   type "g"\n')
    assert text == 'Instructions:\ntype ":so hanoi.vim" to load\ntype "g"'


# A DOS-era READ.ME: CRLF line ends, lines starting with `.` and `'`, backslashes.
READ_ME = (
    "WIDGET PRO 2.1 -- READ.ME\r\n\r\n"
    "...and the installer copies files to C:\\new\\table\\data.\r\n"
    ".NET Framework 4.0 is required; the\r\n"
    ".so files go to C:\\lib.\r\n"
    "'de facto' standard formats are supported.\r\n"
    'Patterns look like \\d+ or \\s+, and "quoted \\"names\\"" work.\r\n'
    "'Quick start' guide follows.\r\n\r\n"
    "Contact support at 555-1234.\r\n"
)


@pytest.mark.parametrize("name", ["READ.ME", "click.me", "notes.ms", "plan.mom", "todo.roff"])
def test_plain_text_named_like_a_groff_document_keeps_every_word(name: str) -> None:
    """Read as troff, the `'de facto'` line opened a macro definition that swallowed the
    rest of the file, and `C:\\new\\table` lost `new` and `table`: 27 of 72 words kept."""
    words = Counter(re.findall(r"[^\W_]+", READ_ME.lower()))
    document = parse(name, READ_ME.encode())
    kept = Counter(re.findall(r"[^\W_]+", document.text.lower()))
    assert words - kept == Counter()
    assert document.kind == "text"


@pytest.mark.parametrize("name", ["hostile.ms", "hostile.1"])
def test_strings_add_at_most_an_allowance_to_the_whole_document(name: str) -> None:
    """Each line may print a string of up to 1,000 characters: a line of `\\*a` per line
    had printed it per line, 4,000 lines (16 KB) → 4 MB of text (160 KB → 40 MB, 146 MB of
    memory). The document's strings now print, all told, its size plus
    `DOCUMENT_ALLOWANCE`; a man page's too (the same reader)."""
    head = ".TH HOSTILE 1\n.SH NAME\n" if name.endswith(".1") else ".pp\n"
    document = head + ".ds a " + "x" * 999 + "\n" + "\\*a\n" * 4_000 + "the end\n"
    text = read(name, document)
    assert "x" * 999 in text and "the end" in text
    assert len(text) <= 2 * len(document) + DOCUMENT_ALLOWANCE  # its own text, the strings


@pytest.mark.parametrize(
    "build",
    [
        lambda n: ".TBL\n.TR" + " .TD word" * n + "\n.ETB\n",  # one line of n cells
        lambda n: ".TBL\n.TR .TD\n" + "word\n" * (4 * n) + ".ETB\n",  # one cell of n lines
        lambda n: "".join(f".de M{i}\n.lp\n.di\n..\n.M{i}\nword\n" for i in range(n)),
        lambda n: ".HEADING 1 NAMED x " + "word " * (4 * n) + "\n",
        lambda n: "".join(f".char \\[c{i}] word\n\\[c{i}]\n" for i in range(n)),
        lambda n: "".join(f".oh 'word {i}''%'\n.eh '%''{i} word'\n" for i in range(n)),
        lambda n: "".join(f".sh ² word\n.IP ¹ {i}\n" for i in range(n)),
    ],
)
def test_hostile_documents_cost_time_linear_in_their_size(build: object) -> None:
    assert callable(build)
    small, large = build(5_000), build(20_000)
    assert "word" in read("hostile.ms", small)
    ratio = growth_ratio(lambda text: parse("hostile.ms", text.encode()), small, large)
    assert ratio < GROWTH_LIMIT, ratio  # 4× the input: ≈ 4× the time when linear


@pytest.mark.parametrize(
    ("source", "shown"),
    [
        (".pp\nThe\n.i fact or\nis multiplied.\n", "The factor is multiplied."),  # me: $1$2
        (".pp\nSee\n.i uname (1)\nfirst.\n", "See uname(1) first."),
        (".pp\nQuoted\n.q word ,\nthen.\n", "Quoted “word”, then."),  # me's .q quotes
        (".PP\nRun\n.B groff ,\nthen\n.I troff ) (\nlater.\n", "Run groff, then (troff) later."),
        (".PP\nThe\n.CW -ms .\n", "The -ms."),  # ms: $3$1$2
        (".pp\nNo suffix\n.b bold\nhere.\n", "No suffix bold here."),
    ],
)
def test_a_font_macro_joins_its_suffix_and_prefix_as_troff_prints_them(
    source: str, shown: str
) -> None:
    """me's `.i fact or` prints `factor` and ms's `.I troff ) (` prints `(troff)`: the
    arguments after the first are glued to it. Joined by blanks, sendmail's op.me (a
    327 KB -me guide) read `fact or`, `Addr ess`, `opt ions`, `uname (1)` and 500 more."""
    assert shown in " ".join(read("paper.me", source).split())


def test_a_string_naming_strings_is_held_to_the_cap_every_string_has() -> None:
    """mom's way of naming strings inside a string (`.ds cod \\E*[CODE]`) is looked up once
    more when defined; that second look had stored up to 2,000 characters, past the 1,000
    a string may hold, and a string over its line's allowance then printed nothing."""
    document = ".ds a " + "x" * 999 + "\n.ds b " + "\\E*a" * 333 + "\n.pp\n\\*b\n"
    text = read("strings.mom", document)
    assert "x" * 999 in text
    assert "x" * 1_001 not in text


@pytest.mark.parametrize("name", ["broken.ms", "broken.1"])
@pytest.mark.parametrize("end", [".TE\nAfter the table.\n", ""])
def test_a_table_cell_never_closed_keeps_its_text(name: str, end: str) -> None:
    """A `T{` cell whose `T}` is missing ran to the table's end (or the file's), and its
    row, every line of it, was dropped there: all the text since the `T{` was lost."""
    head = ".TH BROKEN 1\n.SH NAME\nbroken\n" if name.endswith(".1") else ".PP\n"
    document = head + ".TS\nl l.\nT{\nThe pilot boards at the outer buoy.\n" + end
    text = read(name, document)
    assert "The pilot boards at the outer buoy." in " ".join(text.split())
    if end:
        assert "After the table." in text


def test_conditions_are_followed_as_deep_as_the_reader_says() -> None:
    """`MAX_NESTED` (8) conditions on one line are followed, and the text the last one
    runs is read; one more and the line is dropped (the bound on a line's work). The loop
    had taken the eighth condition and then dropped its text, 7 deep in truth."""
    text = read("deep.ms", ".PP\n" + ".if n " * 8 + "kept\n" + ".if n " * 9 + "dropped\n")
    assert "kept" in text and "dropped" not in text
