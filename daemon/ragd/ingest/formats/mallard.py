"""Mallard (`.page`): GNOME's topic-oriented help (`/usr/share/help/LANG/gnome-help/`).

A page's title heads it and its sections' titles are the heading path; the one-line
summary in its `info` (`desc`: "Ignore quickly-repeated key presses of the same key.") is
its first paragraph. Paragraphs, lists and steps (an item a line), term lists ("title:
text"), tables (a row a line), `code` and `screen` blocks, notes with their style's label
("Tip (Quickly turn bounce keys on and off): …"), figures' and listings' titles and
descriptions are the text; inline elements are their words, a key sequence "Ctrl+Alt+T", a
GUI path "Settings > Accessibility", a link its text (an empty one the title of the
page or section it names, as Yelp shows it: the page's link title, `info/title
type="link"`, else its title; another page is found by its id among the `.page` files
beside this one, `docbook_siblings`; a target found nowhere shows its `xref`).
Conditional text for one desktop or another (`if:choose`, `if:test`) is each branch led
by its condition ("If gnome-classic: …", `mallard_conditions`). The rest of `info` (links, credits,
revisions, the license an `include` pulls in), `links` and editorial `comment`s are not
text. Parsed like DocBook (`xml_confined`): nothing outside the file's folder is read, and
a page reads no DTD; the pages beside it only for the titles its links show.
"""

from __future__ import annotations

from pathlib import PurePath
from typing import Any, ClassVar

from ragd.core.no_text import not_a_document
from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.docbook_siblings import SiblingReader, SiblingTargets
from ragd.ingest.formats.mallard_conditions import (
    OTHERWISE,
    condition_label,
    element_test,
    is_conditional,
)
from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.formats.xml_blocks import XmlWalker, ids_of, local, with_target
from ragd.ingest.formats.xml_confined import Reads, parse_confined
from ragd.ingest.formats.xml_prolog import as_utf8, local_name

FORMAT = "Mallard"
READS_FOLDER = True  # `parse` is given the file's folder: the pages its links name
MALLARD_NS = "http://projectmallard.org/1.0/"

BLOCKS = frozenset(
    {"p", "title", "subtitle", "desc", "figure", "listing", "example", "synopsis", "quote"}
    | {"cite", "thead", "tbody", "tfoot", "table", "div"}
)
SKIPPED = frozenset({"info", "links", "comment", "rules", "thumb", "include"})
# Where `code`, `screen` and `media` are words in a line, not blocks of their own.
INLINE_PARENTS = frozenset(
    {"p", "title", "subtitle", "desc", "link", "em", "gui", "span", "cmd", "key", "app"}
    | {"file", "sys", "var", "output", "input", "hi", "code", "screen", "cite", "guiseq"}
    | {"keyseq"}
)
NOTE_LABELS = {
    "advanced": "Advanced", "bug": "Bug", "caution": "Caution", "danger": "Danger",
    "important": "Important", "tip": "Tip", "warning": "Warning",
}  # fmt: skip


def parse(name: str, data: bytes, folder: str | None = None) -> Document:
    data = as_utf8(data)
    root, notes = parse_confined(data, None, FORMAT)
    if not _is_page(root):
        raise SkipFile(not_a_document(f"XML (root <{local(root)}>, not a Mallard page)"))
    walker = MallardWalker(MarkdownWriter(), data.count(b"\n") + 1, root)
    walker.siblings = SiblingTargets(folder, PurePath(name).name, PAGES)
    document = walker.read(root, name, notes)
    walker.siblings.depended(document, {}, [walker.page_id] if walker.page_id else [])
    return document


def _is_page(root: Any) -> bool:
    return local(root) == "page" and root.tag.startswith(f"{{{MALLARD_NS}}}")


def _parse_page(data: bytes, folder: str, reads: Reads) -> Any:
    return parse_confined(data, None, FORMAT)[0]  # (a page reads no DTD beside it)


def _page_by_id(root: Any) -> dict[str, Any]:
    """A page is linked to by its id (a section by `page#section`, found in the page)."""
    key = root.get("id") if _is_page(root) else None
    return {key: root} if key else {}


# The pages beside this one, where a link to another page finds its title.
PAGES = SiblingReader(
    FORMAT, (".page",), lambda root: local_name(root) == "page", _parse_page, _page_by_id
)


def _child(element: Any, name: str) -> Any:
    return next((c for c in element if local(c) == name), None)


class MallardWalker(XmlWalker):
    blocks = BLOCKS
    skipped = SKIPPED
    joins: ClassVar[dict[str, str]] = {"keyseq": "+", "guiseq": " > "}

    def __init__(self, writer: MarkdownWriter, lines: int, root: Any) -> None:
        super().__init__(writer, lines, root)
        self.page_id = root.get("id") or ""
        self.siblings = SiblingTargets(None, "", PAGES)  # (none until `parse` names them)
        self.sections: dict[int, dict[str, Any]] = {}  # another page's ids, by the page
        self.handlers.update(
            {"page": self.page, "section": self.page, "note": self.note, "terms": self.terms}
            | {"list": self.a_list, "steps": self.a_list, "tree": self.a_list}
            | {"code": self.listing, "screen": self.listing, "media": self.media}
            | {"tr": self.row, "link": self.link, "keyseq": self.joined, "guiseq": self.joined}
            | {"choose": self.choose, "if": self.if_block}
        )

    def walk(self, element: Any) -> None:
        """An element with an `if:test` is shown under its condition (mallard_conditions)."""
        test = element_test(element) if isinstance(element.tag, str) else None
        label = condition_label(test) if test else ""
        if label:
            self.conditional(element, label, super().walk)
        else:
            super().walk(element)

    def in_line(self, element: Any) -> bool:
        parent = element.getparent()
        return parent is not None and local(parent) in INLINE_PARENTS

    def choose(self, element: Any) -> None:
        """`if:choose`: each `if:when` under its condition, the `if:else` "Otherwise", as
        Yelp keeps them for the viewer's platform to pick; a branch whose test holds on
        any desktop ends the choice there, as Yelp's does. Yelp shows nothing else of it."""
        if not is_conditional(element):
            self.children(element)
            return
        otherwise = ""  # an `if:else` after labelled branches is "Otherwise"
        for child in element:
            if not is_conditional(child) or local(child) not in ("when", "else"):
                continue
            is_else = local(child) == "else"
            label = otherwise if is_else else condition_label(child.get("test") or "")
            if not label:
                self.children(child)
                return
            self.conditional(child, label, self.children)
            otherwise = OTHERWISE

    def if_block(self, element: Any) -> None:
        """`if:if`: its content under its condition."""
        label = condition_label(element.get("test") or "") if is_conditional(element) else ""
        if label:
            self.conditional(element, label, self.children)
        else:
            self.children(element)

    def title_element(self, target: Any) -> Any:
        """What a link shows: the link title in its `info` (one with no `role`: the
        roles are for trails and topic lists), else its title."""
        info = _child(target, "info")
        for title in info if info is not None else ():
            if local(title) == "title" and title.get("type") == "link" and not title.get("role"):
                return title
        return _child(target, "title")

    def target(self, key: str) -> Any:
        """`page`, `page#section` or `#section`: in this page, else in the page beside it
        whose id is `page` (`docbook_siblings`)."""
        page, _, section = key.partition("#")
        if not page or page == self.page_id:
            return self.ids.get(section or page)
        other = self.siblings.find(page)
        if other is None or not section:
            return other
        if id(other) not in self.sections:
            self.sections[id(other)] = ids_of(other)
        return self.sections[id(other)].get(section)

    def page(self, element: Any) -> None:
        """A page or section: its title, its summary (`info/desc`), its body."""
        title = _child(element, "title")
        info = _child(element, "info")
        self.end_text()
        self.level += 1
        if title is not None:
            self.heading(self.captured(title), title)
        if info is not None:
            for desc in (c for c in info if local(c) == "desc"):
                self.block(desc)
        self.children(element, lambda child: child is title)
        self.end_text()
        self.level -= 1

    def note(self, element: Any) -> None:
        styles = (element.get("style") or "").split()
        label = next((NOTE_LABELS[s] for s in styles if s in NOTE_LABELS), None)
        if label is None:
            label = "" if {"plain", "sidebar"} & set(styles) else "Note"
        title = _child(element, "title")
        text = self.captured(title) if title is not None else ""
        lead = f"{label} ({text})" if label and text else label or text
        self.led(element, f"{lead}: " if lead else "", lambda child: child is title)

    def a_list(self, element: Any) -> None:
        numbered = local(element) == "steps" or element.get("type") == "numbered"
        self.items_of(element, numbered, frozenset({"item"}))

    def terms(self, element: Any) -> None:
        """A term list: each item "title: its text" (several titles joined by commas)."""
        self.end_text()
        for child in element:
            if local(child) != "item":
                if isinstance(child.tag, str):
                    self.walk(child)
                continue
            titles = [c for c in child if local(c) == "title"]
            lead = ", ".join(self.captured(t) for t in titles)
            self.led(child, f"{lead}: " if lead else "", set(titles).__contains__)
        self.end_text()

    def listing(self, element: Any) -> None:
        parent = element.getparent()
        if parent is not None and local(parent) in INLINE_PARENTS:
            self.children(element)
        else:
            self.code(element, self.raw_text(element), element.get("mime") or "")

    def media(self, element: Any) -> None:
        """An image or video: its fallback text (what shows where the image cannot)."""
        parent = element.getparent()
        if parent is not None and local(parent) in INLINE_PARENTS:
            self.children(element)
        else:
            self.block(element)

    def joined(self, element: Any) -> None:
        """A key sequence "Ctrl+Alt+T" or GUI path "Settings > Typing". Mallard lets one
        hold bare text besides its `key` and `gui` elements, and Yelp shows each such text
        as one more step: evince's "<keyseq><key>Ctrl</key>left click</keyseq>" is
        "Ctrl+left click" (DocBook's `keycombo` holds only elements, so its joiner in
        xml_blocks reads no text)."""
        parts = [element.text or ""]
        for child in element:
            if isinstance(child.tag, str) and local(child) not in self.skipped:
                parts.append(self.captured(child))
            parts.append(child.tail or "")
        steps = (part.strip() for part in parts)
        self.add(self.joins[local(element)].join(step for step in steps if step), element)

    def link(self, element: Any) -> None:
        text = self.captured(element)
        xref = element.get("xref")
        if not text and xref:
            found = self.target(xref) is not None
            text = self.title_of(xref) if found else xref.rpartition("#")[2] or xref
        self.add(with_target(text, element.get("href")), element)
