"""OpenDocument spreadsheets (`.ods`, LibreOffice Calc) are read sheet by sheet, as `.xlsx`
workbooks are: they had been a skipped type. The file is written by odfpy here."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats import archive, ods
from ragd.ingest.loaders import SkipFile, parse
from tests.support import office


def test_a_sheet_is_a_section_of_rows_cited_by_their_numbers() -> None:
    chunks = chunk_document(parse("berths.ods", office.calc_bytes()))
    berths = next(c for c in chunks if c.heading == ("Berths",))
    lines = berths.text.split("\n")
    assert lines[0] == "| Berth | Vessel | Length (m) |"
    assert lines[1] == "| B1 | Ketch | 7.5 |"  # row 2 is empty: counted, not written
    # A row repeated three times is three rows (3-5), and a gap of empty cells repeated
    # in a row is that many cells; `text:s` is a space; a cell's comment is not read.
    assert lines[2:5] == ["| B2 | Schooner | 12 |"] * 3
    assert lines[5] == "| B5 | Harbour Launch | | | dredged |"
    assert "harbour master" not in berths.text
    assert berths.rows == (1, 7)
    # The sheet's empty rest, one row repeated a million times, is never written out.
    assert len(lines) == 6
    notes = next(c for c in chunks if c.heading == ("Notes",))
    assert notes.text == "| Dredging | postponed to autumn |" and notes.rows == (1, 1)


def test_a_sheet_past_the_cell_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ods, "MAX_CELLS", 5)
    with pytest.raises(SkipFile, match=r"sheet 'Berths' holds more than 5 cells"):
        parse("berths.ods", office.calc_bytes())


def test_a_damaged_or_hostile_spreadsheet_gives_one_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = office.calc_bytes()
    with pytest.raises(SkipFile, match=r"damaged OpenDocument spreadsheet \(content.xml"):
        parse("berths.ods", office.with_content(data, "<office:document-content"))
    # An entity is never expanded (nor an external one fetched): a billion laughs reads
    # as a sheet whose cell holds no text.
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "haha"><!ENTITY b "&a;&a;&a;&a;">'
        '<!ENTITY c SYSTEM "file:///etc/passwd">]>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
        '<office:spreadsheet><table:table table:name="Laughs"><table:table-row>'
        "<table:table-cell><text:p>&b;&c;</text:p></table:table-cell>"
        "<table:table-cell><text:p>tide</text:p></table:table-cell>"
        "</table:table-row></table:table></office:spreadsheet></office:body>"
        "</office:document-content>"
    )
    text = parse("laughs.ods", office.with_content(data, laughs)).text
    assert "haha" not in text and "root:" not in text and "tide" in text
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(SkipFile, match=r"unpacks to .* zip bomb"):
        parse("berths.ods", data)
