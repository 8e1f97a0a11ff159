"""A `mailto:` link keeps its address in the text (fix25).

The HTML and reST readers keep a link's text and drop its target, so "report it by
[email](mailto:security@…)" was indexed as "report it by email": the question "what
address do I write to for security reports?" found the paragraph and no address in it.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse
from tests.support.formats import odt_saved

ADDRESS = "security@harbour.example.org"
OTHER = "https://harbour.example.org/policy"

PAGES = {
    "policy.md": (
        f"# Security\n\nReport problems by [email](mailto:{ADDRESS}); the [policy]({OTHER}) "
        "says more.\n"
    ),
    "policy.rst": (
        f"Security\n========\n\nReport problems by `email <mailto:{ADDRESS}>`_; the "
        f"`policy <{OTHER}>`_ says more.\n"
    ),
    "policy.html": (
        f'<html><body><h1>Security</h1><p>Report problems by <a href="mailto:{ADDRESS}">'
        f'email</a>; the <a href="{OTHER}">policy</a> says more.</p></body></html>'
    ),
}


def chunk_text(name: str, text: str) -> str:
    return "\n".join(chunk.text for chunk in chunk_document(parse(name, text.encode())))


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_mailto_link_keeps_its_address(name: str) -> None:
    text = chunk_text(name, PAGES[name])
    assert ADDRESS in text, text
    assert "Report problems by" in text and "says more" in text


@pytest.mark.parametrize("name", ["policy.rst", "policy.html"])
def test_the_address_follows_the_link_text_and_other_links_stay_text(name: str) -> None:
    text = chunk_text(name, PAGES[name])
    assert f"by email ({ADDRESS});" in text, text
    assert "the policy says more" in text and OTHER not in text, text  # as before


def test_a_link_that_shows_its_address_is_not_doubled() -> None:
    """Each page shows the address twice: once as a link's text, once as plain text (reST
    makes that a `mailto:` link too); the address is added to neither."""
    for name, page in {
        "shown.rst": (
            f"Contact\n=======\n\nWrite to `{ADDRESS} <mailto:{ADDRESS}>`_ or {ADDRESS}.\n"
        ),
        "shown.html": (
            f'<html><body><h1>Contact</h1><p>Write to <a href="MAILTO:{ADDRESS}?subject=bug">'
            f"<b>{ADDRESS.upper()}</b></a> or {ADDRESS}.</p></body></html>"
        ),
    }.items():
        text = chunk_text(name, page)
        assert text.lower().count(ADDRESS) == 2, text


def test_the_address_is_read_as_a_link_encodes_it() -> None:
    """`mailto:` takes %-escapes and a query (`?subject=`); the address is what is before
    the query, unescaped, and it stays inside an element the link holds."""
    page = (
        '<html><body><h1>Contact</h1><p>Or <a href="mailto:ferry%2Bdesk@harbour.example.org'
        '?subject=Lost%20ticket"><b>write</b> to the desk</a> today.</p></body></html>'
    )
    text = chunk_text("desk.html", page)
    assert "write to the desk (ferry+desk@harbour.example.org) today" in text, text


def test_the_address_does_not_cut_a_word_the_link_is_part_of() -> None:
    """In a language written without spaces the word runs on past the link (w3m's
    Japanese FAQ): the address goes after the word, which stays whole."""
    page = (
        '<html><body><h1>FAQ</h1><p>作者に<a href="mailto:aito@fw.ipsj.or.jp">\n直接メール</a>'
        "するか，あるいは w3m BBS に書いてください．</p></body></html>"
    )
    text = chunk_text("FAQ.html", page)
    assert "直接メールするか (aito@fw.ipsj.or.jp)，あるいは" in text, text


def docx_with_mail_links() -> bytes:
    """A Word document whose `mailto:` links (a relationship's target, as Word saves
    them) are in a paragraph and a table cell; python-docx writes no hyperlink itself."""
    import docx
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    document = docx.Document()
    document.add_heading("Security", level=1)

    def link(paragraph: object, target: str, words: str) -> None:
        part = paragraph.part  # type: ignore[attr-defined]
        hyperlink = OxmlElement("w:hyperlink")
        hyperlink.set(qn("r:id"), part.relate_to(target, RELATIONSHIP_TYPE.HYPERLINK, True))
        run = OxmlElement("w:r")
        text = OxmlElement("w:t")
        text.text = words
        run.append(text)
        hyperlink.append(run)
        paragraph._p.append(hyperlink)  # type: ignore[attr-defined]

    paragraph = document.add_paragraph("Report problems: ")
    link(paragraph, f"mailto:{ADDRESS}", "write to us")
    paragraph.add_run("; the ")
    link(paragraph, OTHER, "policy")
    paragraph.add_run(" says more.")
    cell = document.add_table(rows=1, cols=1).cell(0, 0).paragraphs[0]
    cell.add_run("Desk: ")
    link(cell, "mailto:ferry%2Bdesk@harbour.example.org?subject=Lost", "the desk")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def odt_with_mail_links() -> bytes:
    """An OpenDocument text whose `mailto:` links (`text:a xlink:href`) are in a
    paragraph and a list item, as LibreOffice saves them."""
    from odf import text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    document.text.addElement(text.H(outlinelevel=1, text="Security"))
    paragraph = text.P(text="Report problems: ")
    paragraph.addElement(text.A(href=f"mailto:{ADDRESS}", type="simple", text="write to us"))
    paragraph.addText("; the ")
    paragraph.addElement(text.A(href=OTHER, type="simple", text="policy"))
    paragraph.addText(" says more.")
    document.text.addElement(paragraph)
    items = text.List()
    item = text.ListItem()
    desk = text.P(text="Desk: ")
    href = "mailto:ferry%2Bdesk@harbour.example.org?subject=Lost"
    desk.addElement(text.A(href=href, type="simple", text="the desk"))
    item.addElement(desk)
    items.addElement(item)
    document.text.addElement(items)
    return odt_saved(document)


@pytest.mark.parametrize(
    ("name", "build"), [("policy.docx", docx_with_mail_links), ("policy.odt", odt_with_mail_links)]
)
def test_a_mailto_link_in_an_office_document_keeps_its_address(
    name: str, build: Callable[[], bytes]
) -> None:
    """fix29: python-docx's paragraph text and odfpy's teletype hold a link's text only,
    so "write to us" was indexed without the address it leads to."""
    document = parse(name, build())
    text = "\n".join(chunk.text for chunk in chunk_document(document))
    assert f"write to us ({ADDRESS}); the policy says more." in document.text, document.text
    assert "the desk (ferry+desk@harbour.example.org)" in document.text, document.text
    assert ADDRESS in text and OTHER not in text, text
