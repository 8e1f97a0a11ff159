"""Delimited data, `.csv` and `.tsv` (scikit-learn's bundled datasets, held out as nu70a,
beside the reST pages that describe them): no default pattern had named them, so a folder
of data and its descriptions was read without its data, and "what columns does the Boston
house prices file have?" had nothing to answer from (newuser70). Now each file is read as
the one-sheet table a spreadsheet program shows (formats.delimited)."""

from __future__ import annotations

import pytest

from ragd.core.config import DEFAULT_INCLUDE
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import SkipFile, parse

# Written here in the shape of a dataset file: a first line of counts (as scikit-learn's
# are) over a header and rows, a quoted field holding the separator, a line break and a
# `|`, and an empty record.
PORTS = (
    b"4,3,,\n"
    b"port,country,berths,note\n"
    b'Harwich,UK,12,"ferries, ro-ro"\n'
    b'Esbjerg,DK,9,"wind farm\nservice | supply"\n'
    b",,,\n"
    b"Cuxhaven,DE,7,\n"
)


def test_delimited_files_are_indexed_by_default() -> None:
    include = PathFilter(DEFAULT_INCLUDE)
    assert include.includes("datasets/data/boston_house_prices.csv")
    assert include.includes("exports/tides.tsv")
    assert include.includes("datasets/data/digits.csv.gz")


def test_a_csv_is_read_as_a_table_each_line_citing_its_record() -> None:
    document = parse("ports.csv", PORTS)
    lines = document.text.splitlines()
    assert lines[0] == "# ports"
    assert "| port | country | berths | note |" in lines
    assert "| Harwich | UK | 12 | ferries, ro-ro |" in lines
    # a quoted field's separator, line break and bar are its text, not the table's
    assert "| Esbjerg | DK | 9 | wind farm service / supply |" in lines
    assert "| Cuxhaven | DE | 7 |" in lines  # the empty record is no line
    (chunk,) = chunk_document(document)
    assert chunk.heading_path == "ports"
    assert chunk.lines == (1, 7)  # the file's lines, the record over two lines counted


def test_the_separator_is_found_semicolons_tabs_and_spaces_too() -> None:
    semicolons = parse("tides.csv", b"time;height\n06:12;4,1\n18:40;3,9\n").text
    assert "| 06:12 | 4,1 |" in semicolons  # a decimal comma is no separator here
    spaces = parse("linnerud.csv", b"Chins Situps Jumps\n5 162  60\n2 110 60\n").text
    assert "| 5 | 162 | 60 |" in spaces
    tabs = parse("berths.tsv", b"quay\tlength, m\nNorth\t220\n").text
    assert "| quay | length, m |" in tabs


def test_a_long_table_repeats_its_header_in_each_block() -> None:
    rows = b"".join(b"%d,%d,berth %d\n" % (n, n * 7, n) for n in range(400))
    text = parse("berths.csv", b"number,length,name\n" + rows).text
    assert text.count("| number | length | name |") > 2


def test_the_header_repeated_is_the_column_names_not_a_line_of_counts_above() -> None:
    rows = b"".join(b"%d,%d,berth %d\n" % (n, n * 7, n) for n in range(400))
    text = parse("berths.csv", b"400,3,,\nnumber,length,name\n" + rows).text
    assert text.count("| 400 | 3 |") == 1  # written once, where it is
    assert text.count("| number | length | name |") > 2


def test_a_field_past_csv_s_limit_is_one_clear_line() -> None:
    data = b'name,text\nlong,"' + b"x" * 200_000 + b'"\n'
    with pytest.raises(SkipFile, match="unreadable CSV"):
        parse("huge.csv", data)
