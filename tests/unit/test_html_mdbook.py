"""Books built by mdBook (the Rust project's books; Debian 12's `rust-doc` ships the
rustdoc book and the edition guide, held out as nu59b): every chapter page carries the
book's title in a menu bar, the whole table of contents in a sidebar and Previous/Next
links; the book also ships `print.html` (every chapter again on one page), redirect pages
for chapters that moved, and `searchindex.js` (the chapters' text again, as the search
box's JSON). Read as text, those were 873 of nu59b's 1,213 chunks (newuser59)."""

from __future__ import annotations

import pytest

from ragd.core.no_text import is_no_text
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SkipFile
from ragd.ingest.formats.html import parse
from ragd.ingest.loaders import parse as load

CHAPTER = b"""<!DOCTYPE HTML>
<html lang="en" class="sidebar-visible no-js light">
<head><meta charset="UTF-8"><title>Additions to the prelude - The Edition Guide</title></head>
<body>
<nav id="sidebar" class="sidebar" aria-label="Table of contents"><div class="sidebar-scrollbox">
<ol class="chapter"><li class="chapter-item">
<a href="../introduction.html">Introduction</a></li></ol>
</div></nav>
<div id="page-wrapper" class="page-wrapper"><div class="page">
<div id="menu-bar" class="menu-bar sticky bordered">
  <div class="left-buttons"><button id="theme-toggle" type="button">Themes</button></div>
  <h1 class="menu-title">The Edition Guide</h1>
  <div class="right-buttons"><a href="../print.html" title="Print this book">
  <i class="fa fa-print"></i></a></div>
</div>
<div id="content" class="content"><main>
<h1 id="additions-to-the-prelude"><a class="header" href="#additions-to-the-prelude">
Additions to the prelude</a></h1>
<h2 id="summary"><a class="header" href="#summary">Summary</a></h2>
<p>The TryInto, TryFrom and FromIterator traits are now part of the prelude.</p>
<pre><code class="language-rust"><span class="boring">#![allow(unused)]
</span><span class="boring">fn main() {
</span>let x: u8 = 300u16.try_into().unwrap_or(255);
<span class="boring">}
</span></code></pre>
</main>
<nav class="nav-wrapper" aria-label="Page navigation">
<a rel="prev" href="../rust-2021/index.html" class="mobile-nav-chapters previous"
 title="Previous chapter">Rust 2021</a>
</nav>
</div></div></div>
</body></html>
"""


def test_the_menu_bar_s_book_title_is_not_a_chunk_of_every_chapter() -> None:
    """mdBook's menu bar holds the book's title as an `h1`: on every chapter a chunk of
    nothing but "The Edition Guide" (39 of nu59b's 39 chapters), under a heading no
    citation should carry."""
    document = parse("prelude.html", CHAPTER)
    paths = [chunk.heading_path for chunk in chunk_document(document)]
    assert "The Edition Guide" not in document.text
    assert paths[0] == "Additions to the prelude > Summary"
    for chrome in ("Introduction", "Rust 2021", "Themes"):
        assert chrome not in document.text


def test_an_example_s_hidden_lines_are_not_its_text() -> None:
    """mdBook hides an example's `#`-prefixed lines (`span.boring`: the `fn main() {`
    wrapper, a test's setup) until the reader asks for them; read as text, every example
    opened with "#![allow(unused)] fn main() {", and the rustdoc book's "It will render
    like this:" showed the very line it says is hidden."""
    document = parse("prelude.html", CHAPTER)
    assert "let x: u8 = 300u16.try_into().unwrap_or(255);" in document.text
    for hidden in ("#![allow(unused)]", "fn main() {"):
        assert hidden not in document.text


def test_a_page_that_only_redirects_is_not_a_document() -> None:
    """A chapter that moved is left as a page a browser leaves at once (`meta` refresh
    after 0 s): 88 of the edition guide's 127 pages, each a chunk "Redirecting to…
    ../index.html" that matched questions about editions (support up to 0.86)."""
    stub = b"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Redirecting...</title>
<meta http-equiv="refresh" content="0;URL='../../../reference/macros-by-example.html'">
</head><body><p>Redirecting to... <a href="../../../reference/macros-by-example.html">
../../../reference/macros-by-example.html</a>.</p></body></html>"""
    with pytest.raises(SkipFile) as raised:
        parse("at-most-once.html", stub)
    assert is_no_text(str(raised.value))
    assert "../../../reference/macros-by-example.html" in str(raised.value)


def test_a_page_that_refreshes_later_or_inside_noscript_is_read() -> None:
    late = b"""<html><head><meta http-equiv="refresh" content="30"><title>Tides</title>
</head><body><h1>Tides</h1><p>High water is at noon.</p></body></html>"""
    assert "High water is at noon." in parse("tides.html", late).text
    fallback = b"""<html><head><title>Tides</title><noscript>
<meta http-equiv="refresh" content="0;url=plain.html"></noscript></head>
<body><h1>Tides</h1><p>High water is at noon.</p></body></html>"""
    assert "High water is at noon." in parse("tides.html", fallback).text


def test_the_print_page_is_not_a_document() -> None:
    """`print.html` repeats every chapter on one page (250 of nu59b's chunks, quoted in
    place of the chapters); mdBook marks it `noindex` and has it print itself on load."""
    printed = b"""<!DOCTYPE HTML><html lang="en"><head><meta charset="UTF-8">
<title>The rustdoc book</title><meta name="robots" content="noindex" /></head><body>
<main><h1>What is rustdoc?</h1><p>The standard Rust distribution ships with a tool.</p></main>
<script type="text/javascript">
window.addEventListener('load', function() { window.setTimeout(window.print, 100); });
</script></body></html>"""
    with pytest.raises(SkipFile) as raised:
        parse("print.html", printed)
    assert is_no_text(str(raised.value))
    kept = printed.replace(b'<meta name="robots" content="noindex" />', b"")
    assert "The standard Rust distribution ships with a tool." in parse("print.html", kept).text


@pytest.mark.parametrize(
    "head",
    [
        b'Object.assign(window.search, {"doc_urls":["index.html#intro"]',
        b'Search.setIndex({"docnames"',
    ],
)
def test_a_built_book_s_search_index_is_not_a_document(head: bytes) -> None:
    """mdBook's and Sphinx's `searchindex.js`: the book's text again as one line of JSON
    for the search box, 534 of nu59b's chunks (`(untitled)`, the best support of a02)."""
    data = head + b',"index":{"body":{"words":"the standard rust distribution"}}});\n'
    with pytest.raises(SkipFile) as raised:
        load("searchindex.js", data)
    assert is_no_text(str(raised.value))


def test_a_script_named_searchindex_of_one_s_own_is_code() -> None:
    code = b"export function searchIndex(words) {\n  return words.map(w => w.toLowerCase());\n}\n"
    assert "searchIndex" in load("searchindex.js", code).text
