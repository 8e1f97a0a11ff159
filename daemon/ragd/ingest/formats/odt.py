"""OpenDocument text (``.odt``) through odfpy: ``text:h`` outline levels become heading paths.

odfpy is the OpenDocument reference library in Python (it reads and writes the format
LibreOffice saves). Headings carry their outline level; paragraphs, list items and table
rows become Markdown blocks. A ``mailto:`` link keeps its address after its text
(`formats.mail_links`). A footnote or endnote is cited where it stands ("the limit [1]")
and its text is a paragraph of its own at the end of its section ("[1] The limit is…"),
where the chunk of that section carries it; one cited in a heading leaves no mark there.
The zip container is checked for a bomb before odfpy unpacks it, and odfpy is given only
the parts the reader uses (`text_parts`); the zip is opened once (`opened`).
"""

from __future__ import annotations

import contextlib
import functools
import io
import zipfile
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any
from xml.sax.saxutils import quoteattr

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.html import MAX_LIST_NESTING
from ragd.ingest.formats.mail_links import unshown_address, with_address
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.odf_formulas import formulas, show_formulas

FORMAT = "OpenDocument text"

CONTAINERS = {"section", "div", "text-content", "deletion", "index-body"}
BLOCKS = {"h", "p", "list", "table"}  # what `_write` writes, and a note may be cited in
MANIFEST = "META-INF/manifest.xml"
MANIFEST_NS = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"
ENCRYPTION = f"{{{MANIFEST_NS}}}encryption-data"  # a manifest entry's, for an encrypted part


def parse(name: str, data: bytes) -> Document:
    with opened(data, FORMAT) as (package, document):
        body = office_body(document)
        if body is None:
            kind = _body_kind(document)
            raise SkipFile(f"not an {FORMAT} (its body holds no text element: {kind})")
        show_mail_addresses(body)
        show_formulas(body, formulas(package))
    writer = MarkdownWriter()
    notes = Notes()
    write_blocks(body, writer, notes)
    notes.write(writer)
    return Document(kind="markdown", title=PurePath(name).stem, text=writer.text())


@contextlib.contextmanager
def opened(data: bytes, fmt: str) -> Iterator[tuple[zipfile.ZipFile, Any]]:
    """The package `data` checked for a bomb (`fmt` names it in the reason) and open, with
    odfpy's document of its text parts (`text_parts`): the zip is read once for those and
    for what the reader takes from it later (the embedded formulas)."""
    from odf.opendocument import load

    check_zip(data, fmt)
    lenient_attributes()
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        yield package, load(io.BytesIO(text_parts(package)))


def office_body(document: Any, kind: str = "text") -> Any:
    """The body's `office:text` element (`office:presentation` for a `kind` of
    "presentation"), None when it has none. odfpy's `load` takes the body's first child for
    it, which is the blank text before it when content.xml is indented (`<office:body>`,
    a new line, `<office:text>`): the Debian Live manual read as no words at all."""
    for body in elements(document.topnode, "body", within=("body",)):
        for child in body.childNodes:
            if getattr(child, "qname", None) and child.qname[1] == kind:
                return child
    return None


@functools.cache  # once per process: the table is odfpy's own, shared by every parse
def lenient_attributes() -> None:
    """Make odfpy keep an attribute value it cannot convert as the text it is, where its
    `load` raised ValueError and the whole document was unreadable for one value the
    reader never looks at: LibreOffice SDK's `SimplePresentation.odp` writes
    `presentation:display-footer="visible"` in a style, where odfpy allows only a boolean
    (23 of its converters refuse so). Done once, on odfpy's own table of converters."""
    from odf import attrconverters

    table = attrconverters.attrconverters
    for key, convert in list(table.items()):
        table[key] = _lenient(convert)


def _lenient(convert: Any) -> Any:
    def converted(attribute: Any, value: Any, element: Any) -> str:
        try:
            return str(convert(attribute, value, element))
        except ValueError:
            return str(value)

    return converted


def text_parts(package: zipfile.ZipFile) -> bytes:
    """The package cut down to what the reader reads, its `mimetype` and `content.xml`
    (the body), with a manifest of our own naming only them. odfpy's `load` reads every
    part the manifest lists, and one it cannot read made the whole document unreadable:
    an embedded formula (`Object 12/content.xml`) whose DOCTYPE names `math.dtd`, which
    defusedxml refuses to fetch (LibreOffice's Math Guide), or a thumbnail the manifest
    lists and the zip lacks (the Debian Live manual). The original manifest is read only
    when there is no `mimetype` part to tell the media type: OpenOffice.org 2's manifest
    names `Manifest.dtd` in a DOCTYPE, which defusedxml refuses too.

    SkipFile for an encrypted package (its manifest names `manifest:encryption-data`: its
    content.xml is cipher bytes) and for a content.xml that is not well-formed XML, which
    odfpy's `load` printed whole to standard output and then read as no body at all."""
    names = set(package.namelist())
    refuse_encrypted(package, "OpenDocument file")
    kept = io.BytesIO()
    with zipfile.ZipFile(kept, "w") as cut:
        if "mimetype" in names:
            cut.writestr("mimetype", package.read("mimetype"))
        if "content.xml" in names:
            content = package.read("content.xml")  # unpacked once: checked, then kept
            _check_well_formed(content)
            cut.writestr("content.xml", content)
        cut.writestr(MANIFEST, _manifest(_media_type(package, names), "content.xml" in names))
    return kept.getvalue()


def refuse_encrypted(package: zipfile.ZipFile, kind: str) -> None:
    """SkipFile for a password-protected OpenDocument package (`kind` names it in the
    reason): its manifest gives a part `manifest:encryption-data`, and that part is
    ciphertext (read, it was "damaged"). A manifest that is no XML is not read here:
    content.xml tells. Shared by the text, presentation and spreadsheet readers."""
    from lxml import etree

    if MANIFEST not in package.namelist():
        return
    parser = etree.XMLParser(load_dtd=False, no_network=True, resolve_entities=False)
    try:
        manifest = etree.fromstring(package.read(MANIFEST), parser)
    except etree.XMLSyntaxError:
        return
    if next(manifest.iter(ENCRYPTION), None) is not None:
        raise SkipFile(f"{kind} is password-protected (encrypted, not readable)")


def _check_well_formed(xml: bytes) -> None:
    """SkipFile unless `xml` is well-formed, checked by expat with no handlers (no tree is
    built), and for a DOCTYPE declaring entities, refused at its first declaration before
    any is expanded (a billion laughs; an external entity, never fetched)."""
    from xml.parsers import expat

    def refuse(name: str, *_: object) -> None:
        raise SkipFile(f"OpenDocument content.xml declares entities ({name!r}; refused)")

    parser = expat.ParserCreate()
    parser.EntityDeclHandler = refuse
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(xml, True)
    except expat.ExpatError as exc:
        raise SkipFile(f"damaged OpenDocument file: content.xml is not XML ({exc})") from None


def _body_kind(document: Any) -> str:
    """What the body holds instead of text ("presentation", "spreadsheet"), or "nothing"."""
    for body in elements(document.topnode, "body", within=("body",)):
        kinds = [c.qname[1] for c in body.childNodes if getattr(c, "qname", None)]
        if kinds:
            return ", ".join(kinds)
    return "nothing"


def _media_type(package: zipfile.ZipFile, names: set[str]) -> str:
    """The package's media type: its `mimetype` part, else its manifest's root entry (as
    odfpy looks for it)."""
    from odf.odfmanifest import manifestlist

    if "mimetype" in names:
        named = package.read("mimetype").decode("utf-8", "replace").strip()
    else:
        listed = manifestlist(package.read(MANIFEST)) if MANIFEST in names else {}
        named = str(listed.get("/", {}).get("media-type") or "")
    # A control character would make our own manifest no XML (a NUL in a damaged mimetype)
    return named if named.isascii() and named.isprintable() else ""


def _manifest(media_type: str, content: bool) -> str:
    """A manifest naming the package's media type (odfpy's fallback when there is no
    `mimetype` part) and `content.xml` when the package has it."""
    entries = (
        f'<manifest:file-entry manifest:full-path="/" manifest:media-type={quoteattr(media_type)}/>'
    )
    if content:
        entries += (
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        )
    return f'<manifest:manifest xmlns:manifest="{MANIFEST_NS}">{entries}</manifest:manifest>'


def write_blocks(node: Any, writer: MarkdownWriter, notes: Notes) -> None:
    from odf import teletype

    for child in node.childNodes:
        tag = child.qname[1] if getattr(child, "qname", None) else ""
        if tag == "h":
            notes.write(writer)  # the section before this heading ends here
        if tag in BLOCKS:
            notes.cut(child, marked=tag != "h")  # a heading path is a citation: no "[1]"
        if tag == "h":
            level = child.getAttribute("outlinelevel")
            writer.heading(_outline_level(level), teletype.extractText(child))
        elif tag == "p":
            writer.paragraph(teletype.extractText(child))
        elif tag == "list":
            _write_list(child, writer, 0)
            writer.end_lines()
        elif tag == "table":
            for row in elements(child, "table-row"):
                cells = [paragraphs_text(c, ()) for c in elements(row, "table-cell")]
                writer.line("| " + " | ".join(cells) + " |")
            writer.end_lines()
        elif tag in CONTAINERS:
            write_blocks(child, writer, notes)


class Notes:
    """The notes (`text:note`: footnotes and endnotes) of the section being written.

    odfpy's teletype reads a note where it stands, its citation and its body glued to the
    word before it: "the limit1The limit is 20 knots. at all times". A reader sees the
    citation there and the body at the foot of the page (or the end of the document): here
    the citation stays, "the limit [1]", and the body is a paragraph at the end of the
    section, "[1] The limit is 20 knots.", so it is found with the text that cites it."""

    def __init__(self) -> None:
        self.pending: list[str] = []

    def cut(self, block: Any, marked: bool = True) -> None:
        """Take the notes out of `block`, leaving each one's citation in its place (none
        when not `marked`: the note's text is kept all the same)."""
        from odf import teletype
        from odf.element import Text

        for note in elements(block, "note", within=()):
            citations = elements(note, "note-citation", within=())
            number = " ".join(clean(teletype.extractText(c)) for c in citations) or "*"
            bodies = elements(note, "note-body", within=())
            words = " ".join(paragraphs_text(body, ()) for body in bodies)
            # "limit [1]": a space before the citation, unless the text already has one
            # (rst2odt writes "limit " before it) or the block starts with it
            before = note.previousSibling
            spaced = before is None or (
                before.nodeType == before.TEXT_NODE and before.data[-1:].isspace()
            )
            if marked:
                note.parentNode.insertBefore(Text(f"{'' if spaced else ' '}[{number}]"), note)
            note.parentNode.removeChild(note)
            if words:
                self.pending.append(f"[{number}] {words}")

    def write(self, writer: MarkdownWriter) -> None:
        """Write the notes cut so far, each a paragraph."""
        for note in self.pending:
            writer.paragraph(note)
        self.pending.clear()


def show_mail_addresses(root: Any) -> None:
    """Each `text:a` to a `mailto:` is followed by its address when its text does not
    show it: odfpy's teletype reads a link's text only, never its ``xlink:href``."""
    from odf import teletype
    from odf.element import Text
    from odf.namespaces import XLINKNS

    for link in elements(root, "a", within=()):
        address = unshown_address(link.getAttrNS(XLINKNS, "href"), teletype.extractText(link))
        if address is None:
            continue
        following = link.nextSibling
        if following is not None and following.nodeType == following.TEXT_NODE:
            following.data = with_address(following.data, address)
        else:
            link.parentNode.insertBefore(Text(with_address("", address)), following)


def _write_list(node: Any, writer: MarkdownWriter, depth: int) -> None:
    """Each item a line of its own paragraphs; a list inside an item, its items indented
    under it, as Markdown nests them (up to MAX_LIST_NESTING, as the HTML reader)."""
    indent = 2 * min(depth, MAX_LIST_NESTING)
    for item in node.childNodes:
        if not getattr(item, "qname", None):
            continue
        writer.line("- " + paragraphs_text(item, ("list",)), indent=indent)
        for inner in elements(item, "list", within=("list",)):
            _write_list(inner, writer, depth + 1)


def paragraphs_text(node: Any, within: tuple[str, ...]) -> str:
    """The text of the paragraphs and headings in `node` (a list item, a table cell), a
    space between each two, leaving out those in the elements named `within` (an item's
    nested lists, which _write_list writes). odfpy's teletype.extractText of the whole
    node joins its paragraphs with nothing: "over many lineswith two paragraphs"."""
    from odf import teletype

    blocks = elements(node, "p", "h", within=within)
    return " ".join(text for block in blocks if (text := clean(teletype.extractText(block))))


def elements(node: Any, *tags: str, within: tuple[str, ...] = ("table",)) -> list[Any]:
    """Descendants named one of `tags`, not those inside one (table rows may sit inside
    header-row or row-group elements), nor inside an element named in `within` (a table
    nested in this one)."""
    found = []
    stack = list(reversed(node.childNodes))
    while stack:
        child = stack.pop()
        if getattr(child, "qname", None) and child.qname[1] in tags:
            found.append(child)
        elif getattr(child, "childNodes", None) and child.qname[1] not in within:
            stack.extend(reversed(child.childNodes))
    return found


def _outline_level(value: object) -> int:
    """A heading's outline level as the file states it, 1 when that is no small number:
    int() refuses over 4,300 digits (and a non-ASCII digit such as "²"), which made the
    whole file unreadable; any level past Markdown's six is shown as six anyway."""
    text = str(value)
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 3 else 1
