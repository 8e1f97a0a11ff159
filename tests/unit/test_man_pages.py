"""Man pages read from their troff source, gzipped or not (formats.man): man(7) and mdoc(7)
markup, the names read as man pages, the cap on decompressed size, and hostile pages
bounded. The pages are small troff texts written here."""

from __future__ import annotations

import gzip
from fnmatch import fnmatchcase
from pathlib import Path, PurePath

import pytest

from ragd.core.config import DOCUMENT_PATTERNS, MAN_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import man
from ragd.ingest.loaders import SkipFile, parse
from ragd.query.units import units_of
from tests.support.growth import GROWTH_LIMIT, growth_ratio

MAN_PAGE = r""".\" A comment that is not text
.TH HARBOUR 1 "2026-01-01" "harbour 2.1" "User Commands"
.SH NAME
harbour \- moor and release vessels
.SH SYNOPSIS
.B harbour
.RI [ options ] " BERTH"
.SH OPTIONS
.TP
.BR \-l ", " \-\-listening
Display only the berths
waiting for a pilot.
.TP
.B \-t \fIhours\fR, \-\-tide=\fIhours\fR
Wait for the tide \(em at most
.I hours
hours.
.IP \(bu 2
A bullet point about the \*(lqquay\*(rq.
.SS "Exit status"
.PP
Zero when the vessel is moored\&.
.nf
harbour \-l
harbour \-\-tide=3
.fi
.SH SEE ALSO
.BR quay (8),
.UR https://example.org/harbour
the harbour site
.UE .
.so man1/other.1
"""

MDOC_PAGE = r""".Dd $Mdocdate: May 1 2026 $
.Dt QUAY 1
.Os
.Sh NAME
.Nm quay
.Nd reserve a mooring
.Sh SYNOPSIS
.Nm
.Op Fl 46
.Op Fl b Ar bind_address
.Op Fl W Ar host : Ns Ar port
.Sh DESCRIPTION
.Nm
reserves a mooring; see
.Xr harbour 1 .
.Bl -tag -width Ds
.It Fl b Ar bind_address
Use
.Ar bind_address
as the source of the reservation.
.It Fl D Xo
.Oo Ar bind_address : Oc
.Ar port
.Xc
Listen for pilots on
.Ar port .
.El
.Bd -literal -offset indent
quay -b 10.0.0.1
.Ed
.Ex -std
"""


def convert(text: str, name: str = "harbour.1") -> str:
    return parse(name, text.encode()).text


def test_man_macros_become_headings_items_and_code() -> None:
    text = convert(MAN_PAGE)
    assert text.startswith("# harbour(1)\n\n## NAME\n\nharbour - moor and release vessels")
    assert "A comment" not in text
    assert "harbour [options] BERTH" in text
    assert "- -l, --listening — Display only the berths waiting for a pilot." in text
    assert "- -t hours, --tide=hours — Wait for the tide — at most hours hours." in text
    assert "- A bullet point about the “quay”." in text
    assert "### Exit status\n\nZero when the vessel is moored." in text
    assert "```\nharbour -l\nharbour --tide=3\n```" in text
    assert "quay(8), the harbour site <https://example.org/harbour>." in text
    assert "(includes man1/other.1)" in text


def test_an_option_and_its_description_are_one_unit_cited_under_its_section() -> None:
    document = parse("harbour.1", MAN_PAGE.encode())
    chunks = chunk_document(document)
    options = next(c for c in chunks if c.heading[-1:] == ("OPTIONS",))
    assert options.heading == ("harbour(1)", "OPTIONS")
    found = [u.text for u in units_of(options.text)]
    assert any("--listening" in u and "waiting for a pilot" in u for u in found), found
    # The lines cited are the page's own: `.TP` on line 9 to the body's last line, 20.
    assert options.lines is not None and options.lines[0] >= 9 and options.lines[1] <= 21
    source = MAN_PAGE.split("\n")
    first, last = options.lines
    assert "listening" in "\n".join(source[first - 1 : last])


def test_a_tp_list_longer_than_a_chunk_keeps_one_option_a_line() -> None:
    """resolv.conf(5)'s `options`: `.TP` items with no blank line between are one
    paragraph of the page, longer than a chunk. Cut at full stops and joined by spaces,
    one chunk read "… capped to 15. - timeout:n — …", and the keyless answer's units
    crossed from one option into the next."""
    items = "".join(
        f".TP\n.B option{n}:n\nSets knob {n} of the resolver. "
        + f"The knob {n} is described at length here, again and again. " * 6
        + f"The value for option{n} is capped to {n + 10}.\n"
        for n in range(12)
    )
    page = f".TH RESOLV.CONF 5\n.SH DESCRIPTION\nThe options are:\n{items}"
    chunks = chunk_document(parse("resolv.conf.5", page.encode()))
    assert len(chunks) >= 2  # the list is longer than one chunk
    seen = set()
    for chunk in chunks:
        for line in chunk.text.split("\n"):
            if line.startswith("- "):
                n = int(line[len("- option") :].split(":", 1)[0])
                # one option a line, whole: its own cap, nobody else's tag
                assert line.count(" — ") == 1 and line.endswith(f"capped to {n + 10}."), line
                seen.add(n)
        for unit in units_of(chunk.text):
            assert unit.text.count("option") <= 2, unit.text  # its tag and its cap only
    assert seen == set(range(12))


def test_docbook_options_keep_their_description() -> None:
    """systemd's and git's pages (DocBook) write an option as a paragraph and indent its
    description under it; the two are one item, as a `.TP` would make them."""
    page = r""".TH JOURNALCTL 1
.SH OPTIONS
.PP
The following options are understood:
.PP
\fB\-f\fR, \fB\-\-follow\fR
.RS 4
Show only the most recent journal entries\&.
.RE
.PP
For TCP protocol, the output format is:
.RS 4
timer:(name,expire)
.RE
"""
    text = convert(page, "journalctl.1")
    assert "- -f, --follow — Show only the most recent journal entries." in text
    assert "The following options are understood:" in text
    assert "For TCP protocol, the output format is:\n\ntimer:(name,expire)" in text


def test_troff_requests_escapes_and_tables() -> None:
    page = r""".TH T 1
.de XX
never shown
..
.ds Qu \(lqquay\(rq
.ie n .ds Mo nroff sees this
.el .ds Mo troff sees this
.if '#'#' Equal strings hold.
.if ''#' Unequal strings do not.
\*(Qu and \*(Mo \f(CWcode\fP \s+1big\s0 \e \(aqx\(aq \[u00E9]t\[:u] a\0b\
 joined \
and co\c
ntinued.
\# a comment line that vanishes
.TS
allbox tab(:);
lB lB.
Berth:Fee
T{
North
quay
T}:T{
four pounds
T}
.TE
"""
    text = convert(page, "t.1")
    assert "never shown" not in text and "Unequal" not in text
    assert "“quay” and nroff sees this code big \\ 'x' étü a b joined and continued." in text
    assert "Equal strings hold." in text and "vanishes" not in text
    assert "Berth | Fee\nNorth quay | four pounds" in text


def test_a_macro_the_page_defines_to_print_nothing_prints_none_of_its_words() -> None:
    """Tcl's man.macros (atop each of tcllib's pages) define `.AS` to measure tab stops;
    called as `.AS Tcl_Interp Tcl_CreateInterp in/out`, its words had been the page's
    first section (newuser45). A page's own macro that prints keeps its words."""
    page = r""".TH csv 3tcl 0.8.1 tcllib "CSV processing"
.de AS
.nr )A 10n
.if !"\\$1"" .nr )A \\w'\\$1'u+3n
.\"
.ie n 'mc \s12\(br\s0
.el .nr ^v 1u
..
.de AP
.TP 15
\&\\$1 \\fI\\$2\\fP
..
.de UX
.el \{\
\\$1
.\}
..
.am AS
.br
..
.AS Tcl_Interp Tcl_CreateInterp in/out
.SH NAME
csv \- Procedures to handle CSV data
.AP Tcl_Interp interp
.UX Printed
"""
    text = convert(page, "csv.3tcl")
    assert "Tcl_CreateInterp" not in text and "in/out" not in text
    assert "Procedures to handle CSV data" in text
    assert "interp" in text and "Printed" in text  # a macro that prints keeps its words


def test_characters_by_number_print_the_character() -> None:
    """`\\N'65'` is the character numbered 65: the register pattern took `\\N` with a
    one-character name (the quote) first, so the page printed `65'`. A number that names
    no character (a surrogate half, past Unicode, `²`) prints nothing."""
    page = ".TH T 1\n.SH A\nGrade \\N'65' berth, \\N'56000'\\N'1114112'\\N'²'\\[uD800]done.\n"
    assert convert(page, "t.1").endswith("Grade A berth, done.")


def test_mdoc_macros_read_like_man_prints_them() -> None:
    text = convert(MDOC_PAGE, "quay.1")
    assert text.startswith("# quay(1)\n\n## NAME\n\nquay — reserve a mooring")
    assert "quay [-46] [-b bind_address] [-W host:port]" in text
    assert "quay reserves a mooring; see harbour(1)." in text
    assert "- -b bind_address — Use bind_address as the source of the reservation." in text
    assert "- -D [bind_address:] port — Listen for pilots on port." in text
    assert "```\nquay -b 10.0.0.1\n```" in text
    assert "The quay utility exits 0 on success, and >0 if an error occurs." in text
    assert "Mdocdate" not in text


def test_gzipped_pages_are_read_and_capped() -> None:
    packed = gzip.compress(MAN_PAGE.encode())
    assert parse("harbour.1.gz", packed).text == convert(MAN_PAGE)
    bomb = gzip.compress(b".TH BOMB 1\n" + b"a" * 5_000_000)
    with pytest.raises(SkipFile, match="expands past the 1 MB max_text_mb cap"):
        parse("bomb.1.gz", bomb, max_text_chars=1024 * 1024)
    with pytest.raises(SkipFile, match="unreadable gzip"):
        parse("cut.1.gz", packed[: len(packed) // 2])


@pytest.mark.parametrize(
    ("name", "is_page"),
    [
        ("tar.1", True), ("tar.1.gz", True), ("openssl.1ssl.gz", True), ("Carp.3pm", True),
        ("ss.8.gz", True), ("FileCheck-14.1.gz", True), ("printf.3type.gz", True),
        ("backup.tar.gz", False), ("data.gz", False), ("notes.10", False),
        ("logs.1.tar.gz", False), ("report.2024.dat", False), ("a.1st-draft.gz", False),
    ],
)  # fmt: skip
def test_only_man_page_names_are_read_as_man_pages(name: str, is_page: bool) -> None:
    assert man.is_man_page(name) is is_page
    # The default include globs name only files the reader reads as man pages.
    assert any(fnmatchcase(name.lower(), p) for p in MAN_PATTERNS) is is_page
    assert set(MAN_PATTERNS) <= set(DOCUMENT_PATTERNS)
    accepted = PathFilter(DOCUMENT_PATTERNS).accepts
    assert accepted(PurePath("pages") / name) is is_page


def test_ragignore_and_exclude_leave_man_pages_out_like_any_document(tmp_path: Path) -> None:
    (tmp_path / ".ragignore").write_text("man8/\n*.1ssl.gz\n")
    for rel in ("man1/tar.1.gz", "man8/ss.8.gz", "man1/openssl.1ssl.gz"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    pages = PathFilter(DOCUMENT_PATTERNS, exclude=("*.5.gz",))
    kept = [
        rel
        for rel in ("man1/tar.1.gz", "man8/ss.8.gz", "man1/openssl.1ssl.gz", "man5/x.5.gz")
        if pages.accepts(PurePath(rel), tmp_path / rel, str(tmp_path))
    ]
    assert kept == ["man1/tar.1.gz"]


def test_a_longer_section_suffix_is_read_once_a_glob_names_it() -> None:
    assert man.is_man_page("EXIT_FAILURE.3const.gz") and man.is_man_page("rl.3readline")
    assert not any(fnmatchcase("exit_failure.3const.gz", p) for p in MAN_PATTERNS)
    page = gzip.compress(b".TH EXIT_FAILURE 3const\n.SH NAME\nEXIT_FAILURE \\- exit status\n")
    assert parse("EXIT_FAILURE.3const.gz", page).text.startswith("# EXIT_FAILURE(3const)")


@pytest.mark.parametrize(
    ("name", "title", "heading"),
    [
        ("Log::Log4perl::FAQ.3pm", ".TH FAQ 3pm", "Log::Log4perl::FAQ(3pm)"),
        ("Log::Log4perl::NDC.3pm", ".TH NDC 3pm", "Log::Log4perl::NDC(3pm)"),
        ("Log::Log4perl.3pm", ".TH LOG::LOG4PERL 3pm", "Log::Log4perl(3pm)"),
        ("File::Spec.3perl", ".TH File::Spec 3perl", "File::Spec(3perl)"),
        ("EXIT_FAILURE.3const", ".TH EXIT_FAILURE 3const", "EXIT_FAILURE(3const)"),
        ("ls.1", '.TH LS "1" "September 2022"', "ls(1)"),
        ("FAQ.7", ".TH FAQ 7", "FAQ(7)"),
        ("python3.11.1", ".TH PYTHON 1", "python(1)"),
        ("vdso.7", ".TH vDSO 7", "vDSO(7)"),
        ("gcc-ar-12.1", ".TH GCC-ar-12 1", "GCC-ar-12(1)"),
        ("ssh.1", ".Dd May 1 2026\n.Dt SSH 1", "ssh(1)"),
        ("Tcl_Eval.3tcl", ".Dd May 1 2026\n.Dt TCL_EVAL 3tcl", "Tcl_Eval(3tcl)"),
    ],
)  # fmt: skip
def test_a_page_is_headed_by_the_name_it_is_installed_under(
    name: str, title: str, heading: str
) -> None:
    """pod2man titles `Log::Log4perl::FAQ.3pm.gz` `.TH FAQ 3pm`; the all-capitals name was
    lower-cased as if shouted and the page headed `faq(3pm)`. A title that is the file's name
    in capitals, or a module name's last parts, heads the page as the file is named (what
    `man` is called with); any other all-capitals title is still a name shouted, and one in
    mixed capitals is kept as `man -l` shows it."""
    page = f"{title}\n.SH NAME\nsome words\n"
    assert convert(page, name).startswith(f"# {heading}\n")


def test_a_file_named_like_a_page_without_man_markup_is_one_clear_skip() -> None:
    with pytest.raises(SkipFile, match=r"not a man page \(no \.TH"):
        parse("syslog.1", b"Jan  1 00:00:01 host kernel: booted\n")


@pytest.mark.parametrize(
    "build",
    [
        lambda n: ".TH X 1\n.SH A\n" + "word \\fBbold\\fR " * n + "\n",  # one huge line
        lambda n: ".TH X 1\n" + ".RS\n" * n + "deep text\n" + ".RE\n" * n,
        lambda n: ".Dd x\n.Dt X 1\n" + ".Bl -tag\n.It Fl a\ntext\n" * n + ".El\n" * n,
        # Lines joined by `\c`, a tag running on to `.Xc`, no-fill lines joined by `\c`:
        # each joined piece was copied whole at every line (quadratic past ~100,000 lines).
        lambda n: ".TH X 1\n.SH A\n" + "word\\c\n" * (20 * n),
        lambda n: ".Dd x\n.Dt X 1\n.Bl -tag\n.It Fl a Xo\n" + "word\n" * (20 * n) + ".Xc\n",
        lambda n: ".TH X 1\n.nf\n" + "word\\c\n" * (20 * n),
        # One mdoc line of n callable words: each word's look-ahead copied the rest.
        lambda n: ".Dd x\n.Dt X 1\n.Sh A\n.Op Fl " + "word " * (4 * n) + "Fn f a b Xr ls 1\n",
        lambda n: (
            ".TH X 1\n" + ".if n " * n + "\n" + ".ds a \\*a\\*ax\n" * n + "\\*a" * n + "text\n"
        ),
    ],
)
def test_hostile_pages_cost_time_linear_in_their_size(build: object) -> None:
    assert callable(build)
    small, large = build(5_000), build(20_000)
    assert "text" in convert(small, "x.1") or "word" in convert(small, "x.1")
    # measured again before calling it when at the limit: a busy machine stretches one run
    ratio = growth_ratio(lambda text: parse("hostile.1", text.encode()), small, large)
    assert ratio < GROWTH_LIMIT, ratio  # 4× the input: ≈ 4× the time when linear


LONG = "\\*a"  # names the page's 999-character string
DEFINE = ".ds a " + "x" * 999 + "\n"


@pytest.mark.parametrize(
    "page",
    [
        ".TH X 1\n.SH A\n" + DEFINE + ".B " + f"{LONG} " * 20_000 + "\n",  # a font macro
        ".TH X 1\n.SH A\n" + DEFINE + ".URLX " + f"{LONG} " * 20_000 + "\n",  # unknown
        ".TH X 1\n" + DEFINE + ".TS\ntab(:);\nl l.\n" + f"{LONG}:" * 20_000 + "\n.TE\n",
        ".Dd x\n.Dt X 1\n.Sh A\n" + DEFINE + ".Op " + f"{LONG} " * 20_000 + "\n",
        ".Dd x\n.Dt X 1\n" + DEFINE + ".Nm " + LONG + "\n.Sh A\n.Op " + "Nm " * 20_000 + "\n",
    ],
)
def test_a_line_naming_a_long_string_many_times_prints_it_within_one_allowance(
    page: str,
) -> None:
    """Each argument of a request was rendered with an allowance of its own, so a line of
    20,000 `\\*a` arguments printed the 999-character string 20,000 times (20 MB from an
    80 KB page); a bare `.Nm` printed a name made of it as often."""
    text = parse("x.1", page.encode()).text
    assert "x" * 100 in text  # the string is printed (a name: its first 100 characters)
    assert len(text) < 2 * len(page), len(text)


def test_every_member_of_a_gzipped_page_is_read_like_zcat_reads_it() -> None:
    """`cat head.gz options.gz > page.1.gz` (or `gzip -c a b`): zcat, and so `man`,
    shows both members; the reader kept the first and dropped the rest without a word."""
    first = gzip.compress(b".TH HARBOUR 1\n.SH NAME\nharbour \\- moor boats\n")
    second = gzip.compress(b".SH OPTIONS\n.TP\n.B \\-z\nZebra mooring, two lines.\n")
    text = parse("harbour.1.gz", first + second + b"\0\0\0\0").text  # padding: ignored
    assert "moor boats" in text and "- -z — Zebra mooring, two lines." in text
    with pytest.raises(SkipFile, match="ends early"):
        parse("harbour.1.gz", first + second[:20])
    with pytest.raises(SkipFile, match="max_text_mb cap"):
        man.gunzip(first + gzip.compress(b"a" * 200_000), 100_000)  # the cap spans members


def test_a_macro_that_prints_through_nop_or_do_keeps_its_words() -> None:
    """`.nop \\$1` and `.do BI \\$1` print the words they are given (groff runs the rest
    of the line as input): a macro made of them is no silent one, whose words would be
    dropped from every call (review45)."""
    page = r""".TH tool 1
.de NP
.nop \\$1 \\$2
..
.de DO
.do BI \\$1
..
.SH NAME
tool \- a tool
.NP Anchored harbour
.DO Moored
"""
    text = convert(page, "tool.1")
    assert "Anchored harbour" in text and "Moored" in text
