"""OpenDocument spreadsheets (``.ods``, LibreOffice Calc): a sheet is a heading, its rows a
table, as an Excel workbook's are (`xlsx.write_rows`).

`content.xml` is read as a stream (lxml's iterparse, each row cleared once read: a sheet
of a million rows needs the memory of one), with no DTD loaded, no entity expanded and
nothing fetched. A cell reads as the text the spreadsheet shows, its paragraphs
(`text:p`, which the program writes for every value, a formula's last result included;
no formula is evaluated here); a cell's comment (`office:annotation`) is not read, as
openpyxl reads none of a workbook's. LibreOffice writes the rest of a sheet as one empty
row repeated a million times (`table:number-rows-repeated`) and the rest of a row as one
empty cell repeated a thousand (`table:number-columns-repeated`): repeats are counted,
an empty one is never written out, and a sheet whose cells (repeats counted) pass
`xlsx.MAX_CELLS` is refused with one reason. A repeat is a few bytes of the file, so the
file's size does not bound the text it writes out (a long cell repeated a thousand
times in a row repeated a million times): the text written, repeats counted, is held to
the daemon's cap on extracted text (`max_text_mb`, `CAPPED`) as it is written, before a
line is built. Every row remembers its number, so a chunk
cites its sheet (the heading) and `rows` [first, last]. The zip container is checked for
a bomb first.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from typing import Any

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.odt import refuse_encrypted
from ragd.ingest.formats.xlsx import (
    MAX_CELLS,
    MAX_ROWS,
    TextCap,
    sheets_document,
    write_rows,
)

FORMAT = "OpenDocument spreadsheet"
CAPPED = True  # `parse` takes the daemon's cap on extracted text: repeats multiply it
MAX_COLUMNS = 16_384  # LibreOffice's own limit: a row wider than that is no real sheet's
TABLE_NS = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
TEXT_NS = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
OFFICE_NS = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
BODY = f"{{{OFFICE_NS}}}spreadsheet"
SHEET = f"{{{TABLE_NS}}}table"
ROW = f"{{{TABLE_NS}}}table-row"
CELLS = {f"{{{TABLE_NS}}}table-cell", f"{{{TABLE_NS}}}covered-table-cell"}
PARAGRAPH = f"{{{TEXT_NS}}}p"
# Inline elements that stand for blanks the program shows: `text:s` (spaces), a tab, a
# line break; read as nothing, "Berth<text:s/>7" would be one word.
BLANKS = {f"{{{TEXT_NS}}}{name}" for name in ("s", "tab", "line-break")}
# Where each value type keeps a cell's value (`office:value-type`; OpenDocument 19.385).
VALUE_ATTRIBUTES = {
    "float": "value",
    "percentage": "value",
    "currency": "value",
    "date": "date-value",
    "time": "time-value",
    "boolean": "boolean-value",
    "string": "string-value",
}
Row = tuple[int, list[tuple[str, int]]]  # a row's number and its cells (text, times repeated)


def parse(name: str, data: bytes, max_text_chars: int | None = None) -> Document:
    from lxml import etree

    check_zip(data, FORMAT)
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        if "content.xml" not in package.namelist():
            raise SkipFile(f"damaged {FORMAT} (no content.xml)")
        refuse_encrypted(package, FORMAT)
        content = package.read("content.xml")
    writer = MarkdownWriter()
    cap = TextCap(max_text_chars)
    try:
        for title, rows in _sheets(content):
            write_rows(title, _capped(rows, title, cap), writer)
    except etree.XMLSyntaxError as exc:  # raised where the stream breaks: in a sheet too
        raise SkipFile(f"damaged {FORMAT} (content.xml: {exc})") from None
    return sheets_document(name, writer)


def _capped(rows: Iterator[Row], title: str, cap: TextCap) -> Iterator[tuple[int, str]]:
    """The sheet's rows as table lines, each line's size (with its newline) spent from
    `cap` before it is built: a cell of a megabyte repeated 16,384 times would be a line
    of 16 GB."""
    line, last = "", None
    for number, values in rows:
        if values is not last:  # a repeated row is one list: built once
            cap.spend(sum(len(text) * n + 3 * n for text, n in values) + 2, title)
            line, last = _line(values), values
        else:
            cap.spend(len(line) + 1, title)
        yield number, line


def _sheets(content: bytes) -> Iterator[tuple[str, Iterator[Row]]]:
    """Each sheet's name and its rows (`_rows`), read as the stream goes:
    a sheet's rows are consumed before the next sheet starts. A sheet is a table of the
    spreadsheet body; a package without one (an `.odt` or `.odp` renamed `.ods`) is
    refused, where its tables had been read as sheets and its text left out."""
    from lxml import etree

    events = etree.iterparse(
        io.BytesIO(content),
        events=("start", "end"),
        load_dtd=False,
        no_network=True,
        resolve_entities=False,
        huge_tree=False,
    )
    stream = iter(events)
    body = None
    for event, element in stream:
        if event == "start" and element.tag == BODY:
            body = element
        elif event == "start" and element.tag == SHEET and element.getparent() is body:
            title = clean(element.get(f"{{{TABLE_NS}}}name") or "") or "(untitled sheet)"
            yield title, _rows(stream, element, title)
    if body is None:
        raise SkipFile(f"not an {FORMAT} (no spreadsheet in its body)")


def _rows(stream: Iterator[tuple[str, Any]], sheet: Any, title: str) -> Iterator[Row]:
    """The non-empty rows of `sheet` up to its end in `stream`, each its number as the
    spreadsheet numbers them (repeats counted) and its cells (`_cells`; a repeated row
    gives the same list again); a table nested in a cell is that cell's text, not rows
    of this sheet."""
    number = 1
    cells = 0
    depth = 0  # tables open inside this sheet
    for event, element in stream:
        if element.tag == SHEET:
            if event == "start":
                depth += 1
                continue
            if depth == 0:  # this sheet ends
                _drop(sheet)
                return
            depth -= 1
            continue
        if event != "end" or element.tag != ROW or depth:
            continue
        repeat = _repeat(element.get(f"{{{TABLE_NS}}}number-rows-repeated"), MAX_ROWS)
        values = _cells(element)
        _drop(element)
        if not values:  # empty: counted, never written (the sheet's empty rest)
            number += repeat
            continue
        width = sum(n for _, n in values)
        cells += width * repeat
        if width > MAX_COLUMNS:
            raise SkipFile(f"sheet {title!r} has a row of more than {MAX_COLUMNS:,} columns")
        if number + repeat - 1 > MAX_ROWS or cells > MAX_CELLS:
            raise SkipFile(f"sheet {title!r} holds more than {MAX_CELLS:,} cells")
        for _ in range(repeat):
            yield number, values
            number += 1


def _drop(element: Any) -> None:
    """Clear `element`, once read, and take the elements read before it out of its
    parent: iterparse leaves every element it built in the tree, where a cleared row
    still took about 70 bytes (800,000 rows: 171 MB at the peak, 115 MB dropped)."""
    element.clear()
    parent = element.getparent()
    while parent is not None and element.getprevious() is not None:
        del parent[0]


def _cells(row: Any) -> list[tuple[str, int]]:
    """A row's cells as (shown text, times repeated), trailing empty cells dropped."""
    values = []
    for cell in row:
        if cell.tag not in CELLS:
            continue
        repeat = _repeat(cell.get(f"{{{TABLE_NS}}}number-columns-repeated"), MAX_CELLS)
        values.append((_shown(cell), repeat))
    while values and not values[-1][0]:
        values.pop()
    return values


def _shown(cell: Any) -> str:
    """The cell's paragraphs as the program shows them, a space between two (its comment,
    `office:annotation`, is not among them); a cell with none, its value (`_value`)."""
    shown = []
    for paragraph in cell:
        if paragraph.tag != PARAGRAPH:
            continue
        for inline in paragraph.iter(*BLANKS):
            inline.text = " "
        shown.append(clean("".join(paragraph.itertext())))
    return (" ".join(p for p in shown if p) or _value(cell)).replace("|", "/")


def _value(cell: Any) -> str:
    """The value of a cell that has no paragraph, as its type stores it: LibreOffice
    writes a paragraph for every value, but a file written by another program (odfpy, a
    script) may give only `office:value-type="float" office:value="42"`, which Calc
    shows as 42; its number had been lost."""
    attribute = VALUE_ATTRIBUTES.get(cell.get(f"{{{OFFICE_NS}}}value-type") or "")
    return clean(cell.get(f"{{{OFFICE_NS}}}{attribute}") or "") if attribute else ""


def _line(values: list[tuple[str, int]]) -> str:
    """A row as a table line, each cell as often as it repeats."""
    return "| " + " | ".join(text for text, n in values for _ in range(n)) + " |"


def _repeat(value: str | None, most: int) -> int:
    """A repeat count as the file writes it, 1 when it is none or no small number, at
    most `most` (the limit it is checked against, so a huge one is refused there)."""
    if not value or not value.isascii() or not value.isdigit():
        return 1
    if len(value.lstrip("0")) > 9:  # leading zeros are no size: "0000000003" is 3
        return most + 1
    return max(1, min(int(value), most + 1))
