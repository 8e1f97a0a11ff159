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


def _sheet(rows: str) -> str:
    """content.xml of one sheet, 'S', whose rows are `rows` (written by hand)."""
    return (
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body>'
        f'<office:spreadsheet><table:table table:name="S">{rows}</table:table>'
        "</office:spreadsheet></office:body></office:document-content>"
    )


def _row(text: str, cells: int = 1, rows: int | str = 1) -> str:
    return (
        f'<table:table-row table:number-rows-repeated="{rows}">'
        f'<table:table-cell table:number-columns-repeated="{cells}"><text:p>{text}</text:p>'
        "</table:table-cell></table:table-row>"
    )


def test_repeats_are_held_to_the_text_cap_before_a_line_is_built() -> None:
    # A repeat is a few bytes of the file: 100 characters repeated in 100 columns of a
    # row repeated 1,000 times is 10 MB of text from a file of 1 KB. The cap is spent as
    # the rows are written, and the reason names the sheet.
    data = office.with_content(office.calc_bytes(), _sheet(_row("tide " * 20, 100, 1_000)))
    with pytest.raises(SkipFile, match=r"over the 1 MB max_text_mb cap: sheet 'S', repeats"):
        parse("tides.ods", data, max_text_chars=2**20)
    # A cell of a megabyte repeated 16,384 times would be a line of 16 GB: refused
    # before it is built, at the default cap (20 MB).
    data = office.with_content(office.calc_bytes(), _sheet(_row("tide " * 200_000, 16_384)))
    with pytest.raises(SkipFile, match=r"over the 20 MB max_text_mb cap"):
        ods.parse("tides.ods", data)


def test_a_sheet_cut_short_or_too_wide_gives_its_own_reason() -> None:
    data = office.calc_bytes()
    # The stream breaks inside a sheet (a truncated content.xml, a text node past
    # libxml2's 10 MB): damage, as when it breaks before the first sheet.
    whole = _sheet(_row("tide") * 10)
    cut = whole[: whole.index("</table:table-row>") + len("</table:table-row>")]
    with pytest.raises(SkipFile, match=r"damaged OpenDocument spreadsheet \(content.xml: Prem"):
        parse("tides.ods", office.with_content(data, cut))
    with pytest.raises(SkipFile, match=r"sheet 'S' has a row of more than 16,384 columns"):
        parse("tides.ods", office.with_content(data, _sheet(_row("tide", 20_000))))


def test_a_package_that_is_no_spreadsheet_says_what_it_is() -> None:
    # A text document renamed .ods: its table had been read as a sheet and its
    # paragraphs left out, as if they were all it held.
    text = _sheet(_row("tide")).replace("office:spreadsheet>", "office:text>")
    text = text.replace("<office:text>", "<office:text><text:p>Harbour dues rise</text:p>")
    with pytest.raises(SkipFile, match=r"not an OpenDocument spreadsheet \(no spreadsheet in its"):
        parse("dues.ods", office.with_content(office.calc_bytes(), text))
    # Encrypted: the manifest gives content.xml encryption data, the part is ciphertext.
    manifest = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">'
        '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry>'
        "</manifest:manifest>"
    )
    data = office.with_content(office.calc_bytes(), "\x8a\x07 ciphertext")
    data = office.with_manifest(data, manifest)
    with pytest.raises(SkipFile, match=r"spreadsheet is password-protected \(encrypted, not r"):
        parse("dues.ods", data)


def test_a_cell_with_only_a_value_reads_as_its_value() -> None:
    # LibreOffice writes a paragraph for every value; another program may write only
    # the value, which Calc shows. A comment alone is still not read.
    cells = (
        '<table:table-cell office:value-type="float" office:value="42"/>'
        '<table:table-cell office:value-type="date" office:date-value="2024-05-01"/>'
        '<table:table-cell office:value-type="boolean" office:boolean-value="true"/>'
        '<table:table-cell office:value-type="string" office:string-value="Quay | 3"/>'
        '<table:table-cell office:value-type="float" office:value="7"><text:p>7.00</text:p>'
        "</table:table-cell>"
        "<table:table-cell><office:annotation><text:p>checked</text:p></office:annotation>"
        "</table:table-cell>"
    )
    data = office.with_content(
        office.calc_bytes(), _sheet(f"<table:table-row>{cells}</table:table-row>")
    )
    assert parse("tides.ods", data).text.endswith("| 42 | 2024-05-01 | true | Quay / 3 | 7.00 |")


def test_a_repeat_count_with_leading_zeros_is_its_number() -> None:
    # Ten digits had been taken for a huge count, whatever they said, and the sheet
    # refused as more than 5,000,000 cells.
    data = office.with_content(office.calc_bytes(), _sheet(_row("tide", 1, "0000000003")))
    document = parse("tides.ods", data)
    assert document.text == "# S\n\n| tide |\n| tide |\n| tide |"
