"""Vim help files (`doc/*.txt`: Vim's own manuals, every plugin's), as Vim 9.0's user
manual ships them in Debian's vim-runtime (held out as nu66a). Read as plain text every
chunk had been `(untitled)`, with the page's rules, `*tags*`, `|links|` and example
markers in the text (newuser66)."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse as load
from ragd.ingest.vim_help import is_vim_help

# Written here in the shape of a user-manual chapter: the file's tag line, the centred
# title under it, the chapter's own contents, ruled-off numbered sections with
# right-aligned tags, an example, a header line, the modeline.
RULE = "=" * 78
CHAPTER = f"""*usr_77.txt*\tFor Vim version 9.0.  Last change: 2026 Dec 07

\t\t     VIM USER MANUAL - by A. Harbour

\t\t\t      Keeping tide tables

Read the harbour's tide tables in Vim.

|77.1|\tOpening a table
|77.2|\tFinding high water

     Next chapter: |usr_78.txt|  Charts
Table of contents: |usr_toc.txt|

{RULE}
*77.1*\tOpening a table\t\t\t\t*tide-open* *tables*

To open the table for a quay, use the |:tide| command: >

\t:tide north
\t:tide south
<
The table opens in a new window, see 'tidewindow'.

\tTide table for north ~

{RULE}
*77.2*\tFinding high water

Press |]h| to jump to the next high water.

{RULE}

Next chapter: |usr_78.txt|  Charts

Copyright: see |manual-copyright|  vim:tw=78:ts=8:noet:ft=help:norl:
"""


def test_a_help_file_is_headed_by_its_title_and_its_ruled_off_sections() -> None:
    chunks = chunk_document(load("doc/usr_77.txt", CHAPTER.encode()))
    by_path: dict[str, str] = {}
    for chunk in chunks:
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    title = "Keeping tide tables"
    assert list(by_path) == [
        title,
        f"{title} > 77.1 Opening a table",
        f"{title} > 77.2 Finding high water",
    ]
    opening = by_path[f"{title} > 77.1 Opening a table"]
    # the example is code, its markers gone; the tags are the section's text, unstarred
    assert "```\n\t:tide north\n\t:tide south\n```" in opening
    assert "tide-open tables" in opening
    assert "use the :tide command:" in opening and "'tidewindow'" in opening
    assert "Tide table for north" in opening and "north ~" not in opening
    every = "".join(by_path.values())
    assert "*" not in every and "|" not in every and "====" not in every
    assert "ft=help" not in every and "Copyright: see manual-copyright" in every
    # the chapter's contents and the manual's byline stay text
    assert "77.2\tFinding high water" in by_path[title]
    assert "VIM USER MANUAL - by A. Harbour" in by_path[title]


def test_a_plugins_help_is_titled_by_its_first_line() -> None:
    plugin = (
        "*tides.txt*  Tide tables for harbour masters\n\n"
        f"{RULE}\nINTRODUCTION\t\t\t\t\t*tides-intro*\n\nTides come and go.\n"
    ).encode()
    chunks = chunk_document(load("doc/tides.txt", plugin))
    paths = [chunk.heading_path for chunk in chunks]
    assert paths[-1] == "Tide tables for harbour masters > INTRODUCTION"
    assert "Tides come and go." in chunks[-1].text and "tides-intro" in chunks[-1].text


def test_a_chunk_cites_the_lines_of_the_file_it_holds() -> None:
    chunks = chunk_document(load("doc/usr_77.txt", CHAPTER.encode()))
    high = next(c for c in chunks if c.heading_path.endswith("Finding high water"))
    lines = CHAPTER.split("\n")
    line = next(n for n, text in enumerate(lines, 1) if "jump to the next high" in text)
    assert high.lines is not None and high.lines[0] <= line <= high.lines[1]


def test_other_text_is_no_help_file() -> None:
    assert not is_vim_help(b"Notes about *stars* and |pipes|\n\nvim: set tw=78:\n")
    assert is_vim_help(b"Some help text\n\n vim:tw=78:ts=8:ft=help:norl:\n")
    notes = f"Notes\n\n{RULE}\nA heading-like line\n\nText *here*.\n".encode()
    text = " ".join(chunk.text for chunk in chunk_document(load("notes.txt", notes)))
    assert "*here*" in text


def test_a_line_of_tags_under_the_centred_title_is_no_title() -> None:
    # usr_90.txt's `*install*`, alone and indented under "Installing Vim", had titled it
    head = "*usr_79.txt*\tFor Vim version 9.0.\n\n\t\t\tInstalling tides\n\n\t\t\t\t*tides*\n"
    chunks = chunk_document(load("doc/usr_79.txt", f"{head}Tides are installed.\n".encode()))
    assert [chunk.heading_path for chunk in chunks] == ["Installing tides"]
    assert "tides" in chunks[0].text.split("\n") and "Tides are installed." in chunks[0].text


def test_a_reference_manual_is_titled_by_its_tagged_line_under_the_byline() -> None:
    # options.txt's `Options		*options*` stands at the margin under its byline
    head = "*tides.txt*\tFor Vim version 9.0.\n\n\n\t\tVIM REFERENCE MANUAL\tby A. Harbour\n\n\n"
    body = "Tide tables\t\t\t\t*tides* *tide-tables*\n\nTides come and go.\n"
    chunks = chunk_document(load("doc/tides.txt", f"{head}{body}".encode()))
    assert [chunk.heading_path for chunk in chunks] == ["Tide tables"]
    text = chunks[0].text
    assert "VIM REFERENCE MANUAL\tby A. Harbour" in text and "tides tide-tables" in text


def test_a_reference_manual_with_no_title_but_its_byline_is_titled_by_its_name() -> None:
    # change.txt, diff.txt, index.txt and 31 more of Vim 9.0's help files: the byline is the
    # only centred line, and it had titled them (`VIM REFERENCE MANUAL by Bram Moolenaar`);
    # the file's own tag is what `:help` names it by.
    head = "*ebb.txt*\tFor Vim version 9.0.\n\n\n\t\tVIM REFERENCE MANUAL\tby A. Harbour\n\n\n"
    chunks = chunk_document(load("doc/ebb.txt", f"{head}This file describes ebbs.\n".encode()))
    assert [chunk.heading_path for chunk in chunks] == ["ebb.txt"]
    assert "VIM REFERENCE MANUAL\tby A. Harbour" in chunks[0].text
    # the byline over two lines (if_sniff.txt): neither is a title
    split = "*ebb.txt*\tFor Vim version 9.0.\n\n\t\tVIM REFERENCE MANUAL\n\t\tby A. Harbour\n\n"
    chunks = chunk_document(load("doc/ebb.txt", f"{split}Ebbs.\n".encode()))
    assert [chunk.heading_path for chunk in chunks] == ["ebb.txt"]


def test_a_boxed_title_is_read_without_its_box_and_the_first_title_wins() -> None:
    # pi_tar.txt: `| Tar File Interface |` between `+====+` edges had titled it `+====+`
    head = "*ebb.txt*\tFor Vim version 9.0.\n\n\t\t+=======+\n\t\t| Ebb tables |\n\t\t+=======+\n\n"
    chunks = chunk_document(load("doc/ebb.txt", f"{head}Ebbs.\n".encode()))
    assert [chunk.heading_path for chunk in chunks] == ["Ebb tables"]
    # quickref.txt: its title, then an indented table header (` tag  subject ~`) that had
    # titled it, as the last centred line with words
    head = "*ebb.txt*\tFor Vim version 9.0.\n\n\t\tVIM REFERENCE MANUAL\tby A. Harbour\n\n"
    table = "\t\t\tQuick ebbs\n\n\t\t\t*ebbs*\n tag\tsubject ~\n|E_1|\tfirst ebb\n"
    chunks = chunk_document(load("doc/ebb.txt", f"{head}{table}".encode()))
    assert chunks[0].heading_path == "Quick ebbs"


# A plugin's manual in vim-airline's shape (doc/airline.txt, held out as nu73a): under one
# ruled-off section, each extension's part opens with a dashed rule that carries its tag
# at the right, `----------- *harbour-tides*`, and an indented table has a dashed line
# under its header row.
DASH = "-" * 37
PLUGIN = f"""*harbour.txt*  Tide tables in the status line

{RULE}
EXTENSIONS                                             *harbour-extensions*

Each extension can be switched off on its own.

{DASH}                    *harbour-tides*
tides <https://example.org/tides>

* enable/disable the tide extension >
  let g:harbour#extensions#tides#enabled = 1
<
  name      meaning~
  ----------------------
  flood     the tide is rising
  ebb       the tide is falling

{DASH}                    *harbour-moorings* *moorings*
Shows the number of free berths.

{RULE}
LICENSE                                                   *harbour-license*

Free to use.
"""


def _headings(text: str) -> dict[str, str]:
    by_path: dict[str, str] = {}
    for chunk in chunk_document(load("doc/harbour.txt", text.encode())):
        by_path[chunk.heading_path] = by_path.get(chunk.heading_path, "") + chunk.text
    return by_path


def test_a_dashed_rule_with_its_tag_heads_a_part_by_that_tag() -> None:
    by_path = _headings(PLUGIN)
    title = "Tide tables in the status line"
    tides = f"{title} > EXTENSIONS > harbour-tides"
    moorings = f"{title} > EXTENSIONS > harbour-moorings"
    assert tides in by_path, sorted(by_path)
    assert "g:harbour#extensions#tides#enabled" in by_path[tides]
    assert "the tide is falling" in by_path[tides]
    assert moorings in by_path, sorted(by_path)
    assert "free berths" in by_path[moorings]
    assert "moorings" in by_path[moorings]  # its second tag kept as text
    assert "free berths" not in by_path[tides]
    assert "Free to use." in by_path[f"{title} > LICENSE"]


def test_an_indented_dashed_line_is_no_rule() -> None:
    by_path = _headings(PLUGIN)
    assert not any("flood" in path for path in by_path), sorted(by_path)
    assert any("flood     the tide is rising" in text for text in by_path.values())
