"""DocBook XML (`index.docbook`, and `.xml` files whose root is a DocBook element): the
user manuals under `/usr/share/help/LANG/APP/` (GnuCash's guide), and DocBook 5 books.

Parsed by libxml2 confined to the file's own folder (`xml_confined`: text entities from
the internal subset and the DTDs beside the file expand, nothing outside is read, nothing
fetched). The titles of book, part, chapter, appendix, preface, section, sect1–sect5,
refentry, refsect, glossary, glossdiv, bibliography (`title`, or the one in `info`,
`chapterinfo`, …) make the heading path. Paragraphs, lists (a variable list's term leads
its item: "Balance: …"), tables (a row a line), code (`programlisting`, `screen`,
`literallayout`), admonitions with their label ("Note: …"), glossary entries ("term:
definition") are the text; inline elements are their words, a cross reference the title of
what it points to (its `linkend` when that is not in the file), a `ulink` its text and
address. A figure is its title, caption and alternative text. Comments, `indexterm`,
`remark`, `titleabbrev` and image data are not text.

An `.xml` file whose root is anything else (a Maven pom, a settings file, an SVG) is not a
document: skipped as such (`not_a_document`), listed with the files that have no text and
not as an error. An `xi:include` of a file beside this one is read in place when that file
is a fragment (its root no document element: `legal.xml`'s `legalnotice`, GnuCash's
`txf-categories.xml`, a `para`), which is indexed nowhere else; a chapter an
`index.docbook` includes is indexed from its own file, so it is not read into the book.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, ClassVar

from ragd.core.no_text import not_a_document
from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.docbook_siblings import SiblingReader, SiblingTargets
from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.formats.xml_blocks import XmlWalker, ids_of, local, with_target
from ragd.ingest.formats.xml_confined import (
    ABSENT,
    Reads,
    content_digest,
    parse_confined,
    read_beside,
)
from ragd.ingest.formats.xml_prolog import as_utf8, local_name, read_prolog

FORMAT = "DocBook"
READS_FOLDER = True  # `parse` is given the file's folder: DTDs and fragments beside it

DOCBOOK_NS = "http://docbook.org/ns/docbook"
XINCLUDE_NS = "http://www.w3.org/2001/XInclude"
XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
# The roots that make an `.xml` file a DocBook document.
DOCUMENT_ROOTS = frozenset(
    {"book", "set", "chapter", "appendix", "preface", "article", "section", "part", "reference"}
    | {"sect1", "sect2", "sect3", "sect4", "sect5", "glossary", "refentry", "bibliography"}
)
SECTIONS = DOCUMENT_ROOTS | {
    "simplesect", "refsect1", "refsect2", "refsect3", "refsection", "refsynopsisdiv",
    "glossdiv", "bibliodiv", "colophon", "dedication", "acknowledgements", "topic",
}  # fmt: skip
# What an untitled section is called where DocBook's stylesheets print a title of their own.
UNTITLED = {
    "glossary": "Glossary",
    "bibliography": "Bibliography",
    "preface": "Preface",
    "dedication": "Dedication",
    "colophon": "Colophon",
    "acknowledgements": "Acknowledgements",
    "refsynopsisdiv": "Synopsis",
}
INFOS = frozenset(
    {"info", "bookinfo", "articleinfo", "chapterinfo", "appendixinfo", "prefaceinfo"}
    | {"sectioninfo", "sect1info", "sect2info", "sect3info", "sect4info", "sect5info"}
    | {"refentryinfo", "refsect1info", "refsect2info", "refsect3info", "refsectioninfo"}
    | {"refsynopsisdivinfo", "glossaryinfo", "bibliographyinfo", "partinfo", "setinfo"}
    | {"referenceinfo", "objectinfo", "blockinfo"}
)
ADMONITIONS = {"note", "tip", "warning", "caution", "important", "danger"}
LISTS = {
    "itemizedlist": False,
    "orderedlist": True,
    "procedure": True,
    "substeps": True,
    "stepalternatives": False,
    "simplelist": False,
    "calloutlist": False,
    "segmentedlist": False,
}  # fmt: skip  (list → numbered)
ITEMS = frozenset({"listitem", "step", "member", "callout", "seglistitem"})
CODE = {"programlisting", "screen", "literallayout", "synopsis", "funcsynopsisinfo"}
BLOCKS = frozenset(
    {"para", "simpara", "title", "subtitle", "bridgehead", "blockquote", "epigraph"}
    | {"attribution", "abstract", "legalnotice", "partintro", "sidebar", "example"}
    | {"informalexample", "figure", "informalfigure", "mediaobject", "screenshot"}
    | {"caption", "textobject", "table", "informaltable", "tgroup", "thead", "tbody"}
    | {"tfoot", "variablelist", "glosslist", "qandaset", "qandadiv", "qandaentry"}
    | {"question", "answer", "task", "tasksummary", "taskprerequisites", "taskrelated"}
    | {"address", "cmdsynopsis", "funcsynopsis", "refnamediv", "equation"}
    | {"informalequation", "programlistingco", "screenco", "revhistory", "revision"}
    | {"author", "authorgroup", "editor", "othercredit", "corpauthor", "copyright"}
    | {"publisher", "releaseinfo", "edition", "pubdate", "biblioentry", "bibliomixed"}
    | {"highlights", "personblurb", "formalgroup", "glossdef", "msgset", "alt"}
)
SKIPPED = frozenset(
    {"indexterm", "remark", "titleabbrev", "imagedata", "imageobject", "graphic"}
    | {"videoobject", "audioobject", "areaspec", "area", "areaset", "co", "coref"}
    | {"anchor", "colspec", "spanspec", "index", "setindex", "toc", "lot", "beginpage"}
    | {"fallback"}
)
MAX_INCLUDES = 64  # fragments read into one file


def parse(name: str, data: bytes, folder: str | None = None) -> Document:
    data = as_utf8(data)
    prolog = read_prolog(data)
    is_book = PurePath(name).suffix.lower() == ".docbook"
    if not is_book and local_name(prolog.root or "") not in DOCUMENT_ROOTS:
        raise SkipFile(not_a_document(f"XML (root <{prolog.root}>)" if prolog.root else "XML"))
    reads: Reads = {}  # the DTDs, the book and the fragments read beside it
    root, notes = parse_confined(data, folder, FORMAT, reads=reads)
    namespace = root.tag.partition("}")[0][1:] if root.tag.startswith("{") else ""
    if not is_book and namespace not in ("", DOCBOOK_NS):
        raise SkipFile(not_a_document(f"XML (root <{prolog.root}> in {namespace})"))
    walker = DocBookWalker(MarkdownWriter(), data.count(b"\n") + 1, root, folder, name)
    walker.reads = reads
    document = walker.read(root, name, notes)
    document.notes += walker.notes
    walker.siblings.depended(document, reads, walker.ids)
    return document


def _is_document(root: str) -> bool:
    return local_name(root) in DOCUMENT_ROOTS


def _parse_sibling(data: bytes, folder: str, reads: Reads) -> Any:
    return parse_confined(data, folder, FORMAT, reads=reads)[0]


# The chapters beside this one, where a reference that misses here is looked up.
SIBLINGS = SiblingReader(FORMAT, (".xml", ".docbook"), _is_document, _parse_sibling, ids_of)


def _title_element(element: Any) -> Any:
    """A section's title: its own `title`, else the one in its info element."""
    for child in element:
        if local(child) == "title":
            return child
    for child in element:
        if local(child) in INFOS:
            for inner in child:
                if local(inner) == "title":
                    return inner
    return None


class DocBookWalker(XmlWalker):
    blocks = BLOCKS
    skipped = SKIPPED
    joins: ClassVar[dict[str, str]] = {"keycombo": "+", "menuchoice": " > "}
    shortcut = "shortcut"

    def __init__(
        self, writer: MarkdownWriter, lines: int, root: Any, folder: str | None, name: str
    ) -> None:
        super().__init__(writer, lines, root)
        self.folder = folder
        self.notes: list[str] = []
        self.includes = MAX_INCLUDES
        self.reads: Reads = {}  # the files read beside it (`Document.reads`)
        # The ids of the chapters beside this one, read when a reference misses here.
        self.siblings = SiblingTargets(folder, PurePath(name).name, SIBLINGS)
        self.handlers.update(
            {tag: self.section_of for tag in SECTIONS}
            | {tag: self.info for tag in INFOS}
            | {tag: self.admonition for tag in ADMONITIONS}
            | {tag: self.a_list for tag in LISTS}
            | {tag: self.listing for tag in CODE}
            | {"formalpara": self.formalpara, "varlistentry": self.entry}
            | {"glossentry": self.entry, "glosssee": self.see, "glossseealso": self.see}
            | {"row": self.row, "tr": self.row, "footnote": self.footnote}
            | {"xref": self.xref, "link": self.link, "ulink": self.link, "olink": self.link}
            | {"keycombo": self.joined, "menuchoice": self.joined, "include": self.include}
        )

    def section_of(self, element: Any) -> None:
        tag = local(element)
        title = _title_element(element)
        if tag == "refentry":
            text = self._refentry_title(element)
        else:
            text = self.captured(title) if title is not None else UNTITLED.get(tag, "")
        self.section(element, text, lambda child: child is title or local(child) == "refmeta")

    def _refentry_title(self, element: Any) -> str:
        for name in ("refentrytitle", "refname"):
            found = next(element.iter(f"{{*}}{name}"), None)
            if found is not None:
                return self.captured(found)
        return ""

    def info(self, element: Any) -> None:
        """Front matter: the title heads the section already; the rest (authors,
        copyright, abstract, revision history) are paragraphs."""
        self.block(element, lambda child: local(child) == "title")

    def admonition(self, element: Any) -> None:
        title = _title_element(element)
        lead = local(element).capitalize()
        if title is not None and (text := self.captured(title)):
            lead += f" ({text})"
        self.led(element, lead + ": ", lambda child: child is title)

    def formalpara(self, element: Any) -> None:
        title = _title_element(element)
        text = self.captured(title) if title is not None else ""
        lead = text + ("" if not text or text[-1] in ".:?!" else ".") + " " if text else ""
        self.led(element, lead, lambda child: child is title)

    def a_list(self, element: Any) -> None:
        self.items_of(element, LISTS[local(element)], ITEMS)

    def entry(self, element: Any) -> None:
        """A variable list's or glossary's entry: "term: its description"."""
        terms = [c for c in element if local(c) in ("term", "glossterm", "acronym", "abbrev")]
        names = [self.captured(term) for term in terms]
        lead = names[0] if names else ""
        if len(names) > 1:
            rest = ", ".join(names[1:])
            lead = f"{lead}, {rest}" if local(element) == "varlistentry" else f"{lead} ({rest})"
        self.led(element, f"{lead}: " if lead else "", lambda child: child in terms)

    def see(self, element: Any) -> None:
        target = element.get("otherterm")
        text = self.captured(element) or (self.title_of(target) if target else "")
        also = " also" if local(element) == "glossseealso" else ""
        self.add(f" See{also} {text}.", element)

    def listing(self, element: Any) -> None:
        self.code(element, self.raw_text(element), element.get("language") or "")

    def footnote(self, element: Any) -> None:
        self.add(f" ({self.captured(element)})", element)

    def target(self, key: str) -> Any:
        """In this file, else in a chapter beside it (`docbook_siblings`)."""
        found = self.ids.get(key)
        return found if found is not None else self.siblings.find(key)

    def xref(self, element: Any) -> None:
        end = element.get("endterm")
        if end and (shown := self.target(end)) is not None:
            self.add(self.captured(shown), element)
        else:
            self.add(self.title_of(element.get("linkend") or ""), element)

    def link(self, element: Any) -> None:
        text = self.captured(element)
        target = element.get("url") or element.get(XLINK_HREF)
        if not text and target is None and element.get("linkend"):
            text = self.title_of(element.get("linkend") or "")
        self.add(with_target(text, target), element)

    def title_element(self, target: Any) -> Any:
        title = _title_element(target)
        if title is None:
            terms = ("glossterm", "term", "refentrytitle")
            title = next((c for c in target if local(c) in terms), None)
        return title

    def include(self, element: Any) -> None:
        """`xi:include` of a fragment beside the file: read in place (see the module)."""
        if not element.tag.startswith(f"{{{XINCLUDE_NS}}}"):
            self.children(element)
            return
        href = element.get("href") or ""
        if element.get("parse", "xml") != "xml" or self.includes <= 0:
            return
        data = read_beside(self.folder, href)
        raw = content_digest(data) if data is not None else b""
        if data is not None:
            try:
                data = as_utf8(data)
            except SkipFile as exc:
                self.notes.append(f"{href}: {exc}")
                return
        if data is None:
            self.reads.setdefault(href.removeprefix("./"), ABSENT)  # (read again when it comes)
            return
        if local_name(read_prolog(data).root or "") in DOCUMENT_ROOTS:
            return  # not beside the file, or a document indexed from its own file
        self.includes -= 1
        self.reads[href.removeprefix("./")] = raw
        try:
            fragment, notes = parse_confined(
                data, self.folder, FORMAT, borrow=False, reads=self.reads
            )
        except SkipFile as exc:
            self.notes.append(f"{href}: {exc}")
            return
        self.notes += [f"{href}: {note}" for note in notes]
        lines, self.lines = self.lines, 0  # its lines are another file's: none is named
        self.walk(fragment)
        self.lines = lines
