"""A converted list or table of many lines costs time linear in its lines.

`MarkdownWriter.line` adds a list item or table row to the block the lines before it
started, and every format writes its lists and tables through it (HTML, Word, ODF,
PowerPoint, Excel, reST, man pages). It added each line to the block's string, copying
the block every time: an HTML table of 100,000 rows (3.9 MB, under the 20 MB file cap)
took 16.6 s of a parse worker where 25,000 took 0.31 s, and a man page of 400,000
option paragraphs 162 s. 4× the lines must cost about 4× the time.
"""

from __future__ import annotations

from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.loaders import parse
from tests.support.growth import GROWTH_LIMIT, growth_ratio


def _table(rows: int) -> bytes:
    cells = "<tr><td>cell a</td><td>cell b</td></tr>" * rows
    return f"<html><body><table>{cells}</table></body></html>".encode()


def test_an_html_table_of_many_rows_converts_in_linear_time() -> None:
    text = parse("t.html", _table(10)).text
    assert text.count("| cell a | cell b |") == 10  # every row kept, one block

    # ≈ 4 when linear, 16 and more when quadratic (21.6 before the fix). The 100,000 rows
    # are parsed once and the 25,000 the best of three; a ratio at the limit is measured
    # again, as test_regex_linear's are (a busy machine can stretch one run).
    measured = growth_ratio(lambda data: parse("t.html", data), _table(25_000), _table(100_000))
    assert measured < GROWTH_LIMIT, measured


def test_the_writer_keeps_every_line_of_an_open_block_whenever_it_is_read() -> None:
    writer = MarkdownWriter()
    writer.line("- one")
    writer.line("- two")
    assert writer.blocks == ["- one\n- two"]  # read while the list is still open
    writer.line("- three")
    writer.paragraph("After the list.")
    assert writer.text() == "- one\n- two\n- three\n\nAfter the list."
    assert writer.origins() == [None, None, None, None, None]
    other = MarkdownWriter()
    other.line("| a |")
    other.line("| b |")
    writer.extend(other)
    writer.line("- four")  # a new block: extend ends the lines
    assert writer.blocks[-3:] == ["After the list.", "| a |\n| b |", "- four"]
