"""Javadoc's member tables are tables (newuser54).

Since JDK 16 javadoc writes a class page's summaries (fields, constructors, methods), the
constant values page and the class and package indexes as a CSS grid: a
`div.summary-table` whose cells are sibling `div`s, three (or two, or four) to a row,
which the page's stylesheet lays out as a table. Read as blocks, each cell was a paragraph
of its own, so a method's name, its return type and what it does were three paragraphs
("static boolean" / "isBlank(CharSequence cs)" / "Checks if a CharSequence is empty …"), a
chunk of the summary could open with the description of a method named in the chunk
before, and the constant values page had `INDEX_NOT_FOUND` and its value `-1` two
paragraphs apart (Apache Commons Lang 3.12.0, 127 such grids on the 53 class pages and
the indexes of `org.apache.commons.lang3`).
"""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.formats.html import parse

PAGE = b"""<!DOCTYPE html>
<html lang="en"><head><title>SerializationUtils (Apache Commons Lang 3.12.0 API)</title>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body>
<main role="main">
<h1 title="Class SerializationUtils" class="title">Class SerializationUtils</h1>
<section class="method-summary" id="method-summary">
<h2>Method Summary</h2>
<div id="method-summary-table">
<div class="table-tabs" role="tablist">
<button id="t0" role="tab" class="active-table-tab">All Methods</button></div>
<div id="method-summary-table.tabpanel" role="tabpanel">
<div class="summary-table three-column-summary">
<div class="table-header col-first">Modifier and Type</div>
<div class="table-header col-second">Method</div>
<div class="table-header col-last">Description</div>
<div class="col-first even-row-color"><code>static &lt;T extends Serializable&gt;<br>T</code></div>
<div class="col-second even-row-color"><code><a href="#clone(T)"
class="member-name-link">clone</a><wbr>(T&nbsp;object)</code></div>
<div class="col-last even-row-color">
<div class="block">Deep clone an <code>Object</code> using serialization.</div>
</div>
<div class="col-first odd-row-color"><code>static byte[]</code></div>
<div class="col-second odd-row-color"><code><a href="#serialize(java.io.Serializable)"
class="member-name-link">serialize</a><wbr>(Serializable&nbsp;obj)</code></div>
<div class="col-last odd-row-color">
<div class="block">Serializes an <code>Object</code> to a byte array.</div>
</div>
</div>
</div>
</div>
</section>
<section class="constants" id="constants">
<h2>Constant Field Values</h2>
<div class="caption"><span>org.apache.commons.lang3.ArrayUtils</span></div>
<div class="summary-table two-column-summary">
<div class="table-header col-first">Constant Field</div>
<div class="table-header col-last">Value</div>
<div class="col-first even-row-color"><code>INDEX_NOT_FOUND</code></div>
<div class="col-last even-row-color"><code>-1</code></div>
</div>
</section>
</main></body></html>
"""


def test_a_javadoc_summary_grid_is_read_as_a_table_one_row_a_member() -> None:
    doc = parse("SerializationUtils.html", PAGE)
    lines = doc.text.splitlines()
    assert "| Modifier and Type | Method | Description |" in lines
    # the return type's line break is a space in its cell, not a cell of its own
    assert (
        "| static <T extends Serializable> T | clone(T object) "
        "| Deep clone an Object using serialization. |"
    ) in lines
    row = "| static byte[] | serialize(Serializable obj) | Serializes an Object to a byte array. |"
    assert row in lines
    assert "| INDEX_NOT_FOUND | -1 |" in lines
    assert "All Methods" not in doc.text  # the tabs above the grid are buttons
    (summary,) = [c for c in chunk_document(doc) if "Deep clone" in c.text]
    assert summary.heading[-1] == "Method Summary" and "clone(T object)" in summary.text


def test_a_grid_row_keeps_the_lines_of_its_cells() -> None:
    doc = parse("SerializationUtils.html", PAGE)
    chunks = chunk_document(doc)
    (constants,) = [c for c in chunks if "INDEX_NOT_FOUND" in c.text]
    assert constants.lines is not None
    source = PAGE.decode().splitlines()
    row = next(n for n, line in enumerate(source, 1) if "<code>INDEX_NOT_FOUND</code>" in line)
    assert constants.lines[0] <= row <= constants.lines[1]


def test_a_div_of_the_class_summary_table_without_a_column_count_stays_blocks() -> None:
    """Only javadoc's grid, which names its column count, is read as rows: a page's own
    `summary-table` of paragraphs is not cut into cells."""
    page = (
        b"<html><body><h1>Notes</h1><div class='summary-table'>"
        b"<div>First paragraph.</div><div>Second paragraph.</div></div></body></html>"
    )
    doc = parse("notes.html", page)
    assert "First paragraph.\n\nSecond paragraph." in doc.text
    assert "|" not in doc.text
