"""Plain text's headings, read from its layout (ingest/text_headings.py) and used by the
chunker: underlined titles, man-page section names, and what is not a heading."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document, split_lines
from ragd.ingest.text_headings import find_headings


def headings_of(text: str) -> list[str]:
    return [h.title for h in find_headings(split_lines(text))]


def paths_of(text: str) -> list[str]:
    chunks = chunk_document(Document(kind="text", title="t", text=text, located="lines"))
    return [" > ".join(chunk.heading) for chunk in chunks]


SPEC = """\
TRIGGERS
========

Introduction
------------

A trigger records an event for another package.

Concepts
--------

Each trigger is named.

Details
=======

Activation is deferred.
"""


def test_underlined_titles_nest_by_the_order_their_styles_appear() -> None:
    assert paths_of(SPEC) == [
        "TRIGGERS > Introduction",
        "TRIGGERS > Concepts",
        "Details",
    ]


def test_a_heading_and_its_rule_leave_the_body_and_lines_stay_the_files() -> None:
    chunks = chunk_document(Document(kind="text", title="t", text=SPEC, located="lines"))
    concepts = next(chunk for chunk in chunks if chunk.heading[-1] == "Concepts")
    assert concepts.text.strip() == "Each trigger is named."
    assert "----" not in concepts.text
    assert concepts.lines == (12, 12)  # 1-based, as the file numbers them


def test_an_overlined_title_is_its_own_style() -> None:
    text = "=====\nNews\n=====\n\nintro\n\nv1.0\n====\n\nfixed a bug\n"
    assert paths_of(text) == ["News", "News > v1.0"]


MAN = """\
LS(1)                     User Commands                    LS(1)

NAME
       ls - list directory contents

DESCRIPTION
       List information about the FILEs.

       -a, --all
              do not ignore entries starting with .

SEE ALSO
       Full documentation <https://www.gnu.org/software/coreutils/ls>

GNU coreutils 9.1          September 2022                  LS(1)
"""


def test_a_rendered_man_page_keeps_its_section_names_under_its_banner() -> None:
    paths = paths_of(MAN)
    banner = "LS(1) User Commands LS(1)"
    assert f"{banner} > DESCRIPTION" in paths
    assert f"{banner} > SEE ALSO" in paths
    assert all(path.startswith(banner) for path in paths)


def test_not_headings() -> None:
    # The last line of a paragraph with a rule under it is not a title.
    assert headings_of("some prose that goes on\nand ends here\n-------------\n") == []
    # An underline far shorter than its line is a separator, not an underline.
    assert headings_of("A rather long line that is not a title\n---\n") == []
    # A table's header: its rule has gaps.
    assert headings_of("\nName    Value\n----    -----\na       1\n") == []
    # One shouted line is not a man page's sections.
    assert headings_of("\nWARNING\n       do not run this twice\n") == []
    # Capitals followed by text at the margin are prose, not a section name.
    assert headings_of("\nNAME\nDESCRIPTION\n\nSEE ALSO\nfoo\n") == []
    # A line of rules only is never a title.
    assert headings_of("\n-----\n-----\n") == []


def test_text_without_headings_is_chunked_as_before() -> None:
    text = "A title line\n\nfirst paragraph.\n\nsecond paragraph.\n"
    assert paths_of(text) == ["A title line"]


def test_every_word_is_kept_as_text_or_heading() -> None:
    chunks = chunk_document(Document(kind="text", title="t", text=SPEC, located="lines"))
    seen = set()
    for chunk in chunks:
        seen.update(chunk.text.split())
        for level in chunk.heading:
            seen.update(level.split())
    words = {w for w in SPEC.split() if set(w) - set("=-")}
    assert words <= seen


def words_kept(text: str) -> tuple[set[str], set[str]]:
    chunks = chunk_document(Document(kind="text", title="t", text=text, located="lines"))
    seen = set()
    for chunk in chunks:
        seen.update(chunk.text.split())
        for level in chunk.heading:
            seen.update(level.split())
    return {w for w in text.split() if set(w) - set("=-")}, seen


# Shaped as git's RelNotes/2.10.0.txt: a section with nothing under it but the next title.
EMPTY_SECTION = """\
Git 2.10 Release Notes
======================

Backward compatibility notes
----------------------------

Updates since v2.9
------------------

 * "git pull --rebase" learned to warn the user.
"""


def test_a_title_with_nothing_under_it_keeps_its_words() -> None:
    words, seen = words_kept(EMPTY_SECTION)
    assert words <= seen, words - seen


# Shaped as libatm1's change log and libjpeg.txt: the first rule style seen ("---", a
# table of contents or the latest release's subsections) is the lower level; each "==="
# release title heads the "---" sections after it.
INVERTED = """\
Contents
--------

   Overview, usage.

OVERVIEW
========

Functions provided
------------------

The library provides compression.

USAGE
=====

Data formats
------------

Images are arrays.
"""


def test_a_style_that_heads_the_sections_after_it_ranks_above_them() -> None:
    paths = paths_of(INVERTED)
    assert "OVERVIEW > Functions provided" in paths
    assert "USAGE > Data formats" in paths
    words, seen = words_kept(INVERTED)
    assert words <= seen, words - seen


def test_capitals_that_name_a_file_or_are_code_are_not_section_names() -> None:
    # man-pages' Changes.old: a page's name in capitals over its indented entry would head
    # every entry (thousands of lines, other releases) down to the next such name.
    changes = "\nLDP.7\n    mtk\n        Minor wording.\n\nCPU_SET.3\n    mtk\n        Fixed.\n"
    assert headings_of(changes) == []
    # An awk program at the margin, its body indented.
    awk = "\nBEGIN {\n    n = 0\n}\n\nFNR == 1 {\n    n++\n}\n"
    assert headings_of(awk) == []
    # A table's header row: columns apart by runs of spaces.
    table = "\nN     TYPE     NAME\n      1        BOOL\n\nSEE ALSO\n       x(1)\n"
    assert headings_of(table) == []


def test_a_table_header_over_an_unbroken_rule_is_not_a_title() -> None:
    # slang's slangfun.txt: columns apart by runs of spaces over a rule with no gaps; as a
    # title it would head the table and every paragraph after it down to the next title.
    table = (
        "\n   Value      Description\n   ----------------------------\n     0        none\n"
        "\n A paragraph after the table.\n"
    )
    assert headings_of(table) == []
    assert headings_of("\nPictOp\t\t\tFa\n--------------------\nClear\t\t\t0\n") == []


def test_a_change_logs_first_entry_does_not_head_the_releases_below_it() -> None:
    text = (
        "Version 2.5.0 to 2.5.1 (30-NOV-2009)\n\nfixed a crash\n\n"
        "Version 2.4.1 to 2.5.0\n======================\n\nnew bug fixes\n"
    )
    assert paths_of(text) == ["Version 2.5.0 to 2.5.1 (30-NOV-2009)", "Version 2.4.1 to 2.5.0"]


def test_a_page_wide_separator_under_an_entrys_last_line_is_no_underline() -> None:
    """bash's CHANGES: "4.  New Features in Readline" stood over the 78-dash line that ends
    each release's entry, and headed the next hundred chunks of other releases."""
    rule = "-" * 78
    entry = "\n1.  Changes to Bash\n\na. Fixed a bug.\n\n4.  New Features in Readline\n"
    text = f"{entry}{rule}\nNext entry.\n"
    assert headings_of(text) == []
    # Overlined, or a label ending in a colon, a long rule still marks a title.
    assert headings_of(f"{rule}\nTo do list\n{rule}\n\nitems\n") == ["To do list"]
    assert headings_of(f"\nBUGS:\n{rule}\n 8801 a bug\n") == ["BUGS:"]


def test_a_capitalised_name_may_stand_a_blank_line_above_its_indented_body() -> None:
    """systemd's NEWS: "CHANGES WITH 252:", a blank line, then the release's items."""
    text = (
        "systemd System and Service Manager\n\n"
        "CHANGES WITH 252:\n\n        * Kernel command line options.\n\n"
        "CHANGES WITH 251:\n\n        * The credentials logic.\n"
    )
    assert paths_of(text) == [
        "systemd System and Service Manager",
        "systemd System and Service Manager > CHANGES WITH 252:",
        "systemd System and Service Manager > CHANGES WITH 251:",
    ]


def test_a_change_logs_release_lines_head_their_entries() -> None:
    """nu23 (/usr/share/doc, held out): tmux's change log writes its releases as
    "CHANGES FROM 2.8 TO 2.9" over items at the margin, neither underlined nor over an
    indented body, so the whole file went under its first line, and "what changed in tmux
    2.9?" found 2.9's items headed "CHANGES FROM 3.3 TO 3.3a"."""
    tmux = (
        "CHANGES FROM 3.3 TO 3.3a\n\n* Do not crash in run-shell.\n\n"
        "CHANGES FROM 2.8 TO 2.9\n\n* The -fg, -bg and -attr options have been removed.\n"
    )
    assert paths_of(tmux) == ["CHANGES FROM 3.3 TO 3.3a", "CHANGES FROM 2.8 TO 2.9"]
    debian = (
        "tmux (3.3a-3) unstable; urgency=medium\n\n  * Fix the service.\n\n"
        " -- Romain Francoise <r@example.org>  Sun, 05 Feb 2023 10:00:00 +0100\n\n"
        "tmux (3.3a-2) unstable; urgency=medium\n\n  * Build with utf8proc.\n"
    )
    assert headings_of(debian) == [
        "tmux (3.3a-3) unstable; urgency=medium",
        "tmux (3.3a-2) unstable; urgency=medium",
    ]
    # An outline's stars are markup (GNU NEWS files: wget's).
    wget = (
        "* Noteworthy changes in release 1.21.3 (2022-02-26)\n\n** Add TLS 1.3.\n\n"
        "* Noteworthy changes in release 1.21.2 (2021-09-07)\n\n** Support autoconf 2.71\n"
    )
    assert headings_of(wget) == [
        "Noteworthy changes in release 1.21.3 (2022-02-26)",
        "Noteworthy changes in release 1.21.2 (2021-09-07)",
    ]


def test_a_cpan_changes_files_version_and_date_lines_head_their_entries() -> None:
    """newuser42: Log::Log4perl's `Changes` (Debian's changelog.gz) writes "1.57
    2022-10-21" over its entries with no blank line between and no word before the
    version: its 110 releases were one `(untitled)` section. libyaml's, Algorithm::Diff's
    and xz's NEWS ("5.4.1 (2023-01-11)" over a blank line) alike."""
    cpan = (
        "Revision history\n\n1.57 2022-10-21\n- fix tests\n\n"
        "1.42 (2013/07/25)\n   * (ms) new appender\n\n0.35 06/21/2003\n\n* first\n"
    )
    assert paths_of(cpan)[-3:] == ["1.57 2022-10-21", "1.42 (2013/07/25)", "0.35 06/21/2003"]
    # Not a numbered section, a table of figures, nor one such line alone.
    assert headings_of("1.2 Installing\n\ntext\n\n1.3 Running\n\ntext\n") == []
    assert headings_of("3.14 2.71\n\n1.41 1.73\n") == []
    assert headings_of("intro\n\n1.0 2020-01-01\n- first\n") == []


def test_lines_naming_versions_that_are_no_releases_stay_text() -> None:
    # One alone is an entry, not a pattern.
    assert headings_of("intro\n\nSupport for autoconf 2.71\n\nmore text\n") == []
    # Numbered sections, figure captions and sentences standing alone.
    sections = "1.1. Overall\n\ntext\n\n1.2. Details\n\ntext\n"
    assert headings_of(sections) == []
    captions = "Figure 2.1. A server\n\ntext\n\nFigure 2.2. A client\n\ntext\n"
    assert headings_of(captions) == []
    sentences = "Version 1.4 adds a border.\n\ntext\n\nVersion 1.5 adds monitors.\n\ntext\n"
    assert headings_of(sentences) == []
    # Not alone between blank lines: a line of a paragraph.
    assert headings_of("See version 1.2 for\nthe details, or version 1.3\nlater.\n") == []


def test_a_running_footer_naming_one_version_on_every_page_is_no_release() -> None:
    """review18: a man page rendered to paged text (`nroff -man -rcR=0 | col -b`, as
    /usr/share/man's grep.1 gives) repeats "GNU grep 3.8   2019-12-29   N" at every page
    break, alone between blank lines; each became a release heading, and the options
    after it were filed under "GNU grep 3.8 … 3" instead of OPTIONS. A change log's
    release lines name different releases; a footer names the same one each time."""
    page = "       -{0}   option {0} text that runs on.\n\n\n"
    footer = "GNU grep 3.8                      2019-12-29                                 {}\n\n\n"
    header = "GREP(1)                   General Commands Manual                   GREP(1)\n\n\n"
    text = "NAME\n       grep - print lines\n\nOPTIONS\n" + "".join(
        page.format(chr(ord("a") + n)) + footer.format(n + 2) + header for n in range(4)
    )
    assert headings_of(text) == ["NAME", "OPTIONS"]
    # Nor is one requirement written twice: the same version each time.
    twice = "Server\n\nPython 3.8 or later\n\ntext\n\nClient\n\nPython 3.8 or later\n\ntext\n"
    assert headings_of(twice) == []


# Shaped as docutils' docs/ref/rst/restructuredtext.txt, which docutils ships as plain
# text (as PEPs and many README.txt files are): its sections below `---` are adorned with
# backticks and dots, which were not rules, so "Hyperlink Targets" and the sections after
# it were cited under "Explicit Markup Blocks" (33 of its 112 chunks misplaced).
REST_AS_TEXT = """\
======================
 Markup Specification
======================

Body Elements
=============

Explicit Markup Blocks
----------------------

An explicit markup block is a text block.

Hyperlink Targets
`````````````````

Hyperlink targets specify reference names.

Anonymous Hyperlinks
....................

The double-underscore form.

Directives
``````````

Directives are an extension mechanism.
"""


def test_titles_adorned_with_any_rest_character_are_headings() -> None:
    top = "Markup Specification > Body Elements > Explicit Markup Blocks"
    assert paths_of(REST_AS_TEXT) == [
        top,
        f"{top} > Hyperlink Targets",
        f"{top} > Hyperlink Targets > Anonymous Hyperlinks",
        f"{top} > Directives",
    ]
    overlined = "\n++++++++++++\n Python News\n++++++++++++\n\nwhat changed\n"
    assert headings_of(overlined) == ["Python News"]


# Plain text draws lines of reST's other adornment characters for other reasons; only a
# title that docutils would take is one.
NOT_REST_TITLES = {
    "an underline shorter than its title (a `=` one may be half)": (
        "\nHyperlink Targets\n`````````\n\ntext\n"
    ),
    "an inset title: an example in an indented literal block": (
        "Example::\n\n  Section\n  ```````\n\n  text\n"
    ),
    "a paragraph's last line over dots": "some prose that goes on\nand on\n.............\n",
    "an overline unlike the underline": "\n''''''''''''\nTitle\n''''''''''''''''\n",
    "three characters: a Markdown fence, an ellipsis": "```\nls\n\nend\n```\n\nfoo\n...\n",
    "a mailing list's footer under a signature": (
        "\nIan\n" + "_" * 47 + "\nFor event info, see the list.\n"
    ),
    "a table of contents' dot leaders": "\nIntroduction ........ 1\nUsage ............... 2\n",
}


def test_rest_adornments_beyond_the_usual_rules_count_only_under_docutils_rule() -> None:
    for why, text in NOT_REST_TITLES.items():
        assert headings_of(text) == [], why


def test_a_delimited_blocks_closing_rule_underlines_nothing() -> None:
    """git's `.txt` documentation is AsciiDoc: `----` opens a listing block and the same
    rule closes it. howto/recover-corrupted-blob-object.txt (git-doc 2.39.5) had the quoted
    shell line `> ib]$ mv .git/objects/4b/…` as a heading over the rest of the how-to, its
    update-hook example `deny >/dev/null "There are no more rules…` (newuser51)."""
    howto = (
        "How to recover a corrupted blob object\n======================================\n\n"
        "-----------------------------------------------------------\n"
        "On Fri, 9 Nov 2007, Yossi Leybovich wrote:\n>\n> Did not help\n"
        "-----------------------------------------------------------\n\n"
        "-----------------------------------------------------------\n"
        "So:\n\n> ib]$ mv .git/objects/4b/9458b3786228369c63936db65827de3cc06200 ../\n"
        "-----------------------------------------------------------\n\n"
        "Finding it\n----------\n\nLook at the tree.\n"
    )
    assert headings_of(howto) == ["How to recover a corrupted blob object", "Finding it"]
    # an overline opens no block: the title it is over still heads, and later ones too
    overlined = "================\nNEWS for wadllib\n================\n\nText.\n\n"
    overlined += "1.1 (2009-07-09)\n================\n\n- Fix.\n"
    assert headings_of(overlined) == ["NEWS for wadllib", "1.1 (2009-07-09)"]
    # a rule with a blank line under it is a separator, not an opening delimiter
    separated = "Intro.\n\n----------\n\nSection Two\n----------\n\nBody.\n"
    assert headings_of(separated) == ["Section Two"]


# Debian's bug tracker guide as doc-debian 11.3+nmu1 ships it (`lynx -dump` of the web
# page: each section's title at the margin, its text three columns in).
BUG_GUIDE = """\
Information regarding the bug processing system for package maintainers and bug
                                    triagers

   Initially, a bug report is submitted by a user as an ordinary mail
   message to submit@bugs.debian.org which must include a Package line.
   This will then be given a number, acknowledged to the user, and
   forwarded to debian-bugs-dist.

Closing bug reports

   Debian bug reports should be closed when the problem is fixed.
   Problems in packages can only be considered fixed once a package
   that includes the bug fix enters the Debian archive.

   To close it, send a message to nnn-done@bugs.debian.org.
Package: <packagename>

   Replace <packagename> with the name of the package.

Severity levels

   The bug system records a severity level with each bug report.

   critical
          makes unrelated software on the system break.
"""


def test_titles_at_the_margin_of_an_indented_page_head_its_sections() -> None:
    """doc-debian's `bug-maint-info.txt.gz`: every chunk had been `(untitled)`, and
    `mailing-lists.txt.gz`'s "Development lists" cited as "Subscription / Unsubscription"."""
    assert headings_of(BUG_GUIDE) == ["Closing bug reports", "Severity levels"]
    paths = paths_of(BUG_GUIDE)
    assert paths[0] == "(untitled)"
    assert paths[1:] == ["Closing bug reports", "Severity levels"]


def test_lines_at_the_margin_of_prose_at_the_margin_stay_text() -> None:
    # A README whose prose is at the margin: the sentence before an indented example is
    # not a title, however often it happens.
    readme = "".join(
        f"Then build it\n\n    make {target}\n\nThe {target} step writes files.\nIt is quick.\n\n"
        for target in ("all", "install", "check")
    )
    assert headings_of(readme) == []
    # One line at the margin of an indented page is not its sections.
    assert headings_of("   an indented page\n\nOnly once\n\n   its text\n   more\n") == []
    # A field, a clause, a date: no title.
    page = "\nPackage: foo\n\n   text\n\nSee below,\n\n   text\n\n2022-10-30 Jess\n\n   text\n"
    assert headings_of(page) == []


# The Debian constitution v1.9 (doc-debian 11.3+nmu1): numbered titles at the margin, the
# text and the subsections indented.
CONSTITUTION = """\
                   Constitution for the Debian Project (v1.9)

   Version 1.9 ratified on March 26th, 2022.

5. Project Leader

  5.1. Powers

   The Project Leader may:
    1. Appoint Delegates or delegate decisions to the Technical Committee.
    2. Give authority to other Developers.

  5.2. Appointment

    1. The Project Leader is elected by the Developers.
    8. The Project Leader serves for one year from their election.

A. Standard Resolution Procedure

   These rules apply to communal decision-making by committees and
   plebiscites, where stated above.
"""


def test_a_numbered_title_at_the_margin_of_an_indented_page_heads_its_section() -> None:
    """Every chunk of the constitution had been cited under its first line, and answers
    quoted its subsection titles ("7.2. Appointment") as sentences."""
    margin = {"5. Project Leader", "A. Standard Resolution Procedure"}
    assert margin <= set(headings_of(CONSTITUTION))
    # A numbered list item at the margin of prose at the margin stays a list item, and a
    # date is no section number.
    assert headings_of("Steps:\n\n1. Open it\n\n   then\n\n2. Close it\n\n   now\n") == []
    dated = "   x\n   y\n   z\n\n2022-10-30 Jess\n\n   a\n\n2021-01-01 Ann\n\n   b\n"
    assert headings_of(dated) == []


def test_subtitles_numbered_inside_a_numbered_heading_head_their_subsections() -> None:
    """The constitution's `  5.2. Appointment`, indented as its text is, had been a line of
    "5. Project Leader"'s text: a keyless answer to "how long does the Project Leader
    serve?" quoted the line "5.2. Appointment" as a sentence."""
    assert headings_of(CONSTITUTION) == [
        "5. Project Leader",
        "5.1. Powers",
        "5.2. Appointment",
        "A. Standard Resolution Procedure",
    ]
    assert "5. Project Leader > 5.2. Appointment" in paths_of(CONSTITUTION)
    deeper = (
        "1. Scope\n\n  1.1. Terms\n\n  text\n\n    1.1.1. Words\n\n  text\n\n  1.2. Use\n\n  text\n"
    )
    titled = "1. Scope\n=====\n\n" + deeper.split("\n", 2)[2]
    assert headings_of(titled) == ["1. Scope", "1.1. Terms", "1.1.1. Words", "1.2. Use"]
    assert paths_of(titled)[-2:] == ["1. Scope > 1.1. Terms > 1.1.1. Words", "1. Scope > 1.2. Use"]


def test_numbers_that_do_not_extend_their_heading_s_stay_text() -> None:
    # Another section's number, a list's items, a sentence, a field: text.
    body = "\n  3.1. Elsewhere\n\n  1. First step\n\n  2.1. Done.\n\n  2.2. Note: x\n\n  text\n"
    assert headings_of("2. Scope\n=====\n" + body) == ["2. Scope"]
    # Under a heading with no number, nothing is a numbered subtitle.
    assert headings_of("Scope\n=====\n\n  1.1. Terms\n\n  text\n") == ["Scope"]


def test_a_subtitle_s_level_is_its_depth_under_its_heading() -> None:
    """`1.2.1.` under a heading `1.2.` and `2.1.1.` under `2.1.` under `2.` are each one
    level under their parent: styled by their numbers' parts, `1.2.1.` seen first had
    ranked three parts above two, and `2.1.1.`'s path had lost `2.1. Leader`."""
    doc = (
        "1.2. Scope\n----------\n\n  Text of the scope.\n\n  1.2.1. Purpose\n\n  Text.\n\n"
        "2. Officers\n-----------\n\n  Text of officers.\n\n  2.1. Leader\n\n  Text.\n\n"
        "  2.1.1. Appointment\n\n  Text of the appointment.\n"
    )
    assert paths_of(doc)[-1] == "2. Officers > 2.1. Leader > 2.1.1. Appointment"
    assert "1.2. Scope > 1.2.1. Purpose" in paths_of(doc)
