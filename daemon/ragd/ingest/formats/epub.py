"""E-books (``.epub``) through EbookLib: book title > chapter > the chapter's own headings.

EbookLib reads the EPUB 2/3 package (manifest, spine, table of contents). Chapters are
read in spine order; each is XHTML and goes through the HTML converter one level down,
under the book's title. A chapter without a heading of its own is headed by its table of
contents entry (or its file name). The zip container is checked for a bomb first. A book
zipped from the folder above it (every part under one top folder, its container file
`epub/META-INF/container.xml`) is read from that folder, and a part the manifest lists but
the zip lacks (a cover image, a chapter listed again with an anchor) reads as empty. A
heading right under one of the same title is not written again (`BookWriter`).
"""

from __future__ import annotations

import io
import warnings
import zipfile
from collections.abc import Callable
from pathlib import PurePath, PurePosixPath
from typing import Any

from ragd.core.no_text import has_no_text
from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.html import parse_tree, write_markdown
from ragd.ingest.formats.markdown import MAX_LEVEL, MarkdownWriter, clean

FORMAT = "EPUB book"
CONTAINER = "META-INF/container.xml"  # where OCF puts the pointer to the package file


def parse(name: str, data: bytes) -> Document:
    import ebooklib
    from ebooklib import epub

    check_zip(data, FORMAT)
    with warnings.catch_warnings():  # EbookLib warns about options it will change
        warnings.simplefilter("ignore")
        book = _read(_rooted(data))
    titles = dict(_toc_titles(book.toc))
    title = clean(" ".join(t for t, _ in book.get_metadata("DC", "title"))) or PurePath(name).stem
    writer = BookWriter()
    writer.heading(1, title)
    chapters = 0
    read: set[str] = set()  # the chapters' files, each read once
    for idref, _linear in book.spine:
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT:
            continue
        if isinstance(item, epub.EpubNav):
            continue  # the table of contents as a page: only links
        if item.get_name() in read:
            continue  # listed twice (two ids, one file): its text once
        read.add(item.get_name())
        try:
            root = parse_tree(item.get_content())
        except SkipFile:
            continue  # an empty or unreadable chapter; the rest of the book still counts
        chapters += 1
        if root.find(".//{*}h1") is None and root.find(".//h1") is None:
            writer.heading(2, titles.get(item.get_name()) or PurePosixPath(item.get_name()).stem)
        write_markdown(root, writer, shift=1)
    if not chapters:  # every chapter missing from the zip or empty: a title is no text
        raise SkipFile(has_no_text(FORMAT))
    return Document(kind="markdown", title=title, text=writer.text())


def _read(data: bytes) -> Any:
    """EbookLib's book of `data`, a part its manifest lists but the zip lacks read as empty.

    EbookLib reads every part the manifest lists and gave up on the whole book for one
    missing: debmake-doc 1.17-7's six guides list their cover as `xslt/debian-openlogo.png`
    (the zip has `debian-openlogo.png`), live-manual-epub's ten list each chapter again
    as `about-manual.xhtml#o8`, a part name with an anchor (newuser56). An empty picture
    is never read; an empty chapter is skipped by `parse`, so the anchored copies do not
    repeat their chapter. The container and the package file are still required. A table
    of contents the zip lacks (an EPUB 3 nav, the spine's NCX) is none: EbookLib parsed
    the empty part and gave up on the book for it (attack57); chapters are then headed
    by their file names. `test_the_ebooklib_methods_overridden_here_exist` fails first
    if an EbookLib upgrade renames one."""
    from ebooklib import epub

    class Reader(epub.EpubReader):  # defined here: EbookLib is imported only when needed
        listing = False  # True while the manifest's parts and the spine's NCX are read

        def _load_manifest(self) -> None:
            self._listed(super()._load_manifest)

        def _load_spine(self) -> None:
            self._listed(super()._load_spine)

        def _listed(self, load: Callable[[], None]) -> None:
            """`load`, a part the zip lacks read as empty meanwhile."""
            self.listing = True
            try:
                load()
            finally:
                self.listing = False

        def _parse_nav(self, data: bytes, base_path: str, navtype: str = "toc") -> None:
            if data:
                super()._parse_nav(data, base_path, navtype)

        def _parse_ncx(self, data: bytes) -> None:
            if data:
                super()._parse_ncx(data)

        def read_file(self, name: str) -> bytes:
            try:
                return bytes(super().read_file(name))
            except KeyError:
                if self.listing:
                    return b""
                raise

    reader = Reader(io.BytesIO(data), {"ignore_ncx": True})
    book = reader.load()
    reader.process()
    return book


def _rooted(data: bytes) -> bytes:
    """The book's zip with its container file at the root, where EbookLib looks for it.

    Debian Edu's manuals (debian-edu-doc-legacy-en: Audacity, Rosegarden, ITIL) are zipped
    from the folder above the book, every part under `epub/`: EbookLib found no
    `META-INF/container.xml` and all three were skipped as unreadable (newuser56). When
    exactly one top folder holds the container, that folder's parts are the book; paths
    in the container are relative to it. Anything else is left for EbookLib to refuse."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        if CONTAINER in names:
            return data
        tops = {n.split("/")[0] for n in names if n.count("/") == 2 and n.endswith(f"/{CONTAINER}")}
        if len(tops) != 1:
            return data
        top = f"{tops.pop()}/"
        rooted = io.BytesIO()
        with zipfile.ZipFile(rooted, "w") as book:  # stored: check_zip bounded the size
            for info in archive.infolist():
                if info.filename.startswith(top) and not info.is_dir():
                    book.writestr(info.filename.removeprefix(top), archive.read(info))
    return rooted.getvalue()


def _toc_titles(toc: Any) -> list[tuple[str, str]]:
    """(chapter file, title) for every table-of-contents entry, sections included."""
    found: list[tuple[str, str]] = []
    for entry in toc:
        if isinstance(entry, tuple | list) and len(entry) == 2:
            section, children = entry
            found.extend(_toc_titles([section]))
            found.extend(_toc_titles(children))
        elif getattr(entry, "href", None):
            found.append((entry.href.split("#")[0], clean(entry.title or "")))
    return found


class BookWriter(MarkdownWriter):
    """A MarkdownWriter whose headings never repeat the heading they are under: a path
    would name it twice. A book's title page repeats the book's title as its `h1`
    ("Debian Edu … Manual > Debian Edu … Manual > Publish date"), and DocBook's sections
    their own (snmptt's "EVENT > EVENT", CxxTest's "B.2. Using Makefiles" twice): 92 of
    5,808 chunks of this machine's 36 EPUBs. Right under that heading, with nothing written
    between, it is left out (its text goes on under it); after a section of another title
    (debmake-doc's "cover" page between the book's title and its title page) it is written
    at that heading's level, a section of its own under the same path."""

    def __init__(self) -> None:
        super().__init__()
        # The open headings: level, title, and how many blocks were written once it was.
        # At most MAX_LEVEL of them, each deeper than the one before.
        self._open: list[tuple[int, str, int]] = []

    def heading(self, level: int, text: str) -> None:
        title = clean(text)
        if not title:
            return
        level = max(1, min(level, MAX_LEVEL))
        while self._open and self._open[-1][0] >= level:
            self._open.pop()
        if self._open and self._open[-1][1] == title:
            parent_level, _, written = self._open.pop()
            if written == len(self.blocks):
                self._open.append((parent_level, title, written))
                return  # right under it: the path holds the title once
            level = parent_level
        super().heading(level, title)
        self._open.append((level, title, len(self.blocks)))
