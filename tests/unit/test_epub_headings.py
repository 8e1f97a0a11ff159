"""An EPUB's heading paths name a heading once: a title page repeats the book's title as
its `h1`, and DocBook's sections repeat their own (r58: 92 of 5,808 chunks of this
machine's 36 EPUBs had a path like `A > A > …`)."""

from __future__ import annotations

import io
from itertools import pairwise

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse


def _book(*chapters: tuple[str, str]) -> bytes:
    """An EPUB titled "Ferry Tales" whose chapters are (file name, body) in order."""
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("ferry-tales")
    book.set_title("Ferry Tales")
    book.set_language("en")
    items = []
    for name, body in chapters:
        item = epub.EpubHtml(title=name.split(".")[0], file_name=name, lang="en")
        item.content = body
        book.add_item(item)
        items.append(item)
    book.toc = tuple(items)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()


def _paths(data: bytes) -> dict[str, str]:
    return {c.heading_path: c.text for c in chunk_document(parse("tales.epub", data))}


def test_a_title_page_s_heading_is_not_repeated_under_the_book_s_title() -> None:
    title_page = "<h1>Ferry Tales</h1><h2>Publish date</h2><p>Printed in the spring of 2024.</p>"
    chapter = (
        "<h1>Signals</h1><h2>EVENT</h2><h3>EVENT</h3><p>The horn sounds twice at the pier.</p>"
    )
    paths = _paths(_book(("title.xhtml", title_page), ("signals.xhtml", chapter)))
    assert paths["Ferry Tales > Publish date"] == "Printed in the spring of 2024."
    assert paths["Ferry Tales > Signals > EVENT"] == "The horn sounds twice at the pier."
    for path in paths:
        levels = path.split(" > ")
        assert all(a != b for a, b in pairwise(levels)), path


def test_a_repeated_title_after_another_section_heads_its_own_text() -> None:
    """debmake-doc: a cover page between the book's title and its title page. The title
    page's text is not filed under the cover."""
    cover = "<p>A ferry at dusk.</p>"
    title_page = "<h1>Ferry Tales</h1><h3>Ann Crew</h3><p>Copyright the crew of Eskerry.</p>"
    paths = _paths(_book(("cover.xhtml", cover), ("title.xhtml", title_page)))
    assert paths["Ferry Tales > cover"] == "A ferry at dusk."
    assert paths["Ferry Tales > Ann Crew"] == "Copyright the crew of Eskerry."
