"""Delimited data (``.csv``, ``.tsv``): the file read as the one-sheet table a spreadsheet
program shows when it opens it.

Its records are ``| a | b |`` table lines under a heading that is the file's name, in
blocks of about `xlsx.BLOCK_CHARS` that each start with its header record again (so a
chunk cut from the middle of a long table still says what its columns are): the first
record as wide as the widest of the first `SAMPLE_RECORDS`, not a line of counts above
the column names. So a spreadsheet's sheet is written (`xlsx.write_rows`); each line
cites the line of the file its record starts on. Python's `csv` module reads the records
(a state machine: linear, a quoted field over lines too). The separator of a `.tsv` is a
tab; a `.csv`'s is found on its first `SAMPLE_RECORDS` records: of `,` `;` tab `|` and a
space (a run of spaces one), the one that splits the most of them into the same number
of fields, two or more (a leading line of counts, `569,30,malignant,benign` over rows of
31 values, is outvoted). A file none of them splits is one column. Bounded as
spreadsheets are: the daemon's cap on extracted text (`max_text_mb`), `xlsx.MAX_CELLS`
cells and the daemon's limit on a file's size; a field is read whatever its length (a
long text or a WKT geometry in one cell), `csv`'s own limit on a field's size (131,072
characters) raised for the read to the file's size.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import islice
from pathlib import PurePath
from typing import Literal

from ragd.ingest.document import Document, SkipFile, decode_text
from ragd.ingest.formats.line_reader import markdown_document
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.xlsx import MAX_CELLS, TextCap, write_rows

FORMAT = "CSV"
CAPPED = True  # `parse` takes the daemon's cap on extracted text, as spreadsheets do
SAMPLE_RECORDS = 20  # records read to choose a `.csv`'s separator
SAMPLE_CHARS = 65_536  # … from at most this much of its start
SEPARATORS = (",", ";", "\t", "|", " ")  # in this order when two split as many records
Quoting = Literal[0, 3, -1]  # csv.QUOTE_MINIMAL, csv.QUOTE_NONE, STRICT
QUOTINGS: tuple[Quoting, ...] = (csv.QUOTE_MINIMAL, csv.QUOTE_NONE)  # a sample read both ways
STRICT: Quoting = -1  # quotes read as csv.QUOTE_MINIMAL, the file's end inside one an error


def parse(name: str, data: bytes, max_text_chars: int | None = None) -> Document:
    text, notes = decode_text(data)
    tab = PurePath(name).suffix.lower() == ".tsv"
    separator = "\t" if tab else _separator(text[:SAMPLE_CHARS])
    header = _header_row(text[:SAMPLE_CHARS], separator)
    try:
        writer = _table(name, text, separator, header, max_text_chars, csv.QUOTE_MINIMAL)
    except csv.Error:  # a field past csv's limit: a long one, or a quote never closed
        try:  # read whole, a quote never closed (the file ends inside it) an error
            with _field_limit(len(text)):
                writer = _table(name, text, separator, header, max_text_chars, STRICT)
        except csv.Error as exc:  # … which swallowed the rest: quotes as plain characters
            with _field_limit(len(text)):
                writer = _table(name, text, separator, header, max_text_chars, csv.QUOTE_NONE)
            notes = [*notes, f"{exc}: read again with quotes as plain characters"]
    return markdown_document(name, notes, writer)


@contextmanager
def _field_limit(chars: int) -> Iterator[None]:
    """`csv`'s limit on a field's size raised to `chars` while the block runs (the
    limit is the process's: the parse worker reads one file at a time)."""
    before = csv.field_size_limit()
    csv.field_size_limit(max(before, chars))
    try:
        yield
    finally:
        csv.field_size_limit(before)


def _table(
    name: str, text: str, separator: str | None, header: int, cap: int | None, quoting: Quoting
) -> MarkdownWriter:
    writer = MarkdownWriter()
    lines = _lines(text, separator, TextCap(cap), quoting)
    write_rows(PurePath(name).stem, lines, writer, header_row=header)
    return writer


def _records(
    text: str, separator: str | None, quoting: Quoting = csv.QUOTE_MINIMAL
) -> Iterator[tuple[int, list[str]]]:
    """Each record with the number of the line it starts on (a line ends at `\n`, `\r\n`
    or a lone `\r`, as `csv` reads them); with no separator each line is one field, as
    written."""
    if separator is None:
        for number, line in enumerate(text.splitlines(), start=1):
            yield number, [line]
        return
    reader = csv.reader(
        io.StringIO(text, newline=""),
        delimiter=separator,
        skipinitialspace=separator == " ",
        quoting=csv.QUOTE_NONE if quoting == csv.QUOTE_NONE else csv.QUOTE_MINIMAL,
        strict=quoting == STRICT,
    )
    start = 1
    for fields in reader:
        yield start, fields
        start = reader.line_num + 1


def _separator(sample: str) -> str | None:
    """The separator that splits the most of the sample's first records into the same
    number of fields (two or more); None if none splits any."""
    lines = _sample_lines(sample)
    best, votes = None, 0
    for separator in SEPARATORS:
        # read with quotes and without: a stray `"` that opens a field and never closes
        # it swallows the sample's later records into one field when quotes are read
        most = max(_votes(lines, separator, quoting) for quoting in QUOTINGS)
        if most > votes:
            best, votes = separator, most
    return best


def _votes(lines: str, separator: str, quoting: Quoting) -> int:
    """How many of the sample's lines its first records that `separator` splits into the
    same number of fields (two or more) hold (0 if `csv` cannot read the sample so): lines,
    not records, so that a table whose long quoted fields leave two records in the sample
    (a header over a field of 300 KB of text) outvotes a bar the text holds on 8 lines."""
    widths: Counter[int] = Counter()
    total = len(lines.splitlines())
    try:
        records = list(islice(_records(lines, separator, quoting), SAMPLE_RECORDS + 1))
    except csv.Error:  # a quote never closed in the sample: not this separator's file
        return 0
    ends = [start for start, _fields in records[1:]] + [total + 1]
    for (start, fields), end in zip(records[:SAMPLE_RECORDS], ends, strict=False):
        if len(fields) >= 2:
            widths[len(fields)] += max(end - start, 1)
    return max(widths.values(), default=0)


def _header_row(sample: str, separator: str | None) -> int:
    """Which non-empty record heads the table, repeated above each block: the first of
    the sample's first records with as many cells as the widest of them (scikit-learn's
    `boston_house_prices.csv` opens with `506,13,,,…`, its counts, over the column
    names), read as the table is; 0, none, when that record is data: every cell a number
    and the cells below it in the sample numbers too (a file of numbers has no header:
    `digits.csv.gz`, and `breast_cancer.csv`, whose line of counts is narrower than its
    rows, had its first row of measurements repeated above each block as if it named the
    columns), or a line of counts as wide as the rows (`_counts`)."""
    rows: list[list[str]] = []
    for _line, fields in _records(_sample_lines(sample), separator):
        if len(rows) >= SAMPLE_RECORDS:
            break
        if cells := _shown(fields):
            rows.append(cells)
    if not rows:
        return 1
    widths = [len(cells) for cells in rows]
    first = widths.index(max(widths))
    if _numbers_only(rows[first], rows[first + 1 :]) or _counts(rows[first], rows[first + 1 :]):
        return 0
    return first + 1


def _counts(record: list[str], below: list[list[str]]) -> bool:
    """Whether `record` opens with numbers, two or more, each over a column of numbers
    (scikit-learn's `iris.csv`: `150,4,setosa,versicolor,virginica`, its counts of rows
    and measurements and its classes' names, as wide as the rows below): a line of counts,
    which names no column. One number first (a row number over the rows' numbers:
    tcllib's `000,VERSIONS:,1:8.4a3`) or a word first (`seed, 0xdeadbeaf`) may."""
    leading = 0
    for cell in record:
        if not _is_number(cell):
            break
        leading += 1
    return leading >= 2 and _numbers_only(record[:leading], below)


def _numbers_only(record: list[str], below: list[list[str]]) -> bool:
    """Whether every cell of `record` is a number and so is every cell in those columns
    of the records `below` it (at least one)."""
    if not below or not all(map(_is_number, record)):
        return False
    return all(_is_number(cell) for cells in below for cell in cells[: len(record)] if cell)


def _is_number(cell: str) -> bool:
    """`12`, `-0.07871`, `1.5e+02`, `0x3f800000`: a number as a table of them writes it."""
    if not any(character.isdigit() for character in cell):
        return False
    try:
        float(cell)
    except ValueError:
        try:
            int(cell, 0)
        except ValueError:
            return False
    return True


def _sample_lines(sample: str) -> str:
    """The sample without its last line, which may be cut, when it is cut."""
    return sample.rsplit("\n", 1)[0] if len(sample) == SAMPLE_CHARS else sample


def _shown(fields: list[str]) -> list[str]:
    """A record's cells as the table shows them, trailing empty ones dropped."""
    shown = [clean(field).replace("|", "/") for field in fields]
    while shown and not shown[-1]:
        shown.pop()
    return shown


def _lines(
    text: str, separator: str | None, cap: TextCap, quoting: Quoting
) -> Iterator[tuple[int, str]]:
    """Each non-empty record as its first line's number and a table line; the cells are
    counted as they are read and the line's size spent from `cap` before it is built."""
    cells = 0
    for start, fields in _records(text, separator, quoting):
        cells += len(fields)
        if cells > MAX_CELLS:
            raise SkipFile(f"{FORMAT} holds more than {MAX_CELLS:,} cells")
        cap.spend(sum(len(field) + 3 for field in fields) + 2, "table")
        if shown := _shown(fields):
            yield start, "| " + " | ".join(shown) + " |"
