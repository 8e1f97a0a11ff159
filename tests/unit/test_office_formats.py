"""Slides (`.pptx`) and spreadsheets (`.xlsx`): headings, bodies, and where each chunk is
(issue 22 item 4). The files are written by python-pptx and openpyxl here."""

from __future__ import annotations

import re

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats import archive, xlsx
from ragd.ingest.loaders import SkipFile, parse
from tests.support import office


def test_a_slide_is_a_section_citing_its_number() -> None:
    chunks = chunk_document(parse("report.pptx", office.deck_bytes()))
    by_heading = {c.heading_path: c for c in chunks}
    first = by_heading["Quarterly harbour report"]
    assert first.slides == (1, 1) and first.lines is None
    assert "Moorings rose by a third since the breakwater was finished." in first.text
    assert "- The eastern wall is full until spring." in first.text  # an indented point
    assert "Notes: Mention the dredging delay at the slipway." in first.text
    assert "Quarterly harbour report" not in first.text  # the title is the heading
    fees = by_heading["Mooring fees"]
    assert fees.slides == (2, 2)
    assert "| Vessel | Fee |\n| Ketch | 40 florins |\n| Schooner | 65 |" in fees.text


def test_a_sheet_is_a_section_of_rows_with_the_header_repeated() -> None:
    chunks = chunk_document(parse("berths.xlsx", office.workbook_bytes()))
    berths = [c for c in chunks if c.heading == ("Berths",)]
    assert len(berths) > 3
    seen: set[int] = set()
    for chunk in berths:
        lines = chunk.text.split("\n")
        assert lines[0] == "| Berth | Vessel | Length (m) |"  # every chunk knows its columns
        assert chunk.rows is not None
        numbers = [int(n) for n in re.findall(r"^\| B(\d+) \|", chunk.text, re.M)]
        # Berth n is on row n + 1: the rows cited are the rows quoted (the header row
        # itself only where it is quoted from row 1, not repeated).
        first = 1 if min(numbers) == 1 else min(numbers) + 1
        assert chunk.rows == (first, max(numbers) + 1)
        seen |= set(numbers)
    assert seen == set(range(1, office.BERTHS + 1))
    assert "| B7 | Vessel 7 of the fleet | 7.5 |" in "\n".join(c.text for c in berths)
    notes = [c for c in chunks if c.heading == ("Notes",)]
    assert notes[0].text == "| Dredging | postponed to autumn |" and notes[0].rows == (1, 1)


def test_formulas_give_the_cached_value_never_their_source() -> None:
    text = parse("berths.xlsx", office.with_cached_value(office.workbook_bytes(), "4.5")).text
    assert "| B1 | Vessel 1 of the fleet | 1.5 | | 4.5 |" in text
    assert "SUM" not in text
    uncached = parse("berths.xlsx", office.workbook_bytes()).text  # never saved by Excel
    assert "| B1 | Vessel 1 of the fleet | 1.5 |\n" in uncached and "SUM" not in uncached


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (
            office.with_dimension(office.workbook_bytes(), "A1:XFD1048576"),
            r"sheet 'Berths' spans 1048576 rows × 16384 columns \(more than 5,000,000 cells",
        ),
        (office.with_external_link(office.workbook_bytes()), "links to other workbooks"),
        (office.workbook_bytes()[:3000], "damaged Excel workbook"),
    ],
)
def test_hostile_workbooks_give_one_reason(data: bytes, reason: str) -> None:
    with pytest.raises(SkipFile, match=reason) as caught:
        parse("book.xlsx", data)
    assert "\n" not in str(caught.value)


def test_a_sheet_holding_more_cells_than_the_cap_is_refused_while_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # No declared size to go by: the cells are counted as they are read.
    monkeypatch.setattr(xlsx, "MAX_CELLS", 300)
    data = office.with_dimension(office.workbook_bytes(), "A1")
    with pytest.raises(SkipFile, match="holds more than 300 cells"):
        parse("book.xlsx", data)


@pytest.mark.parametrize("name", ["deck.pptx", "book.xlsx"])
def test_office_zip_bombs_are_refused_before_unpacking(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = office.deck_bytes() if name.endswith("pptx") else office.workbook_bytes()
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(SkipFile, match=r"unpacks to .* zip bomb"):
        parse(name, data)
    monkeypatch.undo()
    with pytest.raises(SkipFile, match=r"damaged (PowerPoint presentation|Excel workbook)"):
        parse(name, data[:2000])


def test_a_deck_of_too_many_slides_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from ragd.ingest.formats import pptx

    monkeypatch.setattr(pptx, "MAX_SLIDES", 1)
    with pytest.raises(SkipFile, match=r"PowerPoint presentation has 2 slides \(more than 1\)"):
        parse("report.pptx", office.deck_bytes())


def compound_file_header() -> bytes:
    """The 512-byte header of a Compound File Binary (what Office saves a password-protected
    docx/xlsx/pptx in, and the old .xls): magic, minor/major version 3, little-endian byte
    order, 512-byte sectors; the sectors themselves do not matter for the reason."""
    header = archive.OLE_MAGIC + bytes(16) + (0x3E).to_bytes(2, "little")
    header += (3).to_bytes(2, "little") + bytes.fromhex("feff") + (9).to_bytes(2, "little")
    return header + bytes(512 - len(header))


@pytest.mark.parametrize("name", ["book.xlsx", "deck.pptx", "letter.docx"])
def test_a_password_protected_office_file_is_named_as_such_not_damaged(name: str) -> None:
    with pytest.raises(SkipFile, match=r"is password-protected, or in Office's old binary"):
        parse(name, compound_file_header() + bytes(4096))


def test_a_word_document_named_pptx_says_what_it_holds() -> None:
    import io

    import docx

    document = docx.Document()
    document.add_paragraph("Berth rules")
    out = io.BytesIO()
    document.save(out)
    with pytest.raises(SkipFile) as caught:
        parse("deck.pptx", out.getvalue())
    reason = str(caught.value)
    assert reason.startswith("not a PowerPoint presentation (the package holds application/")
    assert "wordprocessingml" in reason and "BytesIO" not in reason, reason


def test_a_shared_string_in_many_cells_is_held_to_the_text_cap() -> None:
    # One shared string of 10 KB in 100 cells of 100 rows: a file of a few KB that
    # writes 100 MB. The cap is spent row by row, before the line is built; the reason
    # names the sheet. A workbook under the cap reads as before.
    data = office.shared_string_bytes("tide " * 2_000, 100, 100)
    with pytest.raises(SkipFile, match=r"over the 1 MB max_text_mb cap: sheet 'Sheet', repeats"):
        parse("tides.xlsx", data, max_text_chars=2**20)
    small = parse("tides.xlsx", office.shared_string_bytes("tide", 3, 2), max_text_chars=2**20)
    assert small.text == "# Sheet\n\n| tide | tide |\n| tide | tide |\n| tide | tide |"
