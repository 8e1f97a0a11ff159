"""Doxygen's pages read as a browser shows them (newuser55).

Doxygen writes a page's title ("Json::CharReaderBuilder Class Reference") as a `div.title`,
not a heading, and its member groups and members as ``h2``: every section of a class page
was "Public Member Functions" alone, of whichever class, and a page without `<title>`
(Debian's JsonCpp 1.9.5 header has none) opened with a chunk headed by its first line. Its
banner (`div#top`: the project's header, menus, breadcrumbs), its header's links to the
page's member groups, its footer ("Generated on … by doxygen") and its code tooltips
(`div.ttc`, hidden by its stylesheet) were read as the page's text, and a code listing
(`div.fragment`, one `div.line` a line) was one paragraph a line.
"""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.html import parse

PAGE = b"""<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "x">
<html xmlns="http://www.w3.org/1999/xhtml">
<head><meta http-equiv="Content-Type" content="text/xhtml;charset=UTF-8"/></head>
<body>
<div id="top">
<div id="titlearea"><table><tr><td>Harbour 2.1</td></tr></table></div>
<table width="100%"><tr><td><a href="https://example.org">Harbour project page</a></td>
<td><a href="hierarchy.html">Classes</a></td></tr></table>
<div id="nav-path" class="navpath"><ul>
<li class="navelem"><a class="el" href="namespace_sea.html">Sea</a></li>
<li class="navelem"><a class="el" href="class_sea_1_1_ferry.html">Ferry</a></li></ul>
</div>
</div>
<div class="header">
  <div class="summary">
<a href="#pub-methods">Public Member Functions</a> &#124;
<a href="class_sea_1_1_ferry-members.html">List of all members</a>  </div>
  <div class="headertitle">
<div class="title">Sea::Ferry Class Reference</div>  </div>
</div>
<div class="contents">
<p>A ferry that carries cars across the bay.</p>
<table class="memberdecls">
<tr class="heading"><td colspan="2"><h2 class="groupheader"><a name="pub-methods"></a>
Public Member Functions</h2></td></tr>
<tr><td class="memItemLeft">bool&#160;</td><td class="memItemRight">board (int cars)</td></tr>
</table>
<h2 class="memtitle">leave()</h2>
<table class="mlabels"><tr><td class="mlabels-left">void Sea::Ferry::leave ()</td>
<td class="mlabels-right"><span class="mlabels"><span class="mlabel">override</span>\
<span class="mlabel">default</span></span></td></tr></table>
<h2 class="groupheader">Detailed Description</h2>
<p>Boarding closes ten minutes before departure.</p>
<div class="fragment"><div class="line"><a class="code" href="class_sea_1_1_ferry.html">\
Sea::Ferry</a> ferry;</div>
<div class="line">ferry.board(12);</div><div class="line">  ferry.leave();</div>
</div><div class="ttc" id="aclass_sea_1_1_ferry_html"><div class="ttname">\
<a href="class_sea_1_1_ferry.html">Sea::Ferry</a></div>
<div class="ttdoc">A ferry that carries cars.</div>
<div class="ttdef"><b>Definition:</b> \
<a href="ferry_8h_source.html#l00012">ferry.h:12</a></div></div>
</div>
<hr class="footer"/><address class="footer"><small>
Generated on Wed Mar 30 2022 07:20:36 for Harbour by &#160;<a href="http://www.doxygen.org/index.html">
<img class="footer" src="doxygen.png" alt="doxygen"/></a> 1.9.1
</small></address>
</body>
</html>
"""


def test_a_doxygen_page_s_title_heads_its_sections() -> None:
    chunks = chunk_document(parse("class_sea_1_1_ferry.html", PAGE))
    assert chunks[0].heading == ("Sea::Ferry Class Reference",)
    assert chunks[0].text.startswith("A ferry that carries cars across the bay.")
    (members,) = [c for c in chunks if "board (int cars)" in c.text]
    assert members.heading == ("Sea::Ferry Class Reference", "Public Member Functions")


def test_doxygen_s_banner_breadcrumbs_footer_and_tooltips_are_not_the_page_s_text() -> None:
    text = parse("class_sea_1_1_ferry.html", PAGE).text
    for chrome in (
        "Harbour project page",  # the project's own header template, in `div#top`
        "Harbour 2.1",  # the title area
        "Sea Ferry",  # nor the breadcrumbs
        "List of all members",  # the header's links to the member groups
        "Generated on",  # the footer
        "ferry.h:12",  # the tooltip of `Sea::Ferry` in the code
        "A ferry that carries cars.",
    ):
        assert chrome not in text.replace("\n", " ").replace("- ", ""), chrome
    assert "Boarding closes ten minutes before departure." in text


def test_a_doxygen_code_listing_is_one_code_block_a_line_a_line() -> None:
    text = parse("class_sea_1_1_ferry.html", PAGE).text
    assert "```\nSea::Ferry ferry;\nferry.board(12);\n  ferry.leave();\n```" in text


def test_a_source_listing_s_line_numbers_stand_apart_from_the_code() -> None:
    """Doxygen 1.9.4 writes a source page's line number (`span.lineno`) with nothing after
    it: SDL's listings read "94typedef int SDL_SpinLock;" (r58). 1.9.1's no-break space
    stays as it was."""
    page = b"""<html><head><title>Harbour: ferry.h Source File</title></head><body>
<div class="contents"><div class="fragment">\
<div class="line"><a id="l00093" name="l00093"></a><span class="lineno">   93</span>\
<span class="comment">/* berths */</span></div>
<div class="line"><a id="l00094" name="l00094"></a><span class="lineno">   94</span>\
<span class="keyword">typedef</span> <span class="keywordtype">int</span> Berth;</div>
<div class="line"><a name="l00095"></a><span class="lineno">   95</span>&#160;Berth next;</div>
</div></div></body></html>"""
    text = parse("ferry_8h_source.html", page).text
    assert "```\n   93 /* berths */\n   94 typedef int Berth;\n   95\xa0Berth next;\n```" in text


def test_doxygen_s_member_labels_are_words_apart() -> None:
    text = parse("class_sea_1_1_ferry.html", PAGE).text
    assert "override default" in text and "overridedefault" not in text


def test_a_slide_s_fragment_of_paragraphs_is_no_code_listing() -> None:
    """reveal.js shows a slide's steps one by one as `div.fragment`s of paragraphs and
    lists: read as Doxygen's listings they were code, and a list's items ran into the
    paragraph before them, "every hour.CheapFast" (attack56)."""
    page = b"""<html><head><title>Talk</title></head><body><section><h2>Why ferries</h2>
<div class="fragment"><p>Ferries cross every hour.</p><ul><li>Cheap</li><li>Fast</li></ul></div>
</section></body></html>"""
    text = parse("talk.html", page).text
    assert "```" not in text
    assert "Ferries cross every hour.\n\n- Cheap\n- Fast" in text


def test_the_icons_of_doxygen_s_lists_do_not_run_into_the_names() -> None:
    """Doxygen's class list draws each kind as a letter in a box (`span.icon`: "C", "N")
    and its tree as arrows, before the name: "CSDL_AssertData", "▼NJson" was the text,
    and its "[detail level 123]" buttons a line of it (attack56)."""
    page = b"""<html><head><title>Harbour: Class List</title></head><body>
<div class="textblock">Here are the classes:</div>
<div class="directory"><div class="levels">[detail level <span>1</span><span>2</span>]</div>
<table class="directory">
<tr id="row_0_"><td class="entry"><span style="width:0px;display:inline-block;">&#160;</span>
<span id="arr_0_" class="arrow" onclick="toggleFolder('0_')">&#9660;</span><span class="icona">
<span class="icon">N</span></span><a class="el" href="namespace_sea.html">Sea</a></td>
<td class="desc">The bay</td></tr>
<tr id="row_0_0_"><td class="entry"><span class="icona"><span class="icon">C</span></span>
<a class="el" href="class_sea_1_1_ferry.html">Ferry</a></td><td class="desc">A ferry</td></tr>
</table></div></body></html>"""
    text = parse("annotated.html", page).text
    assert "| Sea | The bay |" in text and "| Ferry | A ferry |" in text, text
    assert "detail level" not in text and "NSea" not in text and "CFerry" not in text


def test_a_member_s_documentation_is_headed_under_its_group() -> None:
    """Doxygen writes a member group's heading and each member's title both as `h2`: the
    group's section held nothing but the next heading, a chunk of "Member Function
    Documentation" alone (330 of JsonCpp's and SDL's 6,522 chunks; attack56)."""
    page = b"""<html><body><div class="header"><div class="headertitle">
<div class="title">Sea::Ferry Class Reference</div></div></div><div class="contents">
<h2 class="groupheader">Member Function Documentation</h2>
<h2 class="memtitle"><span class="permalink"><a href="#a1">&#9670;&nbsp;</a></span>board()</h2>
<div class="memitem"><div class="memdoc"><p>Boards the ferry.</p></div></div>
<h2 class="memtitle"><span class="permalink"><a href="#a2">&#9670;&nbsp;</a></span>leave()</h2>
<div class="memitem"><div class="memdoc"><p>Leaves the berth.</p></div></div>
</div></body></html>"""
    chunks = chunk_document(parse("class_sea_1_1_ferry.html", page))
    assert [(c.heading, c.text) for c in chunks] == [
        (
            ("Sea::Ferry Class Reference", "Member Function Documentation", "board()"),
            "Boards the ferry.",
        ),
        (
            ("Sea::Ferry Class Reference", "Member Function Documentation", "leave()"),
            "Leaves the berth.",
        ),
    ]
