"""An OpenDocument list item or table cell of several paragraphs, and a list nested in an
item, keep a space between their paragraphs: odfpy's teletype.extractText joins a node's
text with nothing between paragraphs, so LibreOffice's (and docutils' rst2odt's) nested
lists read "over many lineswith two paragraphs" and "lower-case lettersmake sure", words
no search finds (docutils' quickstart.txt written by rst2odt)."""

from __future__ import annotations

from typing import Any

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.odt import parse
from tests.support.formats import odt_saved


def odt_with_lists() -> bytes:
    from odf import table, text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    document.text.addElement(text.H(outlinelevel=1, text="Lists"))
    outer = text.List()
    first = text.ListItem()
    first.addElement(text.P(text="upper-case letters and it goes over many lines"))
    first.addElement(text.P(text="with two paragraphs and all!"))
    outer.addElement(first)
    second = text.ListItem()
    second.addElement(text.P(text="lower-case letters"))
    inner = text.List()
    for words in ("with a sub-list starting at a different number", "make sure of it"):
        item = text.ListItem()
        item.addElement(text.P(text=words))
        inner.addElement(item)
    second.addElement(inner)
    outer.addElement(second)
    document.text.addElement(outer)
    grid = table.Table()
    row = table.TableRow()
    cell = table.TableCell()
    cell.addElement(text.P(text="first paragraph"))
    cell.addElement(text.P(text="second paragraph"))
    row.addElement(cell)
    grid.addElement(row)
    document.text.addElement(grid)
    return odt_saved(document)


def test_paragraphs_of_an_item_or_a_cell_and_nested_items_stay_apart() -> None:
    doc = parse("quickstart.odt", odt_with_lists())
    lines = doc.text.splitlines()
    assert "- upper-case letters and it goes over many lines with two paragraphs and all!" in lines
    assert "- lower-case letters" in lines
    assert "  - with a sub-list starting at a different number" in lines
    assert "  - make sure of it" in lines
    assert "| first paragraph second paragraph |" in lines
    words = " ".join(chunk.text for chunk in chunk_document(doc)).split()
    assert "lineswith" not in words and "paragraphsecond" not in words


def note(number: str, words: str) -> Any:
    """A `text:note` as LibreOffice saves one: its citation, then its body."""
    from odf import text

    cited = text.Note(id=f"ftn{number}", noteclass="footnote")
    cited.addElement(text.NoteCitation(text=number))
    body = text.NoteBody()
    body.addElement(text.P(text=words))
    cited.addElement(body)
    return cited


def odt_with_notes() -> bytes:
    """A footnote after "limit" and one in a table cell, as LibreOffice saves them: the
    `text:note` (its citation, then its body) sits inside the paragraph it is cited in."""
    from odf import table, text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    document.text.addElement(text.H(outlinelevel=1, text="Speed"))
    paragraph = text.P(text="Ferries keep under the limit")
    paragraph.addElement(note("1", "The limit is 20 knots in the harbour."))
    paragraph.addText(" at all times.")
    document.text.addElement(paragraph)
    grid, row, cell = table.Table(), table.TableRow(), table.TableCell()
    fare = text.P(text="Night fare")
    fare.addElement(note("2", "After ten in the evening."))
    cell.addElement(fare)
    row.addElement(cell)
    grid.addElement(row)
    document.text.addElement(grid)
    document.text.addElement(text.P(text="Boarding closes early."))
    document.text.addElement(text.H(outlinelevel=1, text="Fares"))
    document.text.addElement(text.P(text="Fares are paid on board."))
    return odt_saved(document)


def test_a_footnote_is_cited_where_it_is_and_its_text_ends_its_section() -> None:
    """fix29: odfpy's teletype reads a note in place, citation and body glued to the word
    before it: "the limit1The limit is 20 knots in the harbour. at all times"."""
    doc = parse("timetable.odt", odt_with_notes())
    lines = [line for line in doc.text.splitlines() if line]
    assert lines == [
        "# Speed",
        "Ferries keep under the limit [1] at all times.",
        "| Night fare [2] |",
        "Boarding closes early.",
        "[1] The limit is 20 knots in the harbour.",
        "[2] After ten in the evening.",
        "# Fares",
        "Fares are paid on board.",
    ], doc.text
    (speed, _) = chunk_document(doc)
    assert "[1] The limit is 20 knots in the harbour." in speed.text, speed.text


def test_a_note_cited_in_a_heading_leaves_the_heading_path_clean() -> None:
    """fix30: a note in a `text:h` put its citation into the heading ("Fares [1]"), so
    every chunk of the section was cited under "Fares [1]"; the note's text is kept."""
    from odf import text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    heading = text.H(outlinelevel=1, text="Fares")
    heading.addElement(note("1", "As of the 2024 timetable."))
    document.text.addElement(heading)
    document.text.addElement(text.P(text="Fares are paid on board."))
    doc = parse("fares.odt", odt_saved(document))
    (fares,) = chunk_document(doc)
    assert fares.heading_path == "Fares", fares.heading_path
    assert "Fares are paid on board.\n\n[1] As of the 2024 timetable." in fares.text, fares.text
