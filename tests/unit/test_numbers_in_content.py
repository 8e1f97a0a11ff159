"""A number in a document is text, however long: no reader turns one into an int the
way Python refuses (over 4,300 digits, or a non-ASCII digit), which skipped the whole file."""

from __future__ import annotations

import sys

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.rst import MAX_LINE_CHARS
from ragd.ingest.loaders import parse
from tests.support.formats import odt_saved

LONG = "7" * 5000  # past int()'s 4,300-digit guard
LIMIT_BEFORE = sys.get_int_max_str_digits()


def test_an_rst_list_numbered_past_int_digits_is_indexed_as_text() -> None:
    for marker in (f"{LONG}.", f"({LONG})", f"   {LONG})"):
        rst = f"Harbour\n=======\n\nMoorings are booked ahead.\n\n{marker} berth list\n"
        document = parse("harbour.rst", rst.encode())
        chunked = "\n".join(c.text for c in chunk_document(document))
        assert "Moorings are booked ahead." in chunked and "berth list" in chunked, marker
        # (the chunker splits a 5,000-character word; the document holds it whole)
        assert LONG in document.text and "\\" + LONG not in document.text, marker


def test_numbers_as_long_as_a_line_are_read_and_kept_as_written() -> None:
    longest = "9" * (MAX_LINE_CHARS - len(". last")), "8" * 6000
    rst = (
        f"Harbour\n=======\n\n{longest[1]}7. first\n{longest[1]}8. second\n\n"
        f"Literally::\n\n   {LONG}. in a code block\n\n{longest[0]}. last\n"
    )
    text = parse("harbour.rst", rst.encode()).text
    assert f"{longest[1]}7. first\n{longest[1]}8. second" in text  # one list, its numbers
    assert f"{LONG}. in a code block" in text and "\\" not in text
    assert f"{longest[0]}. last" in text
    assert sys.get_int_max_str_digits() == LIMIT_BEFORE  # Python's guard is back after


def test_an_ordinary_numbered_rst_list_keeps_its_numbers() -> None:
    rst = "Steps\n=====\n\n3. Cast off.\n4. Hoist the jib.\n"
    text = parse("steps.rst", rst.encode()).text
    assert "3. Cast off." in text and "4. Hoist the jib." in text, text


def odt_with_levels(*levels: str) -> bytes:
    from odf import text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    for n, level in enumerate(levels):
        document.text.addElement(text.H(outlinelevel=level, text=f"Deck {n}"))
        document.text.addElement(text.P(text=f"Deck {n} holds the lifeboats."))
    return odt_saved(document)


def test_an_odt_outline_level_that_is_no_small_number_is_read_as_level_one() -> None:
    document = parse("decks.odt", odt_with_levels(LONG, "²", "2"))
    text = document.text
    for n in range(3):
        assert f"Deck {n} holds the lifeboats." in text, text
    assert "# Deck 0" in text and "# Deck 1" in text and "## Deck 2" in text, text
