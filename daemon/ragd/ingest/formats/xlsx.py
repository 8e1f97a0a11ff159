"""Excel workbooks (``.xlsx``) through openpyxl: a sheet is a heading, its rows a table.

openpyxl reads the package in read-only (streaming) mode with ``data_only=True``: a cell
holding a formula gives the value the spreadsheet program cached when it last saved the
file — what a reader of the sheet sees — and no formula is ever evaluated here (openpyxl
cannot; without ``data_only`` it would give the formula's source, ``=SUM(B2:B9)``, instead
of the number). A workbook that never went through a spreadsheet program has no cached
values, and its formula cells read as empty. Macros are not loaded (``keep_vba`` off) and
links to other workbooks are not followed (``keep_links`` off).

Each sheet is a section headed by its name; its rows are ``| a | b |`` table lines, in
blocks of about `BLOCK_CHARS` that each start with the sheet's first row again (the header
row, so a chunk cut from the middle of a long sheet still says what its columns are).
Every row remembers its row number, so a chunk cites its sheet (the heading) and `rows`
[first, last]. Hostile variants are refused with one reason: a zip bomb (checked before
unpacking), a sheet declaring more than `MAX_CELLS` cells or more rows than Excel allows,
a workbook with external links, a sheet whose text passes the daemon's cap on extracted
text (`max_text_mb`, `CAPPED`; a shared string is written out for every cell that
references it, so a file of kilobytes can write gigabytes: counted before each line is
built).
"""

from __future__ import annotations

import datetime
import io
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import DEFAULT_CAP, Document, SkipFile
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "Excel workbook"
CAPPED = True  # `parse` takes the daemon's cap on extracted text: shared strings repeat
MAX_CELLS = 5_000_000  # per sheet, as declared or as read
MAX_ROWS = 1_048_576  # Excel's own limit
BLOCK_CHARS = 1_000  # rows per block under one repeated header (a chunk is ~2,000)
# A header longer than this is written once, not repeated: a block holds at least as
# much of rows as of a header repeated above them, so the repeats at most double the
# text (a 55 KB header over 1 MB of rows had written 71 MB, one per row; review71).
REPEATED_HEADER_CHARS = BLOCK_CHARS // 2


def parse(name: str, data: bytes, max_text_chars: int | None = None) -> Document:
    import openpyxl

    check_zip(data, FORMAT)
    _refuse_external_links(data)
    book = openpyxl.load_workbook(
        io.BytesIO(data), read_only=True, data_only=True, keep_links=False, keep_vba=False
    )
    writer = MarkdownWriter()
    cap = TextCap(max_text_chars)
    try:
        for sheet in book.worksheets:
            _write_sheet(sheet, writer, cap)
    finally:
        book.close()
    return sheets_document(name, writer)


def sheets_document(name: str, writer: MarkdownWriter) -> Document:
    """The document of a workbook whose sheets `writer` holds (`write_rows`): every line
    cites its row. Shared by Excel and OpenDocument (`ods`) spreadsheets."""
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=writer.text(),
        located="rows",
        origins=writer.origins(),
        reaches=writer.reaches(),
    )


def _refuse_external_links(data: bytes) -> None:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if any(n.startswith("xl/externalLinks/") for n in archive.namelist()):
            raise SkipFile(f"{FORMAT} links to other workbooks (external links are not read)")


def _write_sheet(sheet: Any, writer: MarkdownWriter, cap: TextCap) -> None:
    rows, columns = sheet.max_row or 0, sheet.max_column or 0
    if rows * columns > MAX_CELLS:
        raise SkipFile(
            f"sheet {sheet.title!r} spans {rows} rows × {columns} columns "
            f"(more than {MAX_CELLS:,} cells; a huge sheet?)"
        )
    # Read what the sheet holds, not what it declares: a wrong (or missing) dimension
    # would otherwise cut the rows short. The cells are counted as they are read.
    sheet.reset_dimensions()
    write_rows(sheet.title, _lines(sheet, cap), writer)


def _lines(sheet: Any, cap: TextCap) -> Iterator[tuple[int, str]]:
    """The sheet's non-empty rows, each its number and table line; the cells are
    counted as they are read, and their text spent from `cap` before the line is built
    (a shared string of a megabyte in 16,384 cells of a row would be a line of 16 GB)."""
    cells = 0
    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
        cells += len(values)
        if number > MAX_ROWS or cells > MAX_CELLS:
            raise SkipFile(f"sheet {sheet.title!r} holds more than {MAX_CELLS:,} cells")
        cap.spend(_line_size(values), sheet.title)
        line = _row(values)
        if line is not None:
            yield number, line


def write_rows(
    title: str, rows: Iterable[tuple[int, str]], writer: MarkdownWriter, header_row: int = 1
) -> None:
    """A sheet's non-empty rows (each its number and table line) as a section headed by
    its name, in blocks of about BLOCK_CHARS that each start with the sheet's header row
    again (the `header_row`-th of them: the first, but for a CSV's leading line of counts,
    `formats.delimited`; one over REPEATED_HEADER_CHARS is written once); each line
    remembers its row. A sheet with no such row is no section. Shared by Excel and
    OpenDocument (`ods`) spreadsheets."""
    header: str | None = None
    size = 0
    for seen, (number, line) in enumerate(rows, start=1):
        if seen == 1:
            writer.at, writer.until = number, None
            writer.heading(1, title)
        if seen == header_row:
            header = line if len(line) <= REPEATED_HEADER_CHARS else None
        elif header is not None and size > len(header) and size + len(line) > BLOCK_CHARS:
            # (a block of the header alone goes on: a long row right under it had been
            # put under the header written again, the header twice in a row)
            writer.end_lines()
            writer.at = None  # the repeated header is the converter's, not this row's
            writer.line(header)
            size = len(header)
        writer.at = number
        writer.line(line)
        size += len(line)
    writer.end_lines()


class TextCap:
    """What is left of the cap on the text a spreadsheet writes out (`max_text_mb`; its
    default when None), repeats counted: an `.ods` row or cell repeated, an `.xlsx`
    shared string referenced by many cells, is a few bytes of the file. Shared by Excel
    and OpenDocument (`ods`) spreadsheets."""

    def __init__(self, chars: int | None) -> None:
        self.cap = DEFAULT_CAP if chars is None else chars
        self.left = self.cap

    def spend(self, chars: int, title: str) -> None:
        self.left -= chars
        if self.left < 0:
            raise SkipFile(
                f"too much text (over the {self.cap / 2**20:.4g} MB max_text_mb cap: "
                f"sheet {title!r}, repeats counted)"
            )


def _line_size(values: tuple[Any, ...]) -> int:
    """The length of `_row(values)`'s line with its newline, known before it is built: a
    string's as it is stored (`clean` only folds its blanks), so never less."""
    sizes = [len(v) if isinstance(v, str) else len(_cell(v)) for v in values]
    while sizes and not sizes[-1]:
        sizes.pop()
    return sum(sizes) + 3 * len(sizes) + 2


def _row(values: tuple[Any, ...]) -> str | None:
    """A row as a table line, trailing empty cells dropped; None for an empty row."""
    cells = [_cell(v) for v in values]
    while cells and not cells[-1]:
        cells.pop()
    return "| " + " | ".join(cells) + " |" if cells else None


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime.datetime) and value.time() == datetime.time(0):
        return value.date().isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return clean(str(value)).replace("|", "/")
