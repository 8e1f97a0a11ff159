"""Word's footnotes and endnotes (`formats/docx_notes.py`): python-docx's paragraph text
leaves out a `w:footnoteReference` and never reads `word/footnotes.xml`, so a note's words
were not indexed at all. python-docx writes no notes: the parts are built here as Word
saves them (separator notes first, each note's own `w:footnoteRef` mark in its text)."""

from __future__ import annotations

import io
from typing import Any

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.docx import parse

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def notes_xml(kind: str, notes: dict[int, list[str]]) -> bytes:
    """A `w:footnotes` or `w:endnotes` part: Word's two separators, then `notes`, each a
    list of its paragraphs."""
    mark = "footnoteRef" if kind == "footnote" else "endnoteRef"
    parts = [
        f'<w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>',
        f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r>'
        f"<w:continuationSeparator/></w:r></w:p></w:{kind}>",
    ]
    for number, paragraphs in notes.items():
        body = "".join(
            f"<w:p>{f'<w:r><w:{mark}/></w:r>' if i == 0 else ''}"
            f'<w:r><w:t xml:space="preserve">{words}</w:t></w:r></w:p>'
            for i, words in enumerate(paragraphs)
        )
        parts.append(f'<w:{kind} w:id="{number}">{body}</w:{kind}>')
    return f'<w:{kind}s xmlns:w="{W}">{"".join(parts)}</w:{kind}s>'.encode()


def cite(paragraph: Any, kind: str, number: int) -> None:
    """A run holding only the reference, as Word writes one."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = OxmlElement("w:r")
    run.append(OxmlElement(f"w:{kind}Reference", attrs={qn("w:id"): str(number)}))
    paragraph._p.append(run)


def docx_with_notes() -> bytes:
    import docx
    from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    document = docx.Document()
    document.add_heading("Anchoring", level=1)
    paragraph = document.add_paragraph("Yachts anchor outside the fairway")
    cite(paragraph, "footnote", 1)
    paragraph.add_run(" overnight.")
    berth = document.add_table(rows=1, cols=1).cell(0, 0).paragraphs[0]
    berth.add_run("Visitor berth ")  # a space before the citation already
    cite(berth, "footnote", 2)
    cite(document.add_paragraph(), "footnote", 3)  # a paragraph that is a citation alone
    dues = document.add_heading("Harbour dues", level=1)
    cite(dues, "endnote", 1)
    document.add_paragraph("Dues are paid at the office.")
    package = document.part.package
    for kind, reltype, content_type, notes in (
        (
            "footnote",
            RELATIONSHIP_TYPE.FOOTNOTES,
            CONTENT_TYPE.WML_FOOTNOTES,
            {
                1: ["The fairway is buoyed in red and green.", "Lit at night."],
                2: ["Three nights at most."],
                3: ["See the chart."],
            },
        ),
        ("endnote", RELATIONSHIP_TYPE.ENDNOTES, CONTENT_TYPE.WML_ENDNOTES, {1: ["As of 2024."]}),
    ):
        uri = PackURI(f"/word/{kind}s.xml")
        part = Part(uri, content_type, notes_xml(kind, notes), package)
        document.part.relate_to(part, reltype)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def test_a_footnote_is_cited_where_it_is_and_its_text_ends_its_section() -> None:
    """fix30: "Yachts anchor outside the fairway overnight.", and no word of the notes."""
    doc = parse("harbour.docx", docx_with_notes())
    expected = """# Anchoring
Yachts anchor outside the fairway [1] overnight.
| Visitor berth [2] |
[3]
[1] The fairway is buoyed in red and green. Lit at night.
[2] Three nights at most.
[3] See the chart.
# Harbour dues
Dues are paid at the office.
[i] As of 2024."""
    assert "\n".join(line for line in doc.text.splitlines() if line) == expected, doc.text
    anchoring, dues = chunk_document(doc)
    assert "[1] The fairway is buoyed in red and green." in anchoring.text, anchoring.text
    assert dues.heading_path == "Harbour dues"  # a note cited in a heading: its path clean
    assert "[i] As of 2024." in dues.text, dues.text


def test_a_damaged_notes_part_keeps_the_text_and_says_so() -> None:
    import docx
    from docx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    document = docx.Document()
    paragraph = document.add_paragraph("Moor with two lines")
    cite(paragraph, "footnote", 1)
    broken = notes_xml("footnote", {1: ["Lost words."]})[:-40]  # cut off mid-element
    part = Part(PackURI("/word/footnotes.xml"), CONTENT_TYPE.WML_FOOTNOTES, broken, None)
    document.part.relate_to(part, RELATIONSHIP_TYPE.FOOTNOTES)
    buffer = io.BytesIO()
    document.save(buffer)
    doc = parse("damaged.docx", buffer.getvalue())
    assert doc.text.strip() == "Moor with two lines [1]"
    assert len(doc.notes) == 1 and "unreadable footnotes" in doc.notes[0], doc.notes
