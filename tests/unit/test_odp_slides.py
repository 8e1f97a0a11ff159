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


NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"'
)
PRESENTATION = "application/vnd.oasis.opendocument.presentation"


def package(
    body: str, mimetype: str = PRESENTATION, manifest: str = "", prologue: str = ""
) -> bytes:
    """A package of `mimetype` whose content.xml's body is `body` (an `office:presentation`),
    written by hand: odfpy cannot write what these tests need."""
    import io
    import zipfile

    content = (
        f"{prologue}<office:document-content {NAMESPACES}><office:body><office:presentation>{body}"
        "</office:presentation></office:body></office:document-content>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zipped:
        zipped.writestr("mimetype", mimetype)
        zipped.writestr("content.xml", content)
        if manifest:
            zipped.writestr("META-INF/manifest.xml", manifest)
    return out.getvalue()


def slide(title: str, text: str, footer: str = "") -> str:
    use = f' presentation:use-footer-name="{footer}"' if footer else ""
    return (
        f"<draw:page{use}>"
        f'<draw:frame presentation:class="title"><draw:text-box><text:p>{title}</text:p>'
        f"</draw:text-box></draw:frame><draw:frame><draw:text-box><text:p>{text}</text:p>"
        "</draw:text-box></draw:frame></draw:page>"
    )


def test_a_footer_is_read_once_under_the_first_slide_showing_it() -> None:
    """The mapsforge talks declare a footer once (`presentation:footer-decl`: the talk's
    title, date and place) that every slide shows by name; it had not been read at all."""
    declared = (
        '<presentation:footer-decl presentation:name="ftr1">State of the Map 11.07.2010'
        "</presentation:footer-decl>"
    )
    chunks = chunk_document(
        parse(
            "talk.odp",
            package(declared + slide("Mapsforge", "Maps on phones.", "ftr1") * 2),
        )
    )
    text = "\n".join(c.text for c in chunks)
    assert text.count("Footer: State of the Map 11.07.2010") == 1
    assert chunks[0].slides == (1, 1)


def test_a_title_longer_than_a_heading_keeps_its_words() -> None:
    title = " ".join(f"word{i}" for i in range(30))
    (chunk,) = chunk_document(parse("talk.odp", package(slide(title, "Body."))))
    assert "word29" in chunk.text


def test_an_encrypted_or_damaged_or_other_package_has_one_clear_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    encrypted = (
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:'
        '1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data'
        "/></manifest:file-entry></manifest:manifest>"
    )
    with pytest.raises(SkipFile, match="password-protected"):
        parse("talk.odp", package(slide("T", "x"), manifest=encrypted))
    with pytest.raises(SkipFile, match=r"content\.xml is not XML"):
        parse("talk.odp", package("<draw:page>"))
    assert capsys.readouterr().out == ""  # odfpy printed the whole content.xml
    laughs = '<!DOCTYPE d [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
    with pytest.raises(SkipFile, match="declares entities"):
        parse("talk.odp", package(slide("&b;", "x"), prologue=laughs))
    with pytest.raises(SkipFile, match=r"not an OpenDocument text .*presentation"):
        parse("talk.odt", package(slide("T", "x")))
    # A NUL in a damaged mimetype made the manifest written for odfpy no XML
    assert "x" in parse("talk.odp", package(slide("T", "x"), mimetype=PRESENTATION + "\0")).text


def test_a_value_odfpy_cannot_convert_leaves_the_deck_readable() -> None:
    """LibreOffice SDK's SimplePresentation.odp (libreoffice-dev-doc 7.4.7) writes
    `presentation:display-footer="visible"` where odfpy allows a boolean only: its load
    raised ValueError and the whole deck was unreadable for a value the reader never reads."""
    page = slide("Title", "Words.").replace(
        "<draw:page>", '<draw:page presentation:display-footer="visible">'
    )
    (chunk,) = chunk_document(parse("talk.odp", package(page)))
    assert chunk.text == "Words."
