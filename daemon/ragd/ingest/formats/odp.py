"""OpenDocument presentations (``.odp``, LibreOffice Impress) through odfpy: a slide's title
is its heading.

Read as the ``.pptx`` reader reads a deck: each slide (`draw:page`) becomes a section whose
heading is its title frame's text (`presentation:class="title"`), else the first line of
its text, and whose body is the text of its other shapes in the order the slide lists
them — text boxes, outlines, shapes with text, tables as ``| a | b |`` rows, lists as
items — then its speaker notes ("Notes: …"). Every line remembers its slide, so a chunk
cites the slides it spans. Only `mimetype` and `content.xml` are given to odfpy, as for a
text document (`odt.text_parts`: a picture or an embedded object it cannot read does not
make the talk unreadable), after the zip container is checked for a bomb.
"""

from __future__ import annotations

import io
from typing import Any

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats import odt
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.odf_formulas import formulas, show_formulas
from ragd.ingest.formats.pptx import deck_document

FORMAT = "OpenDocument presentation"
MAX_SLIDES = 5_000
PRESENTATION_NS = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"


def parse(name: str, data: bytes) -> Document:
    from odf.opendocument import load

    check_zip(data, FORMAT)
    document = load(io.BytesIO(odt.text_parts(data)))
    deck = odt.office_body(document, "presentation")
    if deck is None:
        raise SkipFile(f"not an {FORMAT} (no slides in its body)")
    slides = [s for s in deck.childNodes if _tag(s) == "page"]
    if len(slides) > MAX_SLIDES:
        raise SkipFile(f"{FORMAT} has {len(slides)} slides (more than {MAX_SLIDES})")
    odt.show_mail_addresses(deck)
    show_formulas(deck, formulas(data))
    return deck_document(name, (_slide(s, number) for number, s in enumerate(slides, start=1)))


def _slide(slide: Any, number: int) -> tuple[str, MarkdownWriter]:
    """The slide's title and the Markdown of the rest of its text, notes last."""
    body = MarkdownWriter()
    body.at = number
    notes = odt.Notes()
    titles: list[str] = []
    speaker: list[str] = []
    for holder, role in _text_holders(slide):
        if role == "title":
            titles.append(odt.paragraphs_text(holder, ()))
        elif role == "notes":
            speaker.append(odt.paragraphs_text(holder, ()))
        else:
            odt.write_blocks(holder, body, notes)
    notes.write(body)
    if said := " ".join(words for words in speaker if words):
        body.paragraph(f"Notes: {said}")
    title = clean(" ".join(t for t in titles if t))
    return title, body


def _text_holders(slide: Any) -> list[tuple[Any, str]]:
    """The elements of `slide` that hold text blocks (a text box, a shape, a frame holding
    a table), in the slide's order, each with its role: "title" inside the title frame,
    "notes" inside the speaker notes, else "body". Walked with a stack, not recursion: a
    group nested 10,000 deep is a list, not a RecursionError."""
    found: list[tuple[Any, str]] = []
    stack: list[tuple[Any, str]] = [(slide, "body")]
    while stack:
        node, role = stack.pop()
        children = [c for c in node.childNodes if _tag(c)]
        if node is not slide and any(_tag(c) in odt.BLOCKS for c in children):
            found.append((node, role))
            continue
        for child in reversed(children):
            stack.append((child, _role(child, role)))
    return found


def _role(element: Any, inherited: str) -> str:
    if _tag(element) == "notes":
        return "notes"
    if inherited == "body" and _tag(element) == "frame":
        cls = element.attributes.get((PRESENTATION_NS, "class"))
        if cls == "title":
            return "title"
    return inherited


def _tag(node: Any) -> str:
    qname = getattr(node, "qname", None)
    return qname[1] if qname else ""
