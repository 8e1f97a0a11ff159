"""OpenDocument presentations (`.odp`, LibreOffice Impress) are read slide by slide, as
`.pptx` decks are: two mapsforge talks of Debian's libmapsforge-java-doc were skipped as a
type ragd did not read (newuser57). The file is written by odfpy here."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats import archive, odp
from ragd.ingest.loaders import SkipFile, parse
from tests.support import office


def test_a_slide_is_a_section_citing_its_number() -> None:
    chunks = chunk_document(parse("report.odp", office.impress_bytes()))
    by_heading = {c.heading_path: c for c in chunks}
    first = by_heading["Quarterly harbour report"]
    assert first.slides == (1, 1)
    assert "- Moorings rose by a third.\n- The eastern wall is full until spring." in first.text
    assert first.text.endswith("Notes: Mention the pier survey after the storm.")
    assert "Quarterly harbour report" not in first.text  # the title is the heading
    fees = by_heading["Mooring fees"]
    assert fees.slides == (2, 2)
    assert "| Vessel | Fee |\n| Ketch | 40 florins |" in fees.text
    # A slide with no text (a picture) is no section; a shape inside a group is read, and
    # with no title frame its first line heads the slide.
    grouped = by_heading["Tide tables are posted at the harbour office."]
    assert grouped.slides == (4, 4)
    assert len(chunks) == 3


def test_a_talk_is_not_refused_for_a_picture_odfpy_cannot_read() -> None:
    """Only `mimetype` and `content.xml` reach odfpy (odt.text_parts): a manifest listing a
    picture the zip lacks made odfpy's load give up on the whole file."""
    data = office.with_listed_missing_part(office.impress_bytes(), "Pictures/gone.png")
    assert "Mooring fees" in parse("report.odp", data).text


def test_a_deck_of_too_many_slides_or_a_bomb_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(odp, "MAX_SLIDES", 3)
    with pytest.raises(SkipFile, match=r"OpenDocument presentation has 4 slides \(more than 3\)"):
        parse("report.odp", office.impress_bytes())
    monkeypatch.undo()
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1000)
    with pytest.raises(SkipFile, match=r"unpacks to .* zip bomb"):
        parse("report.odp", office.impress_bytes())


def test_a_text_document_named_odp_is_no_presentation() -> None:
    from odf import text
    from odf.opendocument import OpenDocumentText

    from tests.support.formats import odt_saved

    document = OpenDocumentText()
    document.text.addElement(text.P(text="A letter, not a talk."))
    with pytest.raises(SkipFile, match="not an OpenDocument presentation"):
        parse("letter.odp", odt_saved(document))
