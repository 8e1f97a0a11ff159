"""A formula embedded in an OpenDocument text or presentation reads as the StarMath
source its author typed, where it had read as the frame's description, "formula":
LibreOffice's Math Guide (libreoffice-dmaths 4.4.0.0+dfsg1-2, `MG40-MathGuide.odt`) showed
that word for 401 of its 410 formulas (newuser57)."""

from __future__ import annotations

import io
import zipfile

from ragd.ingest.formats import odf_formulas
from ragd.ingest.loaders import parse
from tests.support import office
from tests.support.formats import odt_saved

MATHML = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<!DOCTYPE math:math PUBLIC "-//OpenOffice.org//DTD Modified W3C MathML 1.01//EN" '
    '"math.dtd">\n'
    '<math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mi>x</mi>'
    '<annotation encoding="StarMath 5.0">{tide} over {2} = %SIGMA</annotation>'
    "</semantics></math>"
)


def with_object(data: bytes, name: str, content: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as package, zipfile.ZipFile(out, "w") as copy:
        for member in package.namelist():
            copy.writestr(member, package.read(member))
        copy.writestr(f"{name}/content.xml", content)
    return out.getvalue()


def guide(objects: int = 1) -> bytes:
    """A text whose paragraph holds `objects` formula frames, as LibreOffice writes one:
    `draw:object` pointing at "./Object N", described as "formula"."""
    from odf import draw, svg, text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    paragraph = text.P(text="The half tide is ")
    for n in range(1, objects + 1):
        frame = draw.Frame(name=f"Object{n}", anchortype="as-char", width="2cm", height="1cm")
        frame.addElement(draw.Object(href=f"./Object {n}"))
        description = svg.Desc()
        description.addText("formula")
        frame.addElement(description)
        paragraph.addElement(frame)
    paragraph.addText(" in metres.")
    document.text.addElement(paragraph)
    return odt_saved(document)


def test_a_formula_reads_as_its_starmath_source() -> None:
    text = parse("guide.odt", with_object(guide(), "Object 1", MATHML)).text
    assert "The half tide is {tide} over {2} = %SIGMA in metres." in text
    assert "formula" not in text


def test_a_formula_without_a_source_or_unreadable_keeps_its_frame() -> None:
    plain = MATHML.replace('encoding="StarMath 5.0"', 'encoding="MathType MTEF"')
    assert "formula" in parse("guide.odt", with_object(guide(), "Object 1", plain)).text
    broken = with_object(guide(), "Object 1", "<math><annotation encoding='StarMath")
    assert "The half tide is" in parse("guide.odt", broken).text
    # An entity in an object is never expanded, nor an external one read.
    hostile = MATHML.replace(
        '"math.dtd">', '"math.dtd" [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    ).replace("%SIGMA", "&e;")
    assert "root:" not in parse("guide.odt", with_object(guide(), "Object 1", hostile)).text


def test_a_slide_s_formula_reads_as_its_source_too() -> None:
    from odf import draw, text
    from odf.opendocument import load

    deck = load(io.BytesIO(office.impress_bytes()))
    slide = deck.presentation.childNodes[1]
    frame = draw.Frame(width="2cm", height="1cm", x="1cm", y="1cm")
    frame.addElement(draw.Object(href="./Object 1"))
    box = draw.TextBox()
    line = text.P(text="Fee rule:")
    line.addElement(frame)
    box.addElement(line)
    holder = draw.Frame(width="9cm", height="2cm", x="1cm", y="8cm")
    holder.addElement(box)
    slide.addElement(holder)
    data = with_object(odt_saved(deck), "Object 1", MATHML)
    assert "Fee rule: {tide} over {2} = %SIGMA" in parse("talk.odp", data).text


def test_objects_past_the_limit_are_not_read(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(odf_formulas, "MAX_OBJECTS", 1)
    data = with_object(with_object(guide(2), "Object 1", MATHML), "Object 2", MATHML)
    assert parse("guide.odt", data).text.count("{tide} over {2}") == 1
