"""Slide decks and workbooks for the tests, written by python-pptx, openpyxl and odfpy."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

BERTHS = 200  # data rows of the "Berths" sheet (row 1 is its header)


def deck_bytes() -> bytes:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])  # title and content
    first.shapes.title.text = "Quarterly harbour report"
    body = first.placeholders[1].text_frame
    body.text = "Moorings rose by a third since the breakwater was finished."
    point = body.add_paragraph()
    point.text = "The eastern wall is full until spring."
    point.level = 1
    first.notes_slide.notes_text_frame.text = "Mention the dredging delay at the slipway."
    second = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    second.shapes.title.text = "Mooring fees"
    table = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(1.5)).table
    for r, row in enumerate([("Vessel", "Fee"), ("Ketch", "40 florins"), ("Schooner", "65")]):
        for c, text in enumerate(row):
            table.cell(r, c).text = text
    out = io.BytesIO()
    deck.save(out)
    return out.getvalue()


def workbook_bytes() -> bytes:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Berths"
    sheet.append(["Berth", "Vessel", "Length (m)"])
    for n in range(1, BERTHS + 1):
        sheet.append([f"B{n}", f"Vessel {n} of the fleet", n + 0.5])
    sheet["E2"] = "=SUM(C2:C4)"  # a formula: its cached value is set by `with_cached_value`
    book.create_sheet("Notes").append(["Dredging", "postponed to autumn"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _rewrite(data: bytes, member: str, change: object) -> bytes:
    """The package with one member's XML changed by `change(text) -> text`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            content = source.read(item.filename)
            if item.filename == member:
                content = change(content.decode()).encode()  # type: ignore[operator]
            target.writestr(item, content)
    return out.getvalue()


def with_cached_value(data: bytes, value: str) -> bytes:
    """As a spreadsheet program saves it: the formula in E2 with its result cached."""
    return _rewrite(
        data,
        "xl/worksheets/sheet1.xml",
        lambda xml: re.sub(r"(<f>SUM\(C2:C4\)</f>)<v\s*/?>(</v>)?", rf"\1<v>{value}</v>", xml),
    )


def with_dimension(data: bytes, ref: str) -> bytes:
    """A sheet that declares it spans `ref` (a huge sheet claims A1:XFD1048576)."""
    return _rewrite(
        data,
        "xl/worksheets/sheet1.xml",
        lambda xml: re.sub(r'<dimension ref="[^"]*"', f'<dimension ref="{ref}"', xml),
    )


def with_external_link(data: bytes) -> bytes:
    out = io.BytesIO(data)
    with zipfile.ZipFile(out, "a") as package:
        package.writestr("xl/externalLinks/externalLink1.xml", "<externalLink/>")
    return out.getvalue()


def impress_bytes() -> bytes:
    """An `.odp` as LibreOffice Impress lays one out: a title frame and an outline on the
    first slide with speaker notes, a table on the second, a picture-only third slide,
    and a fourth whose only text is in a shape inside a group."""
    from odf import draw, presentation, style, table, text
    from odf.opendocument import OpenDocumentPresentation

    deck = OpenDocumentPresentation()
    layout = style.PageLayout(name="Screen")
    deck.automaticstyles.addElement(layout)
    master = style.MasterPage(name="Default", pagelayoutname=layout)
    deck.masterstyles.addElement(master)

    def frame(page: Any, cls: str | None, *paragraphs: str) -> Any:
        box = draw.TextBox()
        for words in paragraphs:
            box.addElement(text.P(text=words))
        shape = draw.Frame(width="20cm", height="3cm", x="1cm", y="1cm")
        if cls:
            shape.setAttribute("class", cls)
        shape.addElement(box)
        page.addElement(shape)
        return shape

    first = draw.Page(name="page1", masterpagename=master)
    deck.presentation.addElement(first)
    frame(first, "title", "Quarterly harbour report")
    outline = draw.TextBox()
    points = text.List()
    for point in ("Moorings rose by a third.", "The eastern wall is full until spring."):
        item = text.ListItem()
        item.addElement(text.P(text=point))
        points.addElement(item)
    outline.addElement(points)
    holder = draw.Frame(width="20cm", height="9cm", x="1cm", y="5cm")
    holder.setAttribute("class", "outline")
    holder.addElement(outline)
    first.addElement(holder)
    notes = presentation.Notes()
    frame(notes, "notes", "Mention the pier survey after the storm.")
    first.addElement(notes)

    second = draw.Page(name="page2", masterpagename=master)
    deck.presentation.addElement(second)
    frame(second, "title", "Mooring fees")
    grid = table.Table(name="Fees")
    for row_words in (("Vessel", "Fee"), ("Ketch", "40 florins")):
        row = table.TableRow()
        for words in row_words:
            cell = table.TableCell()
            cell.addElement(text.P(text=words))
            row.addElement(cell)
        grid.addElement(row)
    holder = draw.Frame(width="20cm", height="4cm", x="1cm", y="5cm")
    holder.addElement(grid)
    second.addElement(holder)

    deck.presentation.addElement(draw.Page(name="page3", masterpagename=master))

    fourth = draw.Page(name="page4", masterpagename=master)
    deck.presentation.addElement(fourth)
    group = draw.G()
    shape = draw.CustomShape(width="5cm", height="2cm", x="1cm", y="1cm")
    shape.addElement(text.P(text="Tide tables are posted at the harbour office."))
    group.addElement(shape)
    fourth.addElement(group)

    out = io.BytesIO()
    deck.write(out)
    return out.getvalue()


def with_listed_missing_part(data: bytes, path: str) -> bytes:
    """An OpenDocument package whose manifest lists `path`, which its zip lacks."""
    entry = f'<manifest:file-entry manifest:full-path="{path}" manifest:media-type="image/png"/>'
    end = "</manifest:manifest>"
    return _rewrite(data, "META-INF/manifest.xml", lambda xml: xml.replace(end, entry + end))


def calc_bytes() -> bytes:
    """An `.ods` as LibreOffice Calc writes one: a "Berths" sheet with a header row, an
    empty row, a row repeated three times, a gap of empty cells repeated in a row, a
    cell holding `text:s` and a comment, and the sheet's empty rest as one row repeated
    a million times; a "Notes" sheet of one row."""
    from odf import office, table, text
    from odf.opendocument import OpenDocumentSpreadsheet

    book = OpenDocumentSpreadsheet()

    def row(*cells: str | tuple[str, int], repeat: int = 1) -> Any:
        line = table.TableRow()
        if repeat > 1:
            line.setAttribute("numberrowsrepeated", repeat)
        for cell in cells:
            words, times = cell if isinstance(cell, tuple) else (cell, 1)
            element = table.TableCell()
            if times > 1:
                element.setAttribute("numbercolumnsrepeated", times)
            if words:
                element.addElement(text.P(text=words))
            line.addElement(element)
        return line

    berths = table.Table(name="Berths")
    berths.addElement(row("Berth", "Vessel", "Length (m)"))
    berths.addElement(row(("", 1024)))
    berths.addElement(row("B1", "Ketch", "7.5", ("", 1021)))
    berths.addElement(row("B2", "Schooner", "12", repeat=3))
    spaced = row("B5", "", ("", 2), "dredged")
    cell = spaced.childNodes[1]
    paragraph = text.P(text="Harbour")
    paragraph.addElement(text.S())
    paragraph.addText("Launch")
    cell.addElement(paragraph)
    comment = office.Annotation()
    comment.addElement(text.P(text="checked by the harbour master"))
    cell.addElement(comment)
    berths.addElement(spaced)
    berths.addElement(row(("", 1024), repeat=1_048_569))
    book.spreadsheet.addElement(berths)
    notes = table.Table(name="Notes")
    notes.addElement(row("Dredging", "postponed to autumn"))
    book.spreadsheet.addElement(notes)
    out = io.BytesIO()
    book.write(out)
    return out.getvalue()


def with_content(data: bytes, content: str) -> bytes:
    """An OpenDocument package whose `content.xml` is `content`."""
    return _rewrite(data, "content.xml", lambda _: content)


def with_manifest(data: bytes, manifest: str) -> bytes:
    """An OpenDocument package whose `META-INF/manifest.xml` is `manifest`."""
    return _rewrite(data, "META-INF/manifest.xml", lambda _: manifest)


def shared_string_bytes(text: str, rows: int, columns: int) -> bytes:
    """An `.xlsx` whose one sheet, "Sheet", is `rows` × `columns` cells each referencing
    one shared string, `text` (openpyxl writes strings inline: the parts are rewritten)."""
    import openpyxl
    from openpyxl.utils import get_column_letter

    out = io.BytesIO()
    openpyxl.Workbook().save(out)
    cells = "".join(
        f'<c r="{get_column_letter(c)}{{r}}" t="s"><v>0</v></c>' for c in range(1, columns + 1)
    )
    data = "".join(f'<row r="{r}">{cells.format(r=r)}</row>' for r in range(1, rows + 1))
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    parts = {
        "xl/worksheets/sheet1.xml": (
            f'<worksheet xmlns="{main}"><sheetData>{data}</sheetData></worksheet>'
        ),
        "xl/sharedStrings.xml": (
            f'<sst xmlns="{main}" count="1" uniqueCount="1"><si><t>{text}</t></si></sst>'
        ),
    }
    types = (
        '<Override PartName="/xl/sharedStrings.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>'
    )
    relation = (
        '<Relationship Id="rIdStrings" Target="sharedStrings.xml" Type="http://schemas.'
        'openxmlformats.org/officeDocument/2006/relationships/sharedStrings"/></Relationships>'
    )
    result = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(out.getvalue())) as source,
        zipfile.ZipFile(result, "w") as target,
    ):
        for name in source.namelist():
            part = parts.pop(name, None) or source.read(name).decode()
            if name == "[Content_Types].xml":
                part = part.replace("</Types>", types)
            if name == "xl/_rels/workbook.xml.rels":
                part = part.replace("</Relationships>", relation)
            target.writestr(name, part)
        for name, part in parts.items():
            target.writestr(name, part)
    return result.getvalue()
