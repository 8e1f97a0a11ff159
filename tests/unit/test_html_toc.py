"""A table of contents is navigation, not text, and a nested list keeps its nesting.

The Debian Reference's DocBook pages (nu21) open each chapter with its own contents, and
its index page is one: those chunks ranked in the top five for 14 of 30 questions, and a
bare contents line ("2.7.9. Limiting download bandwidth for APT") was quoted as the
answer. Every line of a contents list is a heading the page (or a sibling page) holds
where it heads its section. A nested list was written flat, so an answer could not tell
"Crash-in-GDB approach:" from the steps under it."""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SkipFile
from ragd.ingest.formats import convert
from ragd.ingest.formats.html import is_section_link, parse
from ragd.query.units import units_of

# DocBook XSL's shape (as debian-reference 2.100 has it), shortened.
DOCBOOK = b"""<html><head><title>Chapter 2. Debian package management</title></head><body>
<div class="navheader"><table summary="Navigation header">
<tr><th colspan="3">Chapter 2. Debian package management</th></tr>
<tr><td><a accesskey="p" href="ch01.en.html">Prev</a></td>
<td><a href="ch03.en.html">Next</a></td></tr>
</table></div>
<div class="chapter"><div class="titlepage">
<h1 class="title">Chapter 2. Debian package management</h1></div>
<div class="toc"><p><strong>Table of Contents</strong></p>
<dl class="toc">
<dt><span class="section">
<a href="ch02.en.html#_tips">2.7. Tips for the package management</a></span></dt>
<dd><dl><dt><span class="section">
<a href="ch02.en.html#_bw">2.7.9. Limiting download bandwidth for APT</a></span>
</dt></dl></dd>
</dl></div>
<div class="list-of-tables"><p><b>List of Tables</b></p><dl>
<dt>2.1. <a href="ch02.en.html#listofpm">List of package management tools</a></dt></dl></div>
<div class="section"><h2 class="title">2.7. Tips for the package management</h2>
<div class="section"><h3 class="title">2.7.9. Limiting download bandwidth for APT</h3>
<p>If you want to limit the download bandwidth for APT, configure it as the following.</p>
<pre class="screen">APT::Acquire::http::Dl-Limit "800";</pre>
</div></div></div>
<div class="navfooter"><table summary="Navigation footer">
<tr><td>Chapter 1. GNU/Linux tutorials</td><td>Chapter 3. The system initialization</td></tr>
</table></div>
</body></html>
"""


def test_a_docbook_chapters_contents_and_nav_bars_are_not_text() -> None:
    doc = parse("ch02.en.html", DOCBOOK)
    for chrome in ("Table of Contents", "List of Tables", "List of package management tools"):
        assert chrome not in doc.text
    assert "Chapter 1. GNU/Linux tutorials" not in doc.text  # the Prev/Next bar
    assert "Chapter 3. The system initialization" not in doc.text
    # The contents' lines are still there as what they always were: headings.
    assert doc.text.count("2.7.9. Limiting download bandwidth for APT") == 1
    chunks = chunk_document(doc)
    assert all("Limiting download bandwidth" not in chunk.text for chunk in chunks)
    (setting,) = [c for c in chunks if "Dl-Limit" in c.text]
    assert setting.heading[-1] == "2.7.9. Limiting download bandwidth for APT"


SPHINX = b"""<html><head><title>Guide</title></head><body><div role="main">
<h1>Guide</h1>
<div class="toctree-wrapper compound"><p class="caption">Contents:</p>
<ul><li class="toctree-l1"><a class="reference internal" href="install.html">Installing</a></li>
<li class="toctree-l1">
<a class="reference internal" href="usage.html">Using the ferry</a></li></ul></div>
<div class="contents topic" id="on-this-page"><p class="topic-title">On this page</p>
<ul><li><a class="reference internal" href="#a">Tickets bought on board</a></li></ul></div>
<nav class="contents" id="toc" role="doc-toc"><ul><li><a href="#b">Pets aboard</a></li></ul></nav>
<p>Ferries leave from the harbour every hour.</p>
<div class="contents"><p>Doxygen wraps a whole page's text in a div of this class.</p></div>
</div></body></html>
"""


def test_sphinx_and_docutils_contents_are_not_text_but_a_contents_class_alone_is() -> None:
    doc = parse("guide.html", SPHINX)
    for chrome in ("Contents:", "Installing", "Using the ferry", "On this page", "Pets aboard"):
        assert chrome not in doc.text
    assert "Tickets bought on board" not in doc.text
    assert "Ferries leave from the harbour every hour." in doc.text
    assert "Doxygen wraps a whole page's text in a div of this class." in doc.text


LINK_LISTS = b"""<html><body><h1>Timetables</h1>
<ul><li><a href="#winter">Winter timetable</a></li>
<li>2. <a href="timetable.html#summer">Summer</a></li></ul>
<h2>See also</h2>
<ul><li><a href="https://harbour.example.org/fares">Harbour fares</a></li>
<li><a href="https://ferries.example.org/">Kestrel Sound Ferries</a></li></ul>
<ul><li><a href="#winter">Winter</a>: boats leave at nine</li>
<li><a href="#summer">Summer</a>: hourly</li></ul>
<ul><li><a href="../fares/index.html#child">Child fares</a></li>
<li><a href="../fares/index.html#dog">Dogs</a></li></ul>
<ul><li><a href="#only">A single in-page link</a></li></ul>
<h2 id="winter">Winter timetable</h2><p>Boats leave at nine.</p>
<h2><a name="summer"></a>Summer timetable</h2><p>Hourly.</p>
</body></html>
"""


def test_a_list_of_links_to_this_pages_sections_is_contents_other_link_lists_are_text() -> None:
    """By shape, without a class: every item only a link to an anchor of this page or a
    sibling page (numbers and punctuation around it allowed), two links at least. Links
    to other sites ("See also"), items that say something beside their link, links into
    another folder and a lone link stay the page's text."""
    text = parse("timetable.html", LINK_LISTS).text
    assert "- Winter timetable" not in text and "Summer\n" not in text
    assert "- Harbour fares" in text and "- Kestrel Sound Ferries" in text
    assert "- Winter: boats leave at nine" in text
    assert "- Child fares" in text and "- Dogs" in text
    assert "- A single in-page link" in text


# SQLite's cli.html (3.40.1), shortened: a list of options whose items are links into
# another page's sections, and the page's own list of its sections.
REFERENCE_LIST = b"""<html><body><h1>Command Line Shell For SQLite</h1>
<ul><li><a href="#intro">Getting Started</a></li>
<li><a href="cli.html#dotcmd">Special commands</a></li></ul>
<h2 id="intro">Getting Started</h2><p>Type sqlite3 at a shell prompt.</p>
<h2 id="dotcmd">Special commands</h2>
<p>The following additional compile-time options are recommended:</p>
<ul><li> <a href="compile.html#threadsafe">-DSQLITE_THREADSAFE=0</a>
</li><li> <a href="compile.html#have_zlib">-DSQLITE_HAVE_ZLIB</a>
</li><li> <a href="compile.html#enable_fts5">-DSQLITE_ENABLE_FTS5</a>
</li></ul>
</body></html>
"""


def test_a_list_of_links_into_another_pages_sections_is_the_pages_text() -> None:
    """A table of contents names sections the page holds, so its lines are there anyway;
    cli.html's recommended -D options link into compile.html, and dropped they were
    nowhere in cli.html's chunks. Only links to anchors this page holds make contents."""
    text = parse("cli.html", REFERENCE_LIST).text
    for option in ("-DSQLITE_THREADSAFE=0", "-DSQLITE_HAVE_ZLIB", "-DSQLITE_ENABLE_FTS5"):
        assert f"- {option}" in text
    assert "- Getting Started" not in text and "- Special commands" not in text
    assert text.count("Special commands") == 1  # its heading


@pytest.mark.parametrize(
    ("href", "section"),
    [
        ("#usage", True),
        ("ch02.en.html#_apt", True),
        ("ch02.en.html", False),
        ("#", False),
        ("https://example.org/page.html#usage", False),
        ("../api/x.html#y", False),
        ("/docs/x.html#y", False),
        ("mailto:a@example.org#x", False),
    ],
)
def test_a_section_link_is_an_anchor_here_or_on_a_sibling_page(href: str, section: bool) -> None:
    assert is_section_link(href) is section


def test_a_page_that_is_only_contents_has_no_text() -> None:
    """The book's index page, once its contents are navigation: a "no text" skip, which
    `rag status` lists apart from errors, not a heading indexed alone."""
    page = (
        b"<html><head><title>Debian Reference</title></head><body>"
        b'<div class="toc"><p>Table of Contents</p><dl class="toc">'
        b'<dt><a href="ch01.en.html#_x">1. GNU/Linux tutorials</a></dt>'
        b'<dt><a href="ch02.en.html#_y">2. Debian package management</a></dt></dl></div>'
        b"</body></html>"
    )
    with pytest.raises(SkipFile, match="HTML has no text"):
        convert("index.en.html", page)


NESTED = b"""<html><body><h1>12.5.3. Obtaining backtrace</h1>
<p>The backtrace can be obtained by gdb(1) using one of the following approaches:</p>
<ul><li><p>Crash-in-GDB approach:</p>
  <ul><li><p>Run the program from GDB.</p></li>
<li><p>Crash the program.</p></li>
  <li><p>Type "<code>bt</code>" at the GDB prompt.</p></li></ul></li>
<li><p>Crash-first approach:</p>
  <ul><li>Type "<code>ulimit -c unlimited</code>" to the shell prompt.</li>
  <li>Run the program from this shell prompt.</li></ul></li></ul>
<p>After the list.</p>
</body></html>
"""


def test_a_nested_list_keeps_its_nesting_and_its_items_their_sub_items() -> None:
    """The sub-items are indented under their item, as in Markdown, so the keyless answer
    reads "Crash-in-GDB approach:" with its three steps as one item (units.nests)."""
    doc = parse("ch12.en.html", NESTED)
    assert (
        "- Crash-in-GDB approach:\n"
        "  - Run the program from GDB.\n"
        "  - Crash the program.\n"
        '  - Type "bt" at the GDB prompt.\n'
        "- Crash-first approach:\n"
        '  - Type "ulimit -c unlimited" to the shell prompt.\n'
    ) in doc.text
    (chunk,) = chunk_document(doc)
    items = [u.text for u in units_of(chunk.text, " > ".join(chunk.heading)) if u.kind == "item"]
    assert items[0].startswith("Crash-in-GDB approach:\n")
    assert '- Type "bt" at the GDB prompt.' in items[0]
    assert items[1].startswith("Crash-first approach:\n")
    assert "ulimit -c unlimited" in items[1]


def test_deeply_nested_lists_grow_the_text_linearly() -> None:
    """review17: every item was indented two spaces per list around it, so 1,000 nested
    lists (27 KB of HTML, under the parser's depth limit) wrote 1 MB of text, nearly all
    spaces, and a file of such lists grew its text with the square of their depth. The
    indent stops growing at MAX_LIST_NESTING; the items keep their order and words."""
    depth = 1_000
    html = "<html><body><h1>T</h1>" + "<ul><li>step word" * depth + "</li></ul>" * depth
    data = (html + "</body></html>").encode()
    doc = parse("deep.html", data)
    assert len(doc.text) < 2 * len(data)
    assert doc.text.count("step word") == depth
    shallow = parse("shallow.html", b"<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li></ul>")
    assert "- a\n  - b\n    - c" in shallow.text
