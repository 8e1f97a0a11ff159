"""An AsciiDoc table's cells, grouped into the rows the page shows.

In the default format (`|===`) every `|` starts a cell, wherever it is on a line, and a
cell runs on over the next lines until the next `|`; so rows are not lines: they are the
cells taken a row's worth at a time. A row's worth is the `cols` attribute's count, else
the number of cells on the table's first line (Asciidoctor's rule). A cell specifier
right before a `|` (`2+|`, `a|`, `^.^|`: span, style, alignment) is markup, not text. CSV
(`,===`, `format=csv`) and DSV (`:===`) tables are one row a line.
"""

from __future__ import annotations

import csv

SPEC_CHARACTERS = frozenset("0123456789.*+<^>adehlmsv")
STYLES = frozenset("adehlmsv")

# One row: its cells and the first and last line (0-based, in the lines given) it spans.
Row = tuple[list[str], int, int]


def table_rows(lines: list[str], separator: str, columns: int | None) -> list[Row]:
    if separator in (",", ":", "\t"):
        return _delimited_rows(lines, separator)
    cells: list[list[str]] = []  # each cell's text, a piece per line
    starts: list[int] = []  # the line each cell starts on
    first_line_cells = 0
    for number, line in enumerate(lines):
        if not line.strip():
            if cells:
                cells[-1].append("")  # a paragraph break inside a cell
            continue
        pieces = _split(line, separator)
        if len(pieces) == 1:  # no separator: the open cell runs on
            if cells:
                cells[-1].append(pieces[0])
            continue
        lead = pieces[0]
        if cells and lead.strip() and not _is_spec(lead.strip()):
            cells[-1].append(_without_spec(lead))
        for piece in pieces[1:]:
            cells.append([piece])
            starts.append(number)
        for index in range(len(cells) - len(pieces) + 1, len(cells) - 1):
            cells[index][-1] = _without_spec(cells[index][-1])
        if not first_line_cells:
            first_line_cells = len(pieces) - 1
    width = columns or first_line_cells or 1
    rows: list[Row] = []
    for at in range(0, len(cells), width):
        texts = [" ".join(" ".join(c).split()) for c in cells[at : at + width]]
        row_starts = starts[at : at + width]
        rows.append((texts, row_starts[0], row_starts[-1]))
    return rows


def _split(line: str, separator: str) -> list[str]:
    """`line` cut at each separator not escaped with a backslash (`\\|` is a `|`)."""
    pieces: list[str] = []
    current: list[str] = []
    start = 0
    at = line.find(separator)
    while at >= 0:
        if at > 0 and line[at - 1] == "\\":
            current.append(line[start : at - 1] + separator)
        else:
            current.append(line[start:at])
            pieces.append("".join(current))
            current = []
        start = at + 1
        at = line.find(separator, start)
    current.append(line[start:])
    pieces.append("".join(current))
    return pieces


def _is_spec(token: str) -> bool:
    """A cell specifier: span, duplication, alignment and style (`2+`, `3*`, `.^`, `a`)."""
    if not token or not all(c in SPEC_CHARACTERS for c in token):
        return False
    return token in STYLES or any(c in token for c in "0123456789+*<^>.")


def _without_spec(text: str) -> str:
    """A cell's last line without the specifier of the cell after it ("x 2+" → "x"): one
    set off by a blank, as Asciidoctor requires (a cell "a" stays "a")."""
    head, blank, last = text.rstrip().rpartition(" ")
    if blank and _is_spec(last):
        return head
    return text


def _delimited_rows(lines: list[str], separator: str) -> list[Row]:
    """One row a line. Each line is read by a csv reader of its own: a cell over the csv
    module's field limit (128 KB) raised `csv.Error` out of the whole file's reader, and the
    file was skipped as "parser failed"; such a line is cut at its separators instead."""
    rows: list[Row] = []
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            cells = next(csv.reader([line], delimiter=separator), [])
        except csv.Error:
            cells = line.split(separator)
        rows.append(([cell.strip() for cell in cells], number, number))
    return rows
