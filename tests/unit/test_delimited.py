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
from ragd.ingest.loaders import parse

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


def test_a_field_past_csv_s_limit_is_read_with_every_row() -> None:
    """`csv` refuses a field over 131,072 characters (its `field_size_limit`): a dataset
    whose text column holds a whole document (a manual's text, a WKT polygon) was read
    again with quotes as plain characters, the field cut at its commas into columns, or,
    with no separator in it, one "unreadable CSV" line, every row lost (readers73). Now
    the field is read whole, held to the caps on the file's size and extracted text as
    every field is."""
    chapter = "The tide turns at the north quay, twice a day. " * 4_000  # 188 KB
    data = (
        b"berth,notes\nnorth,short\n"
        + b'south,"'
        + chapter.encode()
        + b'"\neast,"ferries, ro-ro"\n'
    )
    document = parse("manual.csv", data)
    assert document.text.count("north quay") == 4_000
    assert "| north | short |" in document.text
    assert "| east | ferries, ro-ro |" in document.text
    assert not document.notes  # read as written, not again with quotes as characters
    word = parse("word.csv", b'name,text\nlong,"' + b"x" * 200_000 + b'"\nshort,y\n').text
    assert "x" * 200_000 in word and "| short | y |" in word


def test_a_sample_of_few_long_records_still_finds_the_comma() -> None:
    """A file of a few records each holding a long text leaves the separator's sample two
    records: counted by records, a `|` the text used on eight of its lines outvoted the
    comma, and the file was one column of its lines (Vim's help files, whose tags are
    `|name|`, written one a row; readers73). Records are weighed by the lines they hold."""
    help_text = "".join(f"See |tag{n}| and |other{n}| for line {n}.\n" for n in range(3000))
    data = b'file,text\nversion5.txt,"' + help_text.encode() + b'"\ntodo.txt,short\n'
    text = parse("help.csv", data).text
    assert "| file | text |" in text
    assert "| todo.txt | short |" in text
    assert "/tag2999/ and /other2999/" in text  # a `|` in a field is written `/`
    assert "| file | text |\n\n| file | text |" not in text  # not twice over a long row


def test_a_first_row_of_numbers_over_numbers_is_no_header() -> None:
    """A table of numbers has no header: its first row of measurements (scikit-learn's
    `breast_cancer.csv`, under a narrower line of counts; `digits.csv.gz`) had been
    repeated above each block as if it named the columns, 284 times in breast_cancer.csv
    (readers73). Column names over numbers are kept, and so is a header naming the years
    of its columns beside a name."""
    rows = b"".join(b"%d.5,%d,0.%03d,1e-%d,0x%x\n" % (n, n * 7, n, n, n) for n in range(400))
    text = parse("tides.csv", b"400,5,low,high\n" + rows).text
    assert text.count("| 0.5 | 0 | 0.000 | 1e-0 | 0x0 |") == 1
    assert text.count("| 400 | 5 | low | high |") == 1
    named = parse("tides.csv", b"height,depth,ratio,error,code\n" + rows).text
    assert named.count("| height | depth | ratio | error | code |") > 2
    years = parse("ports.csv", b"port,1990,2000\n" + b"Harwich,3,4\n" * 400).text
    assert years.count("| port | 1990 | 2000 |") > 2


def test_a_line_of_counts_as_wide_as_the_rows_is_no_header() -> None:
    """scikit-learn's `iris.csv` opens with `150,4,setosa,versicolor,virginica`: its
    counts of rows and measurements, then the names of its classes, as wide as the rows
    of numbers below. Not all numbers, it had been taken for the header and repeated
    above each block as if `150` named the sepal lengths (readers75). A record that opens
    with two numbers over columns of numbers counts, it names nothing; one that opens with
    one (a row number over the row numbers, tcllib's `000,VERSIONS:,1:8.4a3`) or with a
    word (numpy's `seed, 0xdeadbeaf`) still heads the blocks."""
    rows = b"".join(b"%d.1,%d.5,1.4,0.2,%d\n" % (n, n, n % 3) for n in range(400))
    text = parse("tides.csv", b"400,4,neap,spring,king\n" + rows).text
    assert text.count("| 400 | 4 | neap | spring | king |") == 1
    assert text.count("| 0.1 | 0.5 | 1.4 | 0.2 | 0 |") == 1
    versions = b"000,VERSIONS:,1:8.4a3,1:8.3.3\n" + b"".join(
        b"%03d,CATCH test %d,%d,%d\n" % (n, n, n, n * 2) for n in range(1, 300)
    )
    assert parse("bench.csv", versions).text.count("| 000 | VERSIONS: | 1:8.4a3 | 1:8.3.3 |") > 2
    seeded = b"seed, 0xdeadbeaf\n" + b"".join(b"%d, 0x%08x\n" % (n, n * 977) for n in range(400))
    assert parse("seed.csv", seeded).text.count("| seed | 0xdeadbeaf |") > 2


def test_records_end_at_any_line_end_a_lone_carriage_return_too() -> None:
    """An export from an old Mac program, or rows pasted from one, ends lines with `\\r`:
    the sample's records did not split (each separator's read failed), so the file was
    one column of `a,b` lines; past the sample, one such line made the whole file an
    "unreadable CSV" (review71)."""
    mixed = parse("mixed.csv", b"a,b\r\n1,2\r3,4\n5,6\r\n").text
    assert "| 3 | 4 |" in mixed and "| 5 | 6 |" in mixed
    rows = b"".join(b"%d,quay %d\n" % (n, n) for n in range(3000))
    late = parse("late.csv", b"number,name\n" + rows + b"7,pier seven\r8,pier eight\n").text
    assert "| 7 | pier seven |" in late and "| 8 | pier eight |" in late


def test_a_quote_never_closed_loses_no_rows() -> None:
    """A stray `"` that opens a field and never closes it swallowed the rest of the file
    into one field past `csv`'s limit: the whole file was one "unreadable CSV" line, its
    good rows lost; in the sample, it outvoted the comma (rows read as `| 0,quay | 0 |`)
    (review71). Now the file is read again with quotes as plain characters, and a note
    says why; the separator's sample is read both ways."""
    rows = b"".join(b"%d,quay %d\n" % (n, n) for n in range(20_000))
    late = parse("late.csv", b"number,name\n" + rows[:60_000] + b'2,"stray\n' + rows)
    assert "| 19999 | quay 19999 |" in late.text
    assert '| 2 | "stray |' in late.text
    assert any("quote" in note for note in late.notes), late.notes
    # in the sample that chooses the separator: the separator is still the comma
    early = parse("early.csv", b'number,name\n1,north\n2,"stray\n' + rows)
    assert "| 19999 | quay 19999 |" in early.text


@pytest.mark.parametrize(
    "header",
    [
        b",".join(b"column%05d" % i for i in range(5000)),  # 55 KB, wider than a block
        b",".join(b"c%03d" % i for i in range(180)),  # 900 characters, most of a block
    ],
)
def test_a_wide_header_is_not_repeated_more_than_the_rows_hold(header: bytes) -> None:
    """The header is repeated above each block of rows, and a row longer than what is
    left of a block starts one: a header of 55 KB over 1,000 rows of 1,000 characters
    (1 MB) wrote 71 MB of text, one header per row, past the daemon's cap on extracted
    text (which counts rows, not repeated headers); one of 900 characters over one-letter
    rows, a header per row too (review71). The text stays within a few times the file."""
    rows = [b"y" * 1000] * 200 if len(header) > 1000 else [b"y"] * 5000
    data = header + b"\n" + b"\n".join(rows) + b"\n"
    text = parse("wide.csv", data).text
    assert len(text) < 4 * len(data), (len(text), len(data))
