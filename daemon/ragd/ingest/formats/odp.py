"""OpenDocument presentations (``.odp``, LibreOffice Impress) through odfpy: a slide's title
is its heading.

Read as the ``.pptx`` reader reads a deck: each slide (`draw:page`) becomes a section whose
heading is its title frame's text (`presentation:class="title"`), else the first line of
its text, and whose body is the text of its other shapes in the order the slide lists
them — text boxes, outlines, shapes with text, tables as ``| a | b |`` rows, lists as
items — then its speaker notes ("Notes: …"). Every line remembers its slide, so a chunk
cites the slides it spans. Only `mimetype` and `content.xml` are given to odfpy, as for a
text document (`odt.opened`, `odt.text_parts`: a picture or an embedded object it cannot
read does not make the talk unreadable), after the zip container is checked for a bomb.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats import odt
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.odf_formulas import formulas, show_formulas
from ragd.ingest.formats.pptx import deck_document

FORMAT = "OpenDocument presentation"
MAX_SLIDES = 5_000
PRESENTATION_NS = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"


def parse(name: str, data: bytes) -> Document:
    with odt.opened(data, FORMAT) as (package, document):
        deck = odt.office_body(document, "presentation")
        if deck is None:
            raise SkipFile(f"not an {FORMAT} (no slides in its body)")
        slides = [s for s in deck.childNodes if _tag(s) == "page"]
        if len(slides) > MAX_SLIDES:
            raise SkipFile(f"{FORMAT} has {len(slides)} slides (more than {MAX_SLIDES})")
        odt.show_mail_addresses(deck)
        show_formulas(deck, formulas(package))
    shared = SharedText(deck)
    return deck_document(
        name, (_slide(s, number, shared) for number, s in enumerate(slides, start=1))
    )


class SharedText:
    """The footers, headers and fixed dates a deck declares once (`presentation:footer-decl`
    in its body) and its slides show by name (`presentation:use-footer-name`): each is
    written once, under the first slide that shows it. Left unread, the six mapsforge
    talks lost their footers' words, a talk's title, date and place in each (6 to 16
    words of each talk, "11.07.2010" nowhere else)."""

    KINDS: ClassVar[dict[str, str]] = {
        "footer-decl": "Footer",
        "header-decl": "Header",
        "date-time-decl": "Date",
    }

    def __init__(self, deck: Any) -> None:
        from odf import teletype

        self.declared: dict[tuple[str, str], str] = {}
        for child in deck.childNodes:
            if _tag(child) in self.KINDS:
                name = child.attributes.get((PRESENTATION_NS, "name"), "")
                self.declared[(_tag(child), name)] = clean(teletype.extractText(child))

    def write(self, slide: Any, body: MarkdownWriter) -> None:
        """The shared text `slide` shows and no slide before it showed, a paragraph each."""
        for kind, label in self.KINDS.items():
            use = "use-" + kind.replace("-decl", "-name")
            key = (kind, slide.attributes.get((PRESENTATION_NS, use)))
            if words := self.declared.pop(key, ""):
                body.paragraph(f"{label}: {words}")


def _slide(slide: Any, number: int, shared: SharedText) -> tuple[str, MarkdownWriter]:
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
    shared.write(slide, body)
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
