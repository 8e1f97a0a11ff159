"""An OpenDocument text is read from its body alone: odfpy's `load` reads every part the
manifest lists, and the reader had found two of Debian 12's office manuals unreadable and
read a third as no words (newuser57): LibreOffice's Math Guide (libreoffice-dmaths
4.4.0.0+dfsg1-2, `MG40-MathGuide.odt`), whose embedded formulas' `Object N/content.xml`
name `math.dtd` in a DOCTYPE defusedxml refuses to fetch; the Debian Live manual
(live-manual-odf 2:20151217.2, `live-manual.en.odt`), whose manifest lists a thumbnail
its zip lacks, and whose indented content.xml put a blank line, not `office:text`, first
in the body, odfpy's `document.text`; and Dmaths' `licence.odt`, saved by OpenOffice.org 2,
whose manifest itself names `Manifest.dtd` in a DOCTYPE."""

from __future__ import annotations

import io
import zipfile

from ragd.ingest.formats.odt import parse
from tests.support.formats import odt_saved

FORMULA = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE math:math PUBLIC "-//OpenOffice.org//DTD Modified W3C MathML 1.01//EN" '
    '"math.dtd">\n'
    '<math:math xmlns:math="http://www.w3.org/1998/Math/MathML"><math:mi>x</math:mi>'
    "</math:math>"
)
MANIFEST_DTD = (
    b'<!DOCTYPE manifest:manifest PUBLIC "-//OpenOffice.org//DTD Manifest 1.0//EN" '
    b'"Manifest.dtd">\n'
)


def manual() -> bytes:
    from odf import text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    document.text.addElement(text.H(outlinelevel=1, text="Persistence"))
    document.text.addElement(text.P(text="Add the persistence boot parameter."))
    return odt_saved(document)


def repacked(data: bytes, extra_entries: str, extra_parts: dict[str, str]) -> bytes:
    """`data` with `extra_entries` added to its manifest and `extra_parts` to its zip."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as package, zipfile.ZipFile(out, "w") as copy:
        for name in package.namelist():
            part = package.read(name)
            if name == "META-INF/manifest.xml":
                end = b"</manifest:manifest>"
                part = part.replace(end, extra_entries.encode() + end)
            copy.writestr(name, part)
        for name, words in extra_parts.items():
            copy.writestr(name, words)
    return out.getvalue()


def entry(path: str, media_type: str) -> str:
    return f'<manifest:file-entry manifest:full-path="{path}" manifest:media-type="{media_type}"/>'


def test_an_embedded_formula_naming_a_dtd_leaves_the_text_readable() -> None:
    data = repacked(
        manual(),
        entry("Object 1/", "application/vnd.oasis.opendocument.formula")
        + entry("Object 1/content.xml", "text/xml"),
        {"Object 1/content.xml": FORMULA},
    )
    assert "Add the persistence boot parameter." in parse("MG40-MathGuide.odt", data).text


def test_a_thumbnail_the_manifest_lists_but_the_zip_lacks_leaves_the_text_readable() -> None:
    data = repacked(manual(), entry("Thumbnails/thumbnail.png", "image/png"), {})
    assert "Add the persistence boot parameter." in parse("live-manual.en.odt", data).text


def test_an_indented_body_is_read() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(manual())) as package, zipfile.ZipFile(out, "w") as copy:
        for name in package.namelist():
            part = package.read(name)
            if name == "content.xml":
                part = part.replace(b"<office:body>", b"<office:body>\n  ")
            copy.writestr(name, part)
    doc = parse("live-manual.en.odt", out.getvalue())
    assert doc.text.splitlines()[0] == "# Persistence"
    assert "Add the persistence boot parameter." in doc.text


def test_a_manifest_naming_its_dtd_leaves_the_text_readable() -> None:
    """OpenOffice.org 2 wrote `<!DOCTYPE manifest:manifest … "Manifest.dtd">` atop every
    manifest; defusedxml refuses the reference, and odfpy reads the manifest first."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(manual())) as package, zipfile.ZipFile(out, "w") as copy:
        for name in package.namelist():
            part = package.read(name)
            if name == "META-INF/manifest.xml":
                part = part.replace(b"<manifest:manifest", MANIFEST_DTD + b"<manifest:manifest", 1)
            copy.writestr(name, part)
    assert "Add the persistence boot parameter." in parse("licence.odt", out.getvalue()).text
