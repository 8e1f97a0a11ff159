"""A built documentation page (Sphinx, MkDocs) is read as its text, not its furniture: the
navigation bars and sidebar ("Next topic", "Previous topic", "This Page", "Quick search")
and the "¶" permalinks after headings. Measured on the Debian Policy manual's HTML: 136 of
628 chunks were navigation, and took up to 4 of an answer's 5 sources."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SkipFile
from ragd.ingest.formats.html import parse

PAGE = b"""<!DOCTYPE html>
<html><head><title>4. Source packages</title></head><body>
<div class="related" role="navigation" aria-label="related navigation">
  <h3>Navigation</h3>
  <ul><li><a href="ch-binary.html">next</a></li><li><a href="index.html">Debian Policy</a></li></ul>
</div>
<div class="document"><div class="body" role="main">
<h1>4. Source packages<a class="headerlink" href="#sp" title="Permalink">\xc2\xb6</a></h1>
<p>A source package contains the source material.</p>
<h2>4.1. Standards conformance<a class="headerlink" href="#sc">\xc2\xb6</a></h2>
<p>Packages must state the <code>Standards-Version</code> they comply with.</p>
<dl><dt id="f">build()<a class="headerlink" href="#f">\xc2\xb6</a></dt><dd>Builds it.</dd></dl>
</div></div>
<div class="sphinxsidebar" role="navigation" aria-label="main navigation">
  <h3>Previous topic</h3><p><a href="ch-binary.html">3. Binary packages</a></p>
  <h3>This Page</h3><ul><li><a href="_sources/ch-source.rst.txt">Show Source</a></li></ul>
  <div id="searchbox" role="search"><h3>Quick search</h3></div>
</div>
<div class="footer" role="contentinfo">&#169; Copyright 1996-2023, Debian Policy.</div>
</body></html>
"""


def test_navigation_and_permalinks_are_not_text() -> None:
    doc = parse("ch-source.html", PAGE)
    for chrome in ("Navigation", "Previous topic", "This Page", "Show Source", "Quick search"):
        assert chrome not in doc.text
    assert "\u00b6" not in doc.text
    headings = {" > ".join(chunk.heading) for chunk in chunk_document(doc)}
    assert "4. Source packages > 4.1. Standards conformance" in headings


def test_the_pages_own_text_stays_with_its_lines() -> None:
    doc = parse("ch-source.html", PAGE)
    assert "A source package contains the source material." in doc.text
    assert "Standards-Version" in doc.text
    assert "build()" in doc.text and "Builds it." in doc.text
    assert "Copyright 1996-2023" in doc.text  # a footer is the page's, not navigation
    chunks = chunk_document(doc)
    located = [c for c in chunks if "Standards-Version" in c.text]
    assert located and located[0].lines is not None
    first, last = located[0].lines
    line = (
        PAGE.decode()
        .splitlines()
        .index("<p>Packages must state the <code>Standards-Version</code> they comply with.</p>")
    )
    assert first <= line + 1 <= last


DEFINITIONS = b"""<html><body><h1>Users</h1>
<dl>
<dt>0-99:</dt>
<dd><p>Globally allocated by the Debian project.</p><p>Never reused.</p></dd>
<dt>100-999:</dt>
<dd>
<p>Dynamically allocated system users and groups.</p>
</dd>
<dt>lonely term</dt>
<dt>listed</dt><dd><ul><li>one</li><li>two</li></ul></dd>
</dl>
<p>After.</p>
</body></html>
"""


def test_a_term_and_its_description_are_one_paragraph() -> None:
    """Debian Policy's UID ranges: the description was quoted without its range ("100-999:"),
    so the answer to "which UIDs are dynamic system users?" held no number."""
    doc = parse("users.html", DEFINITIONS)
    paragraphs = [p.strip() for p in doc.text.split("\n\n")]
    assert "0-99:: Globally allocated by the Debian project." not in paragraphs
    assert "100-999: Dynamically allocated system users and groups." in paragraphs
    assert "Never reused." in paragraphs
    assert "lonely term" in paragraphs and "listed" in paragraphs
    assert "- one" in doc.text and "After." in paragraphs
    chunk = next(c for c in chunk_document(doc) if "100-999" in c.text)
    assert chunk.lines is not None
    line = DEFINITIONS.decode().splitlines().index("<dt>100-999:</dt>") + 1
    assert chunk.lines[0] <= line <= chunk.lines[1]


def test_a_glossary_of_unclosed_terms_is_read_not_skipped() -> None:
    """`</dt>` may be left out, and a browser closes a term at the next one; libxml2 nests
    each unclosed `<dt>` inside the one before. A page listing 300 terms that way (or
    300 unclosed `<font>`s, as old editors wrote) was 300 elements deep, past libxml2's
    default limit of 256, and the whole page was skipped: "HTML nested deeper than the
    parser's limit". The parser now allows 2,048 levels, as its own option for large
    documents does; deeper still is skipped, as before."""
    terms = b"".join(b"<dt>term%d\n" % n for n in range(1000))
    doc = parse("glossary.html", b"<html><body><h1>Glossary</h1><dl>\n" + terms + b"</dl>")
    assert "term0" in doc.text and "term999" in doc.text
    fonts = b"<font size=2>" * 300 + b"Ferries leave at nine."
    assert "Ferries leave at nine." in parse("old.html", b"<html><body>" + fonts).text
    with pytest.raises(SkipFile, match="nested deeper than the parser's limit"):
        parse("deep.html", b"<html><body>" + b"<div>" * 3000 + b"x")


# SQLite's documentation generator wraps each page's banner, menu and search box in
# `div.nosearch`: as text it was a chunk of its own on every page (762 of nu28's 7,313).
SQLITE_PAGE = b"""<!DOCTYPE html>
<html><head><title>UPSERT</title></head><body>
<div class=nosearch>
<a href="index.html"><img class="logo" src="images/banner.gif" alt="SQLite"></a>
<div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div>
<div class="menu mainmenu"><ul>
<li><a href="index.html">Home</a>
<li class='wideonly'><a href='about.html'>About</a>
<li class='desktoponly'><a href="docs.html">Documentation</a>
</ul></div>
</div>
<h1 align="center">UPSERT</h1>
<p>UPSERT is a clause added to INSERT that causes the INSERT to behave as an UPDATE.</p>
</body></html>
"""


def test_what_the_page_marks_nosearch_is_not_text() -> None:
    doc = parse("lang_upsert.html", SQLITE_PAGE)
    for chrome in ("Small. Fast. Reliable.", "Choose any three", "Home", "Documentation"):
        assert chrome not in doc.text
    assert "causes the INSERT to behave as an UPDATE" in doc.text
    assert [chunk.heading for chunk in chunk_document(doc)] == [("UPSERT",)]


# SQLite's syntax pages (3.40.1), shortened: a railroad diagram is inline SVG whose <text>
# elements are the statement's keywords, with a tooltip (<title>) a browser does not show.
DIAGRAM = b"""<html><body><h1>create-table-stmt:</h1>
<div class="imgcontainer">
<svg xmlns='http://www.w3.org/2000/svg' class="pikchr" viewBox="0 0 718 315">
<title>The railroad diagram of CREATE TABLE</title>
<circle cx="5" cy="17" r="3.6"/>
<text x="74" y="17" text-anchor="middle">CREATE</text>
<text x="183" y="41" text-anchor="middle">TEMP</text>
<path d="M9,17L44,17"/>
<text x="345" y="17">TABLE</text>
<text x="431" y="17"><tspan>IF</tspan> <tspan>NOT</tspan></text>
<text x="485" y="17">EXISTS</text>
<style>text { font: 12px monospace }</style>
</svg>
</div>
<p>Used by: sql-stmt</p>
</body></html>
"""


def test_the_words_of_an_svg_diagram_are_text_its_tooltip_is_not() -> None:
    """A browser shows an inline SVG's <text>: in SQLite's syntax pages the keywords of
    every statement (CREATE, TEMP, IF NOT EXISTS), which were nowhere in the index."""
    doc = parse("create-table-stmt.html", DIAGRAM)
    assert "CREATE TEMP TABLE IF NOT EXISTS" in doc.text
    assert "railroad diagram" not in doc.text and "monospace" not in doc.text
    assert doc.text.index("EXISTS") < doc.text.index("Used by: sql-stmt")
    (chunk,) = chunk_document(doc)
    assert chunk.heading == ("create-table-stmt:",) and "CREATE TEMP" in chunk.text


# SQLite's doclist.html (3.40.1), shortened: its heading opens with <h2> and closes with
# </h1>. libxml2 ignores the stray end tag, so the heading held the rest of the page; a
# browser ends the heading there.
UNCLOSED_HEADING = b"""<html><head><title>Document List</title></head><body>
<h2 align=center>Alphabetical List Of Documents</h1>
<var class="rightsidebar">See Also:
<ul><li><a href="docs.html">Categorical Document List</a>
<li><a href="books.html">Books About SQLite</a></ul></var>
<ol>
<li><a href="fasterthanfs.html">35% Faster Than The Filesystem</a></li>
<li><a href="shortnames.html">8+3 Filenames</a></li>
</ol>
<h3>After</h3><p>Last words.</p>
</body></html>
"""


def test_a_heading_closed_by_the_wrong_end_tag_ends_where_a_browser_ends_it() -> None:
    """The page was one heading, too long to be one (cut at TITLE_MAX_CHARS), and a page
    of headings alone is "no text": doclist.html was skipped, keyword_index.html's 8,142
    words of keywords were in no chunk. The heading ends at the first block it holds."""
    doc = parse("doclist.html", UNCLOSED_HEADING)
    assert "## Alphabetical List Of Documents\n" in doc.text
    assert "- 35% Faster Than The Filesystem\n- 8+3 Filenames" in doc.text
    assert "See Also:" in doc.text and "- Books About SQLite" in doc.text
    chunks = chunk_document(doc)
    assert [c.heading[-1] for c in chunks] == ["Alphabetical List Of Documents", "After"]
    assert "Last words." in chunks[-1].text


# rustdoc (Rust 1.95's std docs) writes a copy button into every item page's h1, and a
# "§" permalink into each h2; a browser shows the button as a control, not as words of
# the title.
RUSTDOC = b"""<html><head><title>HashMap in std::collections - Rust</title></head><body>
<main><div class="main-heading"><h1>Struct <span class="struct">HashMap</span>&nbsp;<button
 id="copy-path" title="Copy item path to clipboard">Copy item path</button></h1></div>
<p>A hash map implemented with quadratic probing and SIMD lookup.</p>
<h2 id="implementations" class="section-header">Implementations<a href="#implementations"
 class="anchor">\xc2\xa7</a></h2>
<pre>let map = HashMap::new();<button class="copy-button">Copy</button><script>x()</script></pre>
<p>Creates an empty map.</p>
</main></body></html>
"""


def test_a_button_in_a_heading_or_code_block_is_not_its_text() -> None:
    doc = parse("struct.HashMap.html", RUSTDOC)
    chunks = chunk_document(doc)
    assert {chunk.heading for chunk in chunks} >= {
        ("Struct HashMap",),
        ("Struct HashMap", "Implementations"),
    }
    assert "Copy item path" not in doc.text and "x()" not in doc.text
    assert "let map = HashMap::new();" in doc.text and "Copy\n" not in doc.text


# rustdoc since 1.78 opens each heading of a doc comment with its "§" permalink, class
# "doc-anchor" (the "anchor" of an item's heading is another class); other generators put
# a "#" or "🔗" link to the heading's own id into it. A link with words stays the heading's.
ANCHORED_HEADINGS = """<html><head><title>HashMap in std::collections - Rust</title></head>
<body><main><h1>Struct HashMap</h1>
<h2 id="examples"><a class="doc-anchor" href="#examples">\u00a7</a>Examples</h2>
<p>Basic usage, and \u00a7 <a href="#x">\u00a7</a> 3 of the terms stays.</p>
<h3 id="usage"><a href="#usage" aria-hidden="true">#</a> Usage <a href="#usage">\U0001f517</a></h3>
<p>Insert a key and read it back.</p>
<h3 id="faq"><a href="#faq">FAQ</a></h3>
<p>Questions asked often.</p>
</main></body></html>
""".encode()


def test_a_wordless_link_to_an_anchor_in_a_heading_is_not_its_text() -> None:
    doc = parse("struct.HashMap.html", ANCHORED_HEADINGS)
    headings = {chunk.heading for chunk in chunk_document(doc)}
    assert headings >= {
        ("Struct HashMap", "Examples"),
        ("Struct HashMap", "Examples", "Usage"),
        ("Struct HashMap", "Examples", "FAQ"),
    }, headings
    assert not any(c in "".join(map(str, headings)) for c in "\u00a7#\U0001f517"), headings
    assert "Basic usage, and \u00a7 \u00a7 3 of the terms stays." in doc.text, doc.text
