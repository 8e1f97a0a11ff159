"""HTML (``.html``, ``.htm``, ``.xhtml``) through lxml: ``h1``–``h6`` become heading paths.

lxml wraps libxml2's HTML parser: fast, tolerant of the tag soup real pages are, and it
reads the document's declared encoding. The tree is walked iteratively (`iterwalk`), so
no nesting depth can exhaust Python's stack; libxml2 itself stops at 2,048 levels
(`huge_tree`; 256 by default, which unclosed `<dt>`s reach), and a document it had to cut
there is skipped rather than indexed half-read.

Kept: headings, paragraphs, list items (``- …``), table rows (``| a | b |``), ``pre`` as
code, the words an inline ``svg`` shows (its ``<text>``, one paragraph a diagram: SQLite's
railroad diagrams are each statement's keywords). Dropped: scripts, styles, navigation
chrome (``nav``, and any element whose ARIA role says it is navigation or a search box:
Sphinx's "related" bars and sidebar with their "Next topic", "Previous topic", "This Page",
"Quick search"; what the page itself marks ``nosearch``), the permalink anchors of
headings (``a.headerlink``, the "¶" of Sphinx and MkDocs; rustdoc's "§"), forms and
embedded objects.
A page without an ``h1`` gets its ``<title>`` as the top heading.

Every block keeps the lines of the file it was read from. libxml2 gives each element the
line its start tag ends on, which is where the element's own text begins; counting the
newlines of the text read since then gives the line each piece of text starts and ends
on (a tail after a dropped comment may come out a few lines early, until the next tag).
libxml2 keeps that line in 16 bits, so past line 65,534 no line is known, and a chunk
with text from there names no lines.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from pathlib import PurePath
from typing import Any
from urllib.parse import unquote

from ragd.core.no_text import not_a_document
from ragd.ingest.document import UNPLACED, Document, SkipFile, decode_text, looks_binary
from ragd.ingest.formats import code
from ragd.ingest.formats.mail_links import unshown_address, with_address
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "HTML"

_DECLARES_ENCODING = re.compile(rb"<meta[^>]+charset|<\?xml[^>]+encoding", re.I)

HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
SKIPPED = {
    "head",
    "script",
    "style",
    "noscript",
    "template",
    "nav",
    "math",
    "iframe",
    "object",
    "embed",
    "form",
    "button",
    "select",
}
BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "aside",
    "header",
    "footer",
    "blockquote",
    "ul",
    "ol",
    "dl",
    "dt",
    "dd",
    "table",
    "thead",
    "tbody",
    "figure",
    "figcaption",
    "address",
    "details",
    "summary",
    "hr",
    "br",
    "body",
    "html",
}
# Doxygen's page furniture: the breadcrumbs of a class or file page ("Json" >
# "CharReaderBuilder", `div.navpath`), and the tooltips of its code (`div.ttc`: a name's
# declaration, brief and "Definition: value.h:193", which its stylesheet hides until the
# pointer rests on the name). A tooltip is written once per name a listing links, so
# JsonCpp 1.9.5's pages held 535, read as text: its main page's code example ended in
# "Definition: json_value.cpp:628", quoted as an answer (newuser55). Its footer and its
# header's links to the page's member groups are told by their place (is_doxygen_chrome).
DOXYGEN_CHROME = {"navpath", "ttc"}
DIRECTORY_ICONS = {"icon", "arrow"}  # Doxygen's in its lists (is_doxygen_chrome)
DIRECTORY_DEPTH = 6  # how far up from an icon its `table.directory` is looked for
# Page furniture that is not the page's text, whatever its tag (a built Sphinx page's nav
# bars and sidebar are plain ``div`` elements with these roles; DocBook XSL's Prev/Up/Next
# bars are "navheader" and "navfooter"; SQLite's generator wraps each page's banner, menu
# and search box in "nosearch", a chunk of its own on every page before).
# mdBook's menu bar ("menu-bar": its buttons and, as an `h1`, the book's title) heads every
# chapter page: a chunk of nothing but "The Edition Guide" on each of its 39 chapters.
CHROME_ROLES = {"navigation", "search"}
CHROME_CLASSES = {"headerlink", "navheader", "navfooter", "nosearch", "menu-bar", *DOXYGEN_CHROME}
# Texinfo's HTML (makeinfo, texi2any) puts each node's "Next: …, Previous: …, Up: …
# [Contents]" links above the node, and below a long one, in a `div.header` (Texinfo 5
# and 6) or `div.nav-panel` (7): a chunk of nothing but those links on each of the 60
# pages of Aspell's manual (62 of its 323 chunks), and the last chunk of a long page
# ended with them (newuser61). "header" is a common class, so only a panel that holds a
# `rel` next/prev/up link, near (a child's or grandchild's: how makeinfo writes it), and
# no heading there, is that bar: Doxygen's `div.header` holds the page's title.
NODE_PANEL_CLASSES = {"header", "nav-panel"}
NODE_LINK_RELS = {"next", "prev", "previous", "up"}
# mdBook's hidden lines of an example (a Rust listing's `# ` lines, the `fn main() {`
# wrapper it adds): shown only when the reader asks, so not the page's text. Every example
# had opened with "#![allow(unused)] fn main() {", and the rustdoc book's "It will render
# like this:" showed the line it says is hidden (newuser59).
HIDDEN_CODE_CLASS = "boring"
# gtk-doc's (the GNOME API references Devhelp shows; DocBook XSL under it): each page
# opens with a `table.navigation` ("Top | Description", its Home, Up, Prev and Next
# icons) and ends with a `div.footer` crediting the generator ("Generated by GTK-Doc
# V1.27"). The bar was a chunk of its own on each of cairo 1.16's 41 reference pages and
# the credit line the only text of its chapter pages, quoted for "how do I draw a circle"
# as "Drawing" (newuser75). A footer is chrome only when its own text opens with
# GENERATOR_CREDIT: a site's footer may hold its words. The book's front page puts its
# title in such a table (`p.title`, "Cairo: A Vector Graphics Library"): a bar holding an
# element of class "title" among its first NAVIGATION_LOOK elements is text.
NAVIGATION_TABLE_CLASS = "navigation"
NAVIGATION_LOOK = 64
GENERATOR_CREDIT = "Generated by "
# A permalink, chrome when it holds no word (`is_permalink`): rustdoc's beside an item's
# heading (`<a class="anchor">§</a>`; elsewhere the class may mark a link target wrapping
# the page's own words), or any link to an anchor inside a heading, rustdoc's
# `<a class="doc-anchor" href="#examples">§</a>` opening each heading of a doc comment,
# other generators' "#" or "🔗".
PERMALINK_CLASS = "anchor"
# A table of contents is navigation too: each of its lines is a heading the page (or a
# sibling page) holds where it heads its section, so indexed as text it only repeats
# headings — in the Debian Reference a chapter's contents ranked above the section it
# names for 14 of 30 questions, its bare lines quoted as answers. The names generators
# give it: DocBook XSL's "toc" (its ``div`` and ``dl``) and its lists of tables, figures
# and examples; Sphinx's "toctree-wrapper"; Python-Markdown's (MkDocs') "toc";
# DPUB-ARIA's role "doc-toc" (Pandoc, docutils); docutils' html4 "contents topic". A class
# "contents" alone is not one: Doxygen wraps a whole page's text in ``div.contents``. Such
# an element holding a heading is not a table of contents whatever its name: Sphinx's
# single-page build writes every document of the book inside its "toctree-wrapper".
CONTENTS_ROLES = {"doc-toc"}
CONTENTS_CLASSES = {
    "toc",
    "toctree-wrapper",
    "list-of-tables",
    "list-of-figures",
    "list-of-examples",
    "list-of-procedures",
    "list-of-equations",
}
CONTENTS_CLASS_PAIRS = ({"contents", "topic"},)
# Texinfo's (makeinfo, texi2any): `<h2 class="contents-heading">Table of Contents</h2>`
# and right after it the `div.contents` (`shortcontents` for @shortcontents), every node's
# title again, linked to its page: 3 chunks of Aspell's manual's `index.html`, retrieved
# among the first ten for "which dictionaries are installed" (newuser61). Known by the
# heading before it, as a class "contents" alone is Doxygen's page body; the heading
# goes with it.
TEXINFO_CONTENTS = {"contents-heading": "contents", "shortcontents-heading": "shortcontents"}
# Javadoc (JDK 16 on) writes a class page's field, constructor and method summaries, the
# constant values page and the class and package indexes as a CSS grid: a
# `div.summary-table` whose cells are sibling `div`s, as many to a row as its class says
# (`three-column-summary`), which the stylesheet lays out as a table. Read as blocks, a
# method's return type, its name and what it does were three paragraphs, and a chunk could
# open with the description of a method named in the chunk before (Apache Commons Lang
# 3.12.0: 130 grids on its 53 class pages and indexes); read as a table, a row a member.
GRID_CLASS = "summary-table"
GRID_COLUMNS = {"two-column-summary": 2, "three-column-summary": 3, "four-column-summary": 4}
GRID_HEADER_CLASS = "table-header"
LISTS = {"ul", "ol", "dl"}
# What ends a heading that holds it (end_headings_at_blocks): a block, not a line break.
STRUCTURE = (BLOCKS - {"br", "body", "html"}) | set(HEADINGS) | {"pre", "li", "tr"}
MAX_DEPTH = 2048  # libxml2's nesting limit with `huge_tree` (256 without)
# Lists nested deeper than this are written at its indent: the indent is written out on
# every item, so unbounded it grew the text with the square of the depth (1,000 nested
# lists, 27 KB of HTML, made 1 MB of spaces); no document's outline nests this deep.
MAX_LIST_NESTING = 16
# libxml2's HTML parser stores an element's line in 16 bits: this value means "here or later".
LINE_CEILING = 65535
XHTML = "http://www.w3.org/1999/xhtml"


def parse(name: str, data: bytes) -> Document:
    root = parse_tree(data)
    if (source := haddock_source(root)) is not None:
        module = code.parse(f"{PurePath(name).stem}.hs", source.encode("utf-8"))
        return replace(module, title=PurePath(name).stem)
    not_a_page_of_its_own(root)
    doxygen_titles_as_headings(root)
    writer = MarkdownWriter()
    title_element = root.find(".//title")
    title = clean(title_element.text_content()) if title_element is not None else ""
    if title and root.find(".//h1") is None:
        writer.at = line_of(title_element)
        writer.heading(1, title)
    write_markdown(root, writer)
    # Headings alone are no text (a page that is only a table of contents and its title):
    # nothing to quote, and the reader's "no text" skip says so.
    text = writer.text() if len(writer.blocks) > writer.headings else ""
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=text,
        located="lines",
        origins=writer.origins(),
        reaches=writer.reaches(),
    )


def haddock_source(root: Any) -> str | None:
    """The Haskell module a page of Haddock's hyperlinked source shows (`html/src/`, a
    body of one `<pre>` whose tokens are `span.hs-keyword`, `span.hs-comment` …), or None
    for any other page. Read as HTML, each such page had been one `(untitled)` run, the
    types of its names' tooltips in it. The tooltips are taken out of the tree."""
    body = root.find(".//body")
    if body is None:
        return None
    elements = [child for child in body if isinstance(child.tag, str)]
    if len(elements) != 1 or elements[0].tag != "pre":
        return None
    if not elements[0].xpath(".//span[starts-with(@class, 'hs-')]"):
        return None
    # A name's type, shown only while the pointer is over it (`span.annottext`, hidden by
    # the page's style sheet): 615 of them on split's Internals page, each read as a
    # signature line of its own.
    for tooltip in elements[0].xpath(".//span[@class='annottext']"):
        tooltip.drop_tree()
    text: str = elements[0].text_content()
    return text


def parse_tree(data: bytes) -> Any:
    """Bytes → an lxml element tree; a document libxml2 had to truncate is skipped."""
    import lxml.etree
    import lxml.html

    encoding = None
    if _DECLARES_ENCODING.search(data[:4096]) and not looks_binary(data):
        # libxml2 honours the declared encoding. It turns a NUL into U+FFFD, where every
        # other text drops it (`document.without_nul`): dropped here too. With no NUL in
        # the first 8 KiB the encoding is not UTF-16 or -32, so a 0 byte is a NUL.
        data = data.replace(b"\x00", b"")
    else:
        # Otherwise libxml2 assumes Latin-1; decode as every text file is (BOM, else UTF-8).
        encoding = "utf-8"
        data = decode_text(data)[0].encode("utf-8")
    # `huge_tree`: libxml2's limit for large documents, 2,048 levels instead of 256. It
    # nests every unclosed `<dt>` (or `<font>`) in the one before, where a browser closes
    # it: a glossary of 300 terms without `</dt>` was "too deep" and skipped whole. The
    # parse runs in the worker, under its time and memory limits, on a capped file.
    parser = lxml.html.HTMLParser(
        encoding=encoding, remove_comments=True, remove_pis=True, huge_tree=True
    )
    try:
        root = lxml.etree.fromstring(data, parser)
    except lxml.etree.XMLSyntaxError as exc:
        raise SkipFile(f"unreadable HTML ({exc})") from None
    for error in parser.error_log:
        if error.type_name == "ERR_RESOURCE_LIMIT":  # libxml2 stopped reading part-way
            if "depth" in error.message:
                raise SkipFile(
                    f"HTML nested deeper than the parser's limit ({MAX_DEPTH:,} elements)"
                )
            raise SkipFile(f"HTML beyond the parser's limits ({error.message.strip()})")
    if root is None:
        raise SkipFile("HTML has no content")
    return root


def not_a_page_of_its_own(root: Any) -> None:
    """Raise SkipFile ("not a document") for a page no one reads as itself: one a browser
    leaves at once for another (a `meta` refresh after 0 s in its head: the redirects a
    book leaves where a chapter moved, 88 of the Rust edition guide's 127 pages), or a
    print copy of a book's other pages (asks not to be indexed, `robots` "noindex", and
    prints itself when loaded: mdBook's `print.html`, every chapter again)."""
    head = root.find("head")
    metas = [m for m in head if _tag(m) == "meta"] if head is not None else []
    for meta in metas:
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        delay, _, target = (meta.get("content") or "").partition(";")
        if delay.strip() in ("0", "0.0"):
            where = target.strip().removeprefix("URL=").removeprefix("url=").strip("'\" ")
            raise SkipFile(not_a_document(f"HTML redirect to {where[:200] or 'itself'}"))
    named = (m for m in metas if (m.get("name") or "").lower() == "robots")
    robots = " ".join((m.get("content") or "").lower() for m in named)
    if "noindex" in robots and any(
        "window.print" in (script.text or "") for script in root.iter("script")
    ):
        raise SkipFile(not_a_document("HTML print copy of a book's pages (noindex)"))


def line_of(element: Any) -> int | None:
    """The line `element`'s start tag ends on (where its text begins), when known."""
    line = element.sourceline
    return line if isinstance(line, int) and 0 < line < LINE_CEILING else None


class _Walker:
    """Inline text gathered into the current block; a block boundary writes it out."""

    def __init__(
        self, writer: MarkdownWriter, shift: int, headed: set[Any], anchors: set[str]
    ) -> None:
        self.writer = writer
        self.headed = headed  # the elements holding a heading (holding_headings)
        self.anchors = anchors  # the anchors the page holds (anchors_held)
        self.shift = shift
        self.inline: list[str] = []
        self.prefix = ""
        self.indent = 0  # spaces before the current item's marker: its list's depth
        # The ``ul``/``ol``/``dl`` elements open around the walk, outermost first: an item
        # is indented two spaces per ``ul``/``ol`` around its own, as Markdown nests a list
        # (units.py joins a sub-item to the item introducing it by that indent), and only
        # an outermost list is judged a table of contents by its shape (each element is
        # looked at once: linear, however deep the lists nest).
        self.lists: list[Any] = []
        self.item_lists = 0  # how many of them are ``ul`` or ``ol``
        self.cells: list[str] | None = None
        # The rows open around the walk, each with whether the row around it was gathering
        # cells: a table nested in a row's cell is read between that row's cells, which
        # had been dropped when the nested row began (review76). One entry a row: linear.
        self.rows: list[tuple[Any, bool]] = []
        self.line: int | None = None  # the file's line the next text read starts on
        self.span: tuple[int, int] | None = None  # lines of the text gathered (row: cells)
        # A <dt>'s text and lines, waiting for the first block of its <dd>: a term and its
        # description are one paragraph ("100-999: Dynamically allocated system users"),
        # as the reST reader writes a definition list, so neither is quoted without the other.
        self.term: tuple[str, tuple[int, int] | None] | None = None

    def add(self, text: str | None) -> None:
        if not text:
            return
        self.inline.append(text)
        if self.line is None:
            return
        words = text.strip()
        if words:
            lead = self.line + text[: len(text) - len(text.lstrip())].count("\n")
            end = lead + words.count("\n")
            self.span = (self.span[0] if self.span else lead, end)
        self.line += text.count("\n")

    def flush(self) -> None:
        text = clean("".join(self.inline))
        self.inline = []
        if not text:
            return
        if self.cells is not None:
            self.cells.append(text)  # the row is written, with its cells' lines, at its end
        elif self.prefix:
            self.write_term()
            self._locate()
            self.writer.line(self.prefix + text, indent=self.indent)
        else:
            if self.term is not None:
                term, lines = self.term
                self.term = None
                text = f"{term} {text}" if term.endswith(":") else f"{term}: {text}"
                if lines is not None:
                    self.span = (lines[0], self.span[1] if self.span else lines[1])
            self._locate()
            self.writer.paragraph(text)
        self.prefix = ""

    def write_term(self) -> None:
        """A term whose description is not a paragraph (a list, a table, code, nothing)."""
        if self.term is None:
            return
        (term, lines), self.term = self.term, None
        self.writer.at, self.writer.until = lines or (UNPLACED, None)
        self.writer.paragraph(term)

    def write_row(self) -> None:
        """The cells gathered, a table line; none gathered from here."""
        row, self.cells = self.cells or [], []
        if row:
            self._locate()
            self.writer.line("| " + " | ".join(row) + " |")

    def _locate(self) -> None:
        """What is written next comes from the lines of the text gathered so far."""
        self.writer.at, self.writer.until = self.span or (UNPLACED, None)
        self.span = None

    def whole(self, element: Any) -> str:
        """The text of an element written in one piece (a heading, a ``pre``), located."""
        text = visible_text(element)
        row, self.span = self.span, None  # a table row gathering cells keeps its own lines
        self.line = line_of(element)
        self.add(text)
        self._locate()
        self.span = row
        return text

    def is_table_of_contents(self, tag: str, element: Any) -> bool:
        """Named one and holding no heading, or a list shaped as one (is_section_links)."""
        if element not in self.headed and is_contents(element):
            return True
        return tag in LISTS and not self.lists and is_section_links(element, self.anchors)

    def past(self, element: Any) -> None:
        """The walk goes on after `element`, whose subtree it does not enter: its tail
        comes after all of its text."""
        self.line = line_of(element)
        if self.line is not None:
            self.line += element.text_content().count("\n")

    def diagram(self, element: Any) -> None:
        """An inline SVG's words, a paragraph: what its ``<text>`` elements show (SQLite's
        railroad diagrams are a statement's keywords), in the order the file has them."""
        self.flush()
        for inner in element.iter():
            if _tag(inner) == "text":
                self.line = line_of(inner)
                self.add(" " + "".join(inner.itertext()) + " ")
        self.flush()
        self.past(element)

    def start(self, tag: str, element: Any) -> bool:
        """Handle an opening tag; False when its subtree has been consumed here."""
        if tag in SKIPPED or is_chrome(element) or self.is_table_of_contents(tag, element):
            self.past(element)
            return False
        if tag == "svg":
            self.diagram(element)
            return False
        if tag in HEADINGS or tag == "pre":
            self.flush()
            self.write_term()
            text = self.whole(element)
            self.inline = []
            if tag == "pre":
                self.writer.code(text, first_line=line_of(element))
            else:
                self.writer.heading(HEADINGS[tag] + self.shift, text)
            return False
        if tag == "li":
            self.flush()
            self.prefix = "- "
            self.indent = 2 * min(MAX_LIST_NESTING, max(0, self.item_lists - 1))
        elif tag == "tr":
            self.flush()
            self.write_term()
            self.rows.append((element, self.cells is not None))
            if self.cells:  # the cells of the row this one is nested in, read so far
                self.write_row()
            # A row holding a heading lays a page out (gtk-doc's `div.refnamediv`: the
            # page's `h2` and its purpose in one cell): its cells are read as blocks.
            self.cells = None if element in self.headed else []
        elif tag == "dt":
            self.flush()
            self.write_term()  # the term before had no description
        elif tag in ("td", "th") or tag in BLOCKS:
            self.flush()
        if tag in LISTS:
            self.lists.append(element)
            self.item_lists += tag in ("ul", "ol")
        self.line = line_of(element)  # exact again from here on (or unknown from here on)
        self.add(element.text)
        return True

    def end(self, tag: str, element: Any) -> None:
        if self.lists and self.lists[-1] is element:
            self.lists.pop()
            self.item_lists -= tag in ("ul", "ol")
        if tag == "dt" and self.cells is None:
            text = clean("".join(self.inline))
            self.inline = []
            if text:
                self.write_term()
                self.term, self.span = (text, self.span), None
            return
        if tag in ("td", "th", "li") or tag in BLOCKS:
            self.flush()
        elif tag == "tr":
            if self.cells is not None:
                self.flush()
                self.write_row()
            self.cells = None
            if self.rows and self.rows[-1][0] is element:
                _, around = self.rows.pop()
                self.cells = [] if around else None  # the rest of the row around it
        if tag == "dl":
            self.write_term()  # the list's last term had no description
        if tag == "table" or (tag in ("ul", "ol") and not self.item_lists):
            self.writer.end_lines()  # a nested list stays in the block of the list around it


def is_chrome(element: Any) -> bool:
    """Navigation, a search box or a permalink anchor: the site's, not the page's, text."""
    if not isinstance(element.tag, str):
        return False
    if (element.get("role") or "").strip().lower() in CHROME_ROLES:
        return True
    classes = _classes(element)
    if not CHROME_CLASSES.isdisjoint(classes):
        return True
    if HIDDEN_CODE_CLASS in classes and _tag(element) == "span":
        return True
    if not NODE_PANEL_CLASSES.isdisjoint(classes) and is_node_panel(element):
        return True
    if is_gtk_doc_chrome(element, classes):
        return True
    return is_doxygen_chrome(element, classes) or is_permalink(element, classes)


def is_gtk_doc_chrome(element: Any, classes: list[str]) -> bool:
    """gtk-doc's navigation bar (`table.navigation` with no title in it) and credit line
    (a `div.footer` whose own text, not its children's, opens with GENERATOR_CREDIT: each
    element's own text is read once, however deep footers nest)."""
    tag = _tag(element)
    if tag == "table":
        if NAVIGATION_TABLE_CLASS not in classes:
            return False
        inside = itertools.islice(element.iter(), 1, NAVIGATION_LOOK)
        return not any("title" in _classes(inner) for inner in inside)
    if tag != "div" or "footer" not in classes:
        return False
    own = (element.text or "") + "".join(child.tail or "" for child in element)
    return own.lstrip().startswith(GENERATOR_CREDIT)


def is_node_panel(element: Any) -> bool:
    """Texinfo's Next/Previous/Up bar (see NODE_PANEL_CLASSES): a `rel` next, prev or up
    link among the element's children or theirs, and no heading there. Only two levels
    are looked at, so nested panels cost each element once as a child and once as a
    grandchild."""
    near = [inner for child in element for inner in (child, *child)]
    tags = [_tag(inner) for inner in near]
    if any(tag in HEADINGS for tag in tags):
        return False
    return any(
        tag == "a" and (inner.get("rel") or "").strip().lower() in NODE_LINK_RELS
        for tag, inner in zip(tags, near, strict=True)
    )


def is_doxygen_chrome(element: Any, classes: list[str]) -> bool:
    """Doxygen's footer ("Generated on Wed Mar 30 2022 07:20:36 for JsonCpp by 1.9.1",
    `address.footer`, on every page); its banner (`div#top`, the project's name, menus,
    breadcrumbs and search box around its `div#titlearea`, and whatever a project's own
    header template adds there: JsonCpp's "JsonCpp project page | Classes | Namespace |
    JsonCpp home page", the first line, and so the heading, of every source page's
    chunks); and its header's links to the page's own member groups ("Public Member
    Functions | … | List of all members", a `div.summary` in the `div.header`; javadoc's
    `div.summary` elsewhere holds its member tables). In its class, file and namespace
    lists (a `table.directory`) the icons drawn as a letter in a box and the tree's
    arrows (`span.icon`, `span.arrow`), and the `div.levels` above one ("[detail level
    123]", its script's buttons): the letter ran into the name, "CSDL_AssertData",
    "▼NJson", which no search for the name finds (SDL 2.26.5: 80, JsonCpp: 78;
    attack56)."""
    tag = _tag(element)
    if tag == "address":
        return "footer" in classes
    if tag == "span":
        return not DIRECTORY_ICONS.isdisjoint(classes) and _in_directory(element)
    if tag != "div":
        return False
    if "levels" in classes:
        following = element.getnext()
        return following is not None and "directory" in _classes(following)
    if element.get("id") == "top":
        return any(child.get("id") == "titlearea" for child in element)
    if "summary" not in classes:
        return False
    parent = element.getparent()
    return parent is not None and "header" in _classes(parent)


def _in_directory(element: Any) -> bool:
    """Whether `element` is in a `table.directory`, as Doxygen nests its icons (`span.icon`
    in `span.icona` in `td` in `tr`, maybe in `tbody`): a few levels up only."""
    for outer in itertools.islice(element.iterancestors(), DIRECTORY_DEPTH):
        if _tag(outer) == "table":
            return "directory" in _classes(outer)
    return False


def is_permalink(element: Any, classes: list[str]) -> bool:
    """A wordless link to a heading's own anchor (see PERMALINK_CLASS): in every heading
    path ("§Examples") before. A link that says something is text, and a "§" in the
    body (a link to "§ 3" of the terms) is the page's. The cheap tests first: every
    element of a page is asked, and its text is its whole subtree's."""
    if PERMALINK_CLASS not in classes:
        if _tag(element) != "a" or not (element.get("href") or "").strip().startswith("#"):
            return False
        if not any(_tag(outer) in HEADINGS for outer in element.iterancestors()):
            return False
    return not any(char.isalnum() for char in element.text_content())


def is_contents(element: Any) -> bool:
    """A table of contents by its name (class or role); see CONTENTS_CLASSES."""
    if (element.get("role") or "").strip().lower() in CONTENTS_ROLES:
        return True
    classes = set(_classes(element))
    if not CONTENTS_CLASSES.isdisjoint(classes):
        return True
    if any(pair <= classes for pair in CONTENTS_CLASS_PAIRS):
        return True
    return is_texinfo_contents(element, classes)


def is_texinfo_contents(element: Any, classes: set[str]) -> bool:
    """Texinfo's table of contents or its heading (TEXINFO_CONTENTS): a `div` of class
    "contents" right after an `h2.contents-heading`, and that heading when the `div`
    follows it ("shortcontents" alike). Only the neighbouring element is looked at."""
    tag = _tag(element)
    if tag == "div":
        heading = element.getprevious()
        if heading is None or _tag(heading) not in HEADINGS:
            return False
        return any(TEXINFO_CONTENTS.get(name) in classes for name in _classes(heading))
    if tag not in HEADINGS:
        return False
    body = element.getnext()
    if body is None or _tag(body) != "div":
        return False
    held = set(_classes(body))
    return any(TEXINFO_CONTENTS.get(name) in held for name in classes)


def grid_columns(element: Any) -> int:
    """How many cells make a row of javadoc's summary grid (GRID_CLASS), 0 for any other
    element: the column count must be named, or the cells cannot be put into rows."""
    classes = _classes(element)
    if GRID_CLASS not in classes:
        return 0
    return next((GRID_COLUMNS[name] for name in classes if name in GRID_COLUMNS), 0)


def grids_as_tables(root: Any) -> None:
    """Make each javadoc summary grid the table it is shown as (see GRID_CLASS): its
    cells, in order, put into rows of its column count, the header cells as `th`, a
    `<br>` in a cell a space (`static <T extends Serializable><br>T` is one return type;
    a line break is a block, so it had made a cell of its own and shifted the row). Each
    cell is moved once."""
    import lxml.etree

    for grid in list(root.iter("div", f"{{{XHTML}}}div")):
        columns = grid_columns(grid)
        if not columns:
            continue
        cells = [cell for cell in grid if isinstance(cell.tag, str)]
        grid.tag = "table"
        for first in range(0, len(cells), columns):
            row = lxml.etree.SubElement(grid, "tr")
            for cell in cells[first : first + columns]:
                header = GRID_HEADER_CLASS in _classes(cell)
                cell.tag = "th" if header else "td"
                for line_break in cell.iter("br", f"{{{XHTML}}}br"):
                    line_break.tag, line_break.text = "span", " "
                row.append(cell)  # its tail (the whitespace after it) goes with it


def _classes(element: Any) -> list[str]:
    return (element.get("class") or "").split()


def doxygen_titles_as_headings(root: Any) -> None:
    """Make Doxygen's page title an ``h1``: it writes "Json::CharReaderBuilder Class
    Reference" as a `div.title` in the `div.headertitle`, and its member groups and
    members as ``h2``, so the page's text had no title above them ("Public Member
    Functions" alone, of whichever class), and a page without `<title>` (Debian's
    JsonCpp header has none) opened with a chunk whose heading was its first line."""
    for title in list(root.iter("div", f"{{{XHTML}}}div")):
        parent = title.getparent()
        if "title" in _classes(title) and parent is not None and "headertitle" in _classes(parent):
            title.tag = "h1"
    doxygen_members_under_groups(root)


def doxygen_members_under_groups(root: Any) -> None:
    """Make each of Doxygen's member titles (`h2.memtitle`, "board()") an ``h3``, under
    the group it is listed in (`h2.groupheader`, "Member Function Documentation"), as its
    page shows it: at the group's level, each group heading had nothing under it but the
    next heading and was a chunk of its own title alone, 330 of the 6,522 chunks of
    JsonCpp's and SDL's references (attack56)."""
    for title in list(root.iter("h2", f"{{{XHTML}}}h2")):
        if "memtitle" in _classes(title):
            title.tag = "h3" if title.tag == "h2" else f"{{{XHTML}}}h3"


def doxygen_fragments_as_code(root: Any) -> None:
    """Make each Doxygen code listing (`div.fragment`: a code example, a whole source
    file) the ``pre`` it is shown as: it writes one `div.line` a line, so read as blocks
    every line of code was a paragraph of its own. A line's end is its line break (a
    `div.line` not followed by one gets it), as in the browser's rendering. Only a
    `div.fragment` of such lines is one: a reveal.js slide's steps are `div.fragment`s
    of paragraphs and lists, which as a `pre` ran together, "every hour.CheapFast"
    (attack56). A source page's line number (`span.lineno`) stands apart from the code
    after it, as the stylesheet draws it: Doxygen 1.9.1 writes a no-break space between
    them, 1.9.4 nothing, and SDL's listings read "94typedef int SDL_SpinLock;",
    "59#ifndef SDL_atomic_h_" (r58)."""
    for fragment in list(root.iter("div", f"{{{XHTML}}}div")):
        if "fragment" not in _classes(fragment):
            continue
        lines = [line for line in fragment if _tag(line) == "div" and "line" in _classes(line)]
        if not lines:
            continue  # not Doxygen's: reveal.js shows a slide's `div.fragment` step by step
        fragment.tag = "pre"
        for line in lines:
            line.tag = "span"
            if not (line.tail or "").startswith("\n"):
                line.tail = "\n" + (line.tail or "")
            for number in line:  # its own children only: one look at each
                numbered = _tag(number) == "span" and "lineno" in _classes(number)
                if numbered and not (number.tail or "")[:1].isspace():
                    number.tail = " " + (number.tail or "")


def doxygen_labels_apart(root: Any) -> None:
    """Put a space after each of Doxygen's member labels (`span.mlabel`: "override",
    "static", "inline" beside a member's signature): its stylesheet draws each as a box
    of its own, but they are written with nothing between them, so two labels read as
    one word, "overridedefault", "inlinestatic" (37 on JsonCpp 1.9.5's pages), which no
    search for either finds."""
    for label in root.iter("span", f"{{{XHTML}}}span"):
        if "mlabel" in _classes(label) and not (label.tail or "")[:1].isspace():
            label.tail = " " + (label.tail or "")


def end_headings_at_blocks(root: Any) -> None:
    """Move out of each heading what follows its text from the first block on (a list, a
    paragraph, another heading), as the heading's following siblings.

    libxml2 ignores an end tag that closes no open element, so ``<h2>Keyword Index</h1>``
    (SQLite's keyword_index.html and doclist.html) left the h2 open and the rest of the
    page inside it: one heading of 8,000 words, cut to its first 80 characters, and a page
    of headings alone is "no text". A browser ends the heading at ``</h1>``; ending it at
    the first block after its words gives the same page without knowing the end tag, and
    a heading that merely wraps its words in a block (``<h1><div>Title</div></h1>``)
    keeps them."""
    structure = [*STRUCTURE, *(f"{{{XHTML}}}{tag}" for tag in STRUCTURE)]
    headings = [*HEADINGS, *(f"{{{XHTML}}}{tag}" for tag in HEADINGS)]
    for heading in list(root.iter(*headings)):
        worded = _has_text(heading.text)
        for number, child in enumerate(heading):
            if worded and next(child.iter(*structure), None) is not None:
                moved = list(heading)[number:]
                moved[-1].tail = (moved[-1].tail or "") + (heading.tail or "")
                heading.tail = None
                for element in reversed(moved):
                    heading.addnext(element)  # the element's tail goes with it
                break
            worded = worded or _has_text(child.text_content()) or _has_text(child.tail)


def holding_headings(root: Any) -> set[Any]:
    """Every element with a heading inside it, in one pass: each heading marks its
    ancestors up to one already marked, so no element is visited twice."""
    marked: set[Any] = set()
    for heading in root.iter(*HEADINGS, *(f"{{{XHTML}}}{tag}" for tag in HEADINGS)):
        parent = heading.getparent()
        while parent is not None and parent not in marked:
            marked.add(parent)
            parent = parent.getparent()
    return marked


def anchors_held(root: Any) -> set[str]:
    """The anchors a link can lead to on this page: every ``id``, and ``<a name>``."""
    held = {value for value in root.xpath("//@id")}
    held.update(
        anchor.get("name") for anchor in root.iter("a", f"{{{XHTML}}}a") if anchor.get("name")
    )
    return held


def is_section_links(element: Any, anchors: set[str]) -> bool:
    """A list that is a table of contents by its shape, whatever its class: two links or
    more, each to an anchor this page holds (`anchors`: "#usage", or "ch02.en.html#_apt"
    on ch02.en.html, or on a page that gathers a book's chapters), and no words outside
    them (numbers and punctuation only: "1.2 <a>…</a>"). Its lines are then sections of
    the page, whose headings say them where they stand. A "See also" list naming other
    sites, items that say something beside their link, and a list of links into another
    page's sections (SQLite's cli.html recommending "-DSQLITE_THREADSAFE=0" and a dozen
    more, each a link into compile.html: words the page holds nowhere else) stay text."""
    import lxml.etree

    links = 0
    inside = 0  # how many links the walk is in
    for event, inner in lxml.etree.iterwalk(element, events=("start", "end")):
        href = inner.get("href") if _tag(inner) == "a" else None
        if event == "start":
            if href is not None:
                if (
                    not is_section_link(href)
                    or unquote(href.strip().partition("#")[2]) not in anchors
                ):
                    return False
                links += 1
                inside += 1
            elif not inside and _has_words(inner.text):
                return False
            continue
        if href is not None:
            inside -= 1
        if inner is not element and not inside and _has_words(inner.tail):
            return False
    return links >= 2


def is_section_link(href: str) -> bool:
    """An href to an anchor of this page or of a sibling page ("#usage",
    "ch02.en.html#_apt"). With a scheme or a folder ("https://…", "../api/x.html#y") it
    leads elsewhere, and a list of such links is content ("See also")."""
    page, anchor, name = href.strip().partition("#")
    return bool(anchor and name) and not any(char in page for char in "/\\:? \t")


def _tag(element: Any) -> str:
    """The element's tag in lower case, without an XHTML namespace; "" for a non-element."""
    tag = element.tag.lower() if isinstance(element.tag, str) else ""
    return tag.rpartition("}")[2]


def _has_text(text: str | None) -> bool:
    return bool(text and text.strip())


def _has_words(text: str | None) -> bool:
    return text is not None and any(char.isalpha() for char in text)


def visible_text(element: Any) -> str:
    """`element`'s text without the chrome inside it (a heading's "¶" permalink) or what
    the walk skips anywhere (SKIPPED): rustdoc writes a "Copy item path" button into every
    item page's h1, which headed each of the page's chunks, a script or a button in a
    `pre` is no more the code's text."""
    import lxml.etree

    parts: list[str] = []
    events = lxml.etree.iterwalk(element, events=("start", "end"))
    for event, inner in events:
        if event == "start":
            if inner is not element and (_tag(inner) in SKIPPED or is_chrome(inner)):
                events.skip_subtree()  # its "end" event still comes, with its tail
            elif inner.text:
                parts.append(inner.text)
        elif inner is not element and inner.tail:
            parts.append(inner.tail)
    return "".join(parts)


def show_mail_addresses(root: Any) -> None:
    """Each `<a href="mailto:…">` is followed by its address when its text does not show
    it (`formats.mail_links`): the walk reads a link's text only, never its ``href``."""
    for link in root.iter("a", "{*}a"):
        address = unshown_address(link.get("href"), link.text_content())
        if address is not None:
            link.tail = with_address(link.tail or "", address)


def write_markdown(root: Any, writer: MarkdownWriter, shift: int = 0) -> None:
    """Walk the tree under `root`, writing its text and its headings `shift` levels down."""
    import lxml.etree

    end_headings_at_blocks(root)
    grids_as_tables(root)
    doxygen_fragments_as_code(root)
    doxygen_labels_apart(root)
    show_mail_addresses(root)
    walker = _Walker(writer, shift, holding_headings(root), anchors_held(root))
    events = lxml.etree.iterwalk(root, events=("start", "end"))
    for event, element in events:
        tag = _tag(element)  # XHTML: {namespace}tag
        if event == "start":
            if not walker.start(tag, element):
                events.skip_subtree()  # its "end" event still comes, and with it the tail
            continue
        walker.end(tag, element)
        walker.add(element.tail)
    walker.flush()
    walker.write_term()
