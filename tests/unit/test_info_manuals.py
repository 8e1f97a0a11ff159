"""GNU Info manuals (`ingest/formats/info.py`, `info_node.py`): small Info texts written
here, read through the loader as the daemon reads them (gzipped ones included)."""

from __future__ import annotations

import gzip

import pytest

from ragd.core.config import DOCUMENT_PATTERNS
from ragd.core.no_text import is_no_text
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document, SkipFile, split_lines
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import module_name
from ragd.ingest.formats.info import is_info_name, manual_name
from ragd.ingest.loaders import parse


def title(text: str, underline: str) -> str:
    return f"{text}\n{underline * len(text)}\n\n"


def node(name: str, up: str = "Top") -> str:
    return f"\x1f\nFile: harbour.info,  Node: {name},  Next: Somewhere,  Up: {up}\n\n"


BANNER = (
    "This is harbour.info, produced by makeinfo version 6.8 from harbour.texi.\n\n"
    "   Copyright (C) 2024 Harbour Board.\n"
    "INFO-DIR-SECTION Navigation\nSTART-INFO-DIR-ENTRY\n"
    "* Harbour: (harbour).          Berths and tides.\nEND-INFO-DIR-ENTRY\n\n"
)
TABLES = (
    "\x1f\nTag Table:\nNode: Top\x7f230\nNode: Mooring\x7f600\n\x1f\nEnd Tag Table\n\n"
    "\x1f\nLocal Variables:\ncoding: utf-8\nEnd:\n"
)
NODES = (
    node("Top", "(dir)")
    + title("Harbour Manual", "*")
    + "This manual describes the harbour of Brannock.\n\n"
    + "* Menu:\n\n"
    + "* Mooring::                    Tying up at the quay.\n"
    + "* Tides: Tide tables.          When the water is high,\n"
    + "                                 and when it is low.\n\n"
    + " -- The Detailed Node Listing --\n\n"
    + node("Mooring")
    + title("1 Mooring", "*")
    + "   Moor at the north quay.  *Note Tides: Tide tables, for the times\n"
    + "of the *note Pilot\nboats::.\n\n"
    + title("1.1 Bollards", "=")
    + "Use the red bollards (*note Mooring::).\n\n"
    + "     $ moor --quay north\n     $ tie --knot bowline\n\n     $ leave --at dawn\n\n"
    + "'--slack'\n"
    + "     Leave a metre of slack in every line so the falling tide never\n"
    + "     lifts the bollard, and check it at each change of watch.\n\n"
    + title("1.1.1 Knots", "-")
    + "Bowline knots hold under load.\n\n"
    + " -- Function: int tie_knot (const char *KNOT, size_t TURNS,\n"
    + "          int SLACK)\n"
    + "     Ties KNOT with TURNS turns.\n\n"
    + title("1.1.1.1 Slip knots", ".")
    + "A slip knot comes undone with one pull.\n\n"
    + node("Tide tables")
    + "High water at Brannock is at noon.\n\n"
    + node("Index")
    + title("Index", "*")
    + "\x00\x08[index\x00\x08]\n* Menu:\n\n"
    + "* bollards:                     Bollards.             (line 6)\n"
    + "* knots:                        Knots.\n"
    + "                                                      (line 3)\n\n"
)
HARBOUR = (BANNER + NODES + TABLES).encode()


def read(name: str = "harbour.info", data: bytes = HARBOUR) -> Document:
    return parse(name, data)


def headings(document: Document) -> list[str]:
    return [line for line in split_lines(document.text) if line.startswith("#")]


def test_titles_become_headings_of_their_levels_under_the_manual() -> None:
    assert headings(read()) == [
        "# harbour",
        "## Harbour Manual",
        "## Mooring",
        "### Bollards",
        "#### Knots",
        "##### Slip knots",
        "## Tide tables",  # no title: the node's name, one level under its Up (Top: a chapter)
        "## Index",
    ]


def test_chunks_carry_the_heading_path() -> None:
    chunks = chunk_document(read())
    slip = next(c for c in chunks if "slip knot comes undone" in c.text)
    assert slip.heading == ("harbour", "Mooring", "Bollards", "Knots", "Slip knots")
    tide = next(c for c in chunks if "High water" in c.text)
    assert tide.heading == ("harbour", "Tide tables")


def test_menus_read_as_lists_and_notes_as_their_words() -> None:
    text = read().text
    assert "- Mooring — Tying up at the quay." in text
    assert "- Tides — When the water is high, and when it is low." in text
    assert "-- The Detailed Node Listing --" in text  # a menu's comment line is text
    assert "See Tides, for the times" in text
    assert "of the see Pilot\nboats." in text  # a reference across a line break
    assert "(see Mooring)." in text
    for markup in ("* Menu:", "*note", "*Note", "::", "Tide tables,"):
        assert markup not in text, markup


def test_text_after_a_menu_is_the_nodes_body_again() -> None:
    """nu24 (held out): bc's Statements node opens with its menu and then carries the
    whole section; read as menu comments, each of its lines became a paragraph of its own
    ("line is 70.  Due to the interactive nature of 'bc', printing a" was quoted)."""
    manual = (
        node("Statements")
        + title("3 Statements", "*")
        + "* Menu:\n\n* Pseudo Statements::\n\n"
        + "   Statements provide the sequencing of expression evaluation.  The\n"
        + "printed value is in the base given by the variable OBASE and the line\n"
        + "length is 70.\n\n"
        + "     print x, y\n\n"
        + node("Pseudo Statements", "Statements")
        + "These are not statements in the usual sense.\n\n"
    )
    document = read(data=(BANNER + manual + TABLES).encode())
    assert "- Pseudo Statements" in document.text
    assert (
        "Statements provide the sequencing of expression evaluation.  The\nprinted value "
        "is in the base given by the variable OBASE and the line\nlength is 70."
    ) in document.text
    assert "```\nprint x, y\n```" in document.text


def test_a_star_line_in_the_body_after_a_menu_does_not_reopen_the_menu() -> None:
    """review18: the menu ran to the node's last line opening with `* `, so a body line
    at the margin that opens that way (a paragraph's continuation, `* b` of "a * b") drew
    the body between into the menu: each of its lines a paragraph of its own, and the star
    line read as an entry, its words after the colon dropped. A menu's comments are single
    lines (no run of two in the 9,167 menu lines of /usr/share/info); a paragraph ends it."""
    manual = (
        node("Operators")
        + title("4 Operators", "*")
        + "* Menu:\n\n* Precedence::\n\n"
        + "The product of two expressions is written with a star, and a long\n"
        + "sentence about it wraps so that the next line starts with the star,\n"
        + "* b: the second factor, is evaluated after a.\n\n"
        + node("Precedence", "Operators")
        + "Stars bind tighter than pluses.\n\n"
    )
    document = read(data=(BANNER + manual + TABLES).encode())
    assert "- Precedence" in document.text
    assert (
        "The product of two expressions is written with a star, and a long\nsentence about "
        "it wraps so that the next line starts with the star,\n* b: the second factor, is "
        "evaluated after a."
    ) in document.text


def test_index_entries_tables_and_banner_are_not_text() -> None:
    text = read().text
    for dropped in ("(line 6)", "* bollards", "Tag Table", "coding", "makeinfo", "Copyright"):
        assert dropped not in text, dropped
    assert "\x00" not in text and "\x1f" not in text and "\x7f" not in text


def test_an_example_stays_verbatim_and_a_description_is_prose() -> None:
    document = read()
    text = document.text
    # one block of code, the blank line in it kept
    assert "```\n$ moor --quay north\n$ tie --knot bowline\n\n$ leave --at dawn\n```" in text
    assert "'--slack'\nLeave a metre of slack in every line" in text  # label and description
    # a definition, its line continued, and its body: prose, not code
    assert "-- Function: int tie_knot (const char *KNOT, size_t TURNS,\nint SLACK)\n" in text
    assert "int SLACK)\nTies KNOT with TURNS turns." in text
    lines = split_lines(text)
    source = (BANNER + NODES).split("\n")
    at = lines.index("$ moor --quay north")
    assert source[document.origins[at] - 1] == "     $ moor --quay north"  # the file's line
    assert source[document.origins[at + 3] - 1] == "     $ leave --at dawn"


def test_a_split_manual_main_file_has_no_text_and_its_parts_are_read() -> None:
    main = BANNER + "\x1f\nIndirect:\nharbour.info-1: 230\n" + TABLES.replace("\x1f\nEnd", "")
    with pytest.raises(SkipFile) as skipped:
        parse("harbour.info.gz", gzip.compress(main.encode()))
    assert is_no_text(str(skipped.value))
    part = parse("harbour.info-1.gz", gzip.compress(("Banner\n" + NODES).encode()))
    assert part.title == "harbour"
    assert headings(part)[:3] == ["# harbour", "## Harbour Manual", "## Mooring"]


@pytest.mark.parametrize(
    "data",
    [
        b"\x1f",  # a separator with nothing after it
        b"banner\n\x1f\n",
        b"\x1fFile: harbour.info,  Node: Cut",  # an unterminated header, no body
        b"\x1f\nFile: harbour.info,  Node: Cut,  Up: Top\n\n\n",
    ],
)
def test_nothing_after_a_separator_is_a_file_with_no_text(data: bytes) -> None:
    with pytest.raises(SkipFile) as skipped:
        parse("harbour.info", data)
    assert is_no_text(str(skipped.value))


def test_a_megabyte_title_line_is_text_not_a_heading() -> None:
    long = "w" * 1_000_000
    data = (node("Top", "(dir)") + f"{long}\n{'*' * len(long)}\n\nShort text.\n").encode()
    document = read(data=data)
    assert headings(document) == ["# harbour", "## Top"]
    assert long in document.text and "Short text." in document.text


def test_the_declared_coding_is_read() -> None:
    data = (node("Top", "(dir)") + "Caf\xe9 au port.\n" + TABLES).encode("latin-1")
    data = data.replace(b"coding: utf-8", b"coding: iso-8859-15")
    document = read(data=data)
    assert "Café au port." in document.text and not document.notes


def test_a_file_named_info_without_nodes_is_plain_text() -> None:
    document = read("pathauto.info", b'name = "Pathauto"\ncore = 7.x\n')
    assert document.kind == "text" and "Pathauto" in document.text


def test_info_names_go_to_the_reader_and_the_default_patterns_take_them() -> None:
    named = ["coreutils.info", "coreutils.info.gz", "find.info-1", "find.info-12.gz", "dir"]
    for name in [*named, "dir.old", "DIR"]:
        assert is_info_name(name) and module_name(name) == "info", name
    for name in ("info.txt", "notes.information", "find.info-", "find.info-x", "readme.info.md"):
        assert not is_info_name(name), name
    assert manual_name("find.info-2.gz") == "find" and manual_name("dir") == "dir"
    included = PathFilter(DOCUMENT_PATTERNS)
    assert all(included.includes(name.lower()) for name in named)
    assert not included.includes("debian-policy-install.png")
