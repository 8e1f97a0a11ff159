"""An ikiwiki page (`.mdwn`) with no heading is headed by its first line only when that
line reads as a title: a directive alone there, `[[!meta robots="noindex, follow"]]` or
`[[!pagestats …]]`, renders as no words or as a generated table, and had headed every
chunk of 7 of the 99 English pages ikiwiki 3.20200202.3-1 ships (newuser57)."""

from __future__ import annotations

from ragd.ingest.chunking import UNTITLED, chunk_document, content_title
from ragd.ingest.loaders import parse


def test_a_directive_on_the_first_line_is_no_title() -> None:
    page = b'[[!meta robots="noindex, follow"]]\n\nThis wiki has searching enabled.\n'
    chunks = chunk_document(parse("ikiwiki/searching.mdwn", page))
    assert [c.heading_path for c in chunks] == [UNTITLED]
    tags = '[[!pagestats pages="./tags/*" among="./posts/*"]]\n\nThe tag cloud.\n'
    assert content_title(tags) == UNTITLED


def test_a_title_line_with_a_wikilink_in_it_stays_a_title() -> None:
    assert content_title("Notes on [[SandBox]]\n\nSome text.\n") == "Notes on [[SandBox]]"


def test_an_escaped_directive_reads_as_the_wiki_shows_it() -> None:
    """ikiwiki's directive pages write each example as `\\[[!img …]]`, which the page shows
    as `[[!img …]]`: a quote of it kept the backslash. Only in ikiwiki's `.mdwn`."""
    page = b'## usage\n\n\t\\[[!img image1.jpg size="200x200" alt="clouds"]]\n\nScaled.\n'
    text = parse("directive/img.mdwn", page).text
    assert '\t[[!img image1.jpg size="200x200" alt="clouds"]]' in text
    assert "\\[[" not in text
    assert "\\[[!img" in parse("notes.md", page).text  # plain Markdown keeps it


def test_a_meta_title_on_the_first_line_is_the_page_s_title() -> None:
    """ikiwiki shows `[[!meta title="OpenID"]]` as the page's title (2 of its 99 English
    pages open with one; they had been `(untitled)`)."""
    page = '[[!meta title="OpenID"]]\n\nThis wiki can sign in with OpenID.\n'
    assert content_title(page) == "OpenID"
    assert content_title('[[!meta title=""]]\n\nText.\n') == UNTITLED
    assert content_title(f'[[!meta title="{"x" * 300}"]]\n\nText.\n') == UNTITLED
