"""Manuals as Texinfo's HTML output (makeinfo, texi2any: GNU Aspell's manual in Debian 12's
aspell-doc, held out as nu61a): one page a node, each with a "Next: …, Previous: …, Up: …
[Contents]" bar above it and, when the node is long, below it too. Read as text, the bar
was a chunk of its own on each of the manual's 60 pages (62 of its 323 chunks), and the
last chunk of a long page ended with it (newuser61)."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.html import parse

# The shape makeinfo (Texinfo 5.2) writes; texi2any 7 names the bar `div.nav-panel`.
NODE = b"""<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<html><head>
<title>Tide Tables 2.1: Reading the Almanac</title>
<meta name="Generator" content="makeinfo">
<link href="Harbour-Charts.html#Harbour-Charts" rel="next" title="Harbour Charts">
</head>
<body lang="en">
<a name="Reading-the-Almanac"></a>
<div class="header">
<p>
Next: <a href="Harbour-Charts.html#Harbour-Charts" accesskey="n" rel="next">Harbour
Charts</a>, Previous: <a href="Moon-Phases.html#Moon-Phases" accesskey="p" rel="prev">Moon
Phases</a>, Up: <a href="Using-Tides.html#Using-Tides" accesskey="u" rel="up">Using
Tides</a> &nbsp; [<a href="index.html#SEC_Contents" title="Table of contents"
rel="contents">Contents</a>]</p>
</div>
<hr>
<h3 class="section">2.4 Reading the Almanac</h3>
<p>Each row of the almanac gives the slack water time for one quay.</p>
<p>Spring tides follow the full moon by about two days.</p>
<hr>
<div class="nav-panel">
<p>
Next: <a href="Harbour-Charts.html" accesskey="n" rel="next">Harbour Charts</a>, Up:
<a href="Using-Tides.html" accesskey="u" rel="up">Using Tides</a></p>
</div>
</body></html>
"""


def test_texinfo_s_next_previous_up_bar_is_not_the_node_s_text() -> None:
    document = parse("Reading-the-Almanac.html", NODE)
    chunks = chunk_document(document)
    assert "Harbour" not in document.text and "Previous" not in document.text
    assert [c.heading_path for c in chunks] == [
        "Tide Tables 2.1: Reading the Almanac > 2.4 Reading the Almanac"
    ]
    assert chunks[0].text.rstrip().endswith("about two days.")


def test_a_header_that_holds_a_heading_or_no_node_links_is_text() -> None:
    """ "header" is a common class: Doxygen's `div.header` holds the page's title, and a
    site's may hold its words; only makeinfo's bar of `rel` links is left out."""
    page = b"""<html><head><title>t</title></head><body>
<div class="header"><h1>Quay Registry</h1><p>Kept by the <a href="up.html" rel="up">harbour
office</a>.</p></div>
<div class="header"><p>Moorings are let by the season.</p></div>
<p>Text.</p></body></html>"""
    text = parse("registry.html", page).text
    assert "Quay Registry" in text and "harbour office" in text
    assert "Moorings are let by the season." in text


TOP = b"""<html><head><title>Tide Tables 2.1</title>
<meta name="Generator" content="makeinfo"></head>
<body lang="en">
<h1 class="settitle" align="center">Tide Tables 2.1</h1>
<a name="SEC_Contents"></a>
<h2 class="contents-heading">Table of Contents</h2>

<div class="contents">
<ul class="no-bullet">
  <li><a name="toc-Using-Tides" href="Using-Tides.html#Using-Tides">2 Using Tides</a>
  <ul class="no-bullet">
    <li><a href="Reading-the-Almanac.html#Reading-the-Almanac">2.4 Reading the Almanac</a></li>
  </ul></li>
</ul>
</div>
<a name="Top"></a>
<h1 class="top">Tide Tables 2.1</h1>
<p>This manual tells when the harbour floods.</p>
</body></html>
"""


def test_texinfo_s_table_of_contents_is_not_text() -> None:
    """The Top page's `div.contents`, every node's title again after an
    `h2.contents-heading`: 3 chunks of Aspell's manual's `index.html`, retrieved among the
    first ten for a question a node answers."""
    text = parse("index.html", TOP).text
    assert "Reading the Almanac" not in text and "Table of Contents" not in text
    assert "This manual tells when the harbour floods." in text


def test_a_contents_div_without_texinfo_s_heading_is_text() -> None:
    """Doxygen writes a page's whole body in a `div.contents`."""
    page = b"""<html><head><title>Quay</title></head><body>
<h2 class="groupheader">Members</h2>
<div class="contents"><p>The quay's berths are numbered from the north.</p></div>
</body></html>"""
    assert "numbered from the north" in parse("quay.html", page).text
