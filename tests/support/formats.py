"""Real files of every supported format, written by the libraries made for them."""

from __future__ import annotations

import io
from typing import Any

HTML = b"""<!doctype html><html><head><title>Harbour FAQ</title><style>p {}</style></head>
<body><nav><a href="/">Home</a></nav>
<p>Answers for visitors to Marrowby harbour.</p>
<h2>Parking</h2><p>The quayside car park closes at <b>midnight</b>.</p>
<h3>Permits</h3><ul><li>Residents park free</li><li>Visitors pay at the kiosk</li></ul>
<script>alert("never indexed")</script>
<h2>Contact</h2><p>Call the harbourmaster on channel 14.</p></body></html>"""

RST = b"""Tide Tables
===========

How to read the Brannock tide tables.

Spring Tides
------------

Spring tides at Brannock reach 5.8 metres twice a month.

.. include:: /etc/passwd

.. code-block:: python

   print("high water")

Neap Tides
----------

Neaps rarely pass 3.1 metres.
"""

# A man page as installed (`tar.1.gz` once gzipped): man(7) troff, an option per `.TP`.
TAR_MAN = rb""".\" Written for ragd's tests: a page in the shape of GNU tar's.
.TH TAR 1 "January 2026" "TAR" "GNU TAR Manual"
.SH NAME
tar \- an archiving utility
.SH SYNOPSIS
.B tar
.RI { A | c | x } " [\fIOPTIONS\fR] [\fIFILE\fR...]"
.SH OPTIONS
.SS Compression options
.TP
\fB\-z\fR, \fB\-\-gzip\fR
Filter the archive through
.BR gzip (1).
.TP
\fB\-\-zstd\fR
Filter the archive through the zstandard compressor, which squeezes
barnacle logs twice as tight.
.SH "SEE ALSO"
.BR gzip (1).
"""

PYTHON = b'''"""Ballast pump control."""

PUMP_LIMIT = 40


class BallastPump:
    """Moves water between the trim tanks."""

    def start(self):
        return "priming the ballast impeller"

    def stop(self):
        return "closing the sea chest valve"


def trim_angle(load):
    return load / PUMP_LIMIT
'''


def docx_bytes() -> bytes:
    import docx

    document = docx.Document()
    document.add_heading("Crew Handbook", level=0)
    document.add_paragraph("Welcome aboard the Kestrel.")
    document.add_heading("Muster Stations", level=1)
    document.add_paragraph("Muster at station B behind the funnel.")
    document.add_paragraph("Bring your lifejacket", style="List Bullet")
    document.add_heading("Lifejackets", level=2)
    document.add_paragraph("Orange lifejackets are stowed under every saloon seat.")
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {
        (0, 0): "Deck",
        (0, 1): "Count",
        (1, 0): "Upper",
        (1, 1): "120",
    }.items():
        table.cell(row, col).text = text
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def notebook_bytes(output_text: str = "an output that is never indexed") -> bytes:
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    notebook = new_notebook(metadata={"language_info": {"name": "python"}})
    notebook.cells = [
        new_markdown_cell("# Fuel Analysis\n\nDaily bunker figures for the fleet."),
        new_code_cell(
            "fuel = load_bunkers('kestrel')", outputs=[new_output("stream", text=output_text)]
        ),
        new_markdown_cell("## Findings\n\nConsumption fell by twelve percent after the refit."),
    ]
    return nbformat.writes(notebook).encode()


def odt_bytes() -> bytes:
    from odf import text
    from odf.opendocument import OpenDocumentText

    document = OpenDocumentText()
    document.text.addElement(text.H(outlinelevel=1, text="Galley Guide"))
    document.text.addElement(text.P(text="Rules for the ship's galley."))
    document.text.addElement(text.H(outlinelevel=2, text="Opening Hours"))
    document.text.addElement(text.P(text="The galley serves porridge from seven."))
    return odt_saved(document)


def odt_saved(document: Any) -> bytes:
    """An odfpy document as the bytes of its `.odt` file."""
    buffer = io.BytesIO()
    document.write(buffer)
    return buffer.getvalue()


def epub_bytes() -> bytes:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("ferry-tales")
    book.set_title("Ferry Tales")
    book.set_language("en")
    first = epub.EpubHtml(title="The Crossing", file_name="crossing.xhtml", lang="en")
    first.content = "<h1>The Crossing</h1><p>The gale rose at dawn over Eskerry.</p>"
    second = epub.EpubHtml(title="Storm Night", file_name="storm.xhtml", lang="en")
    second.content = "<p>Lanterns swung in the wheelhouse all night.</p>"
    for chapter in (first, second):
        book.add_item(chapter)
    book.toc = (first, second)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", first, second]
    buffer = io.BytesIO()
    epub.write_epub(buffer, book)
    return buffer.getvalue()


def deeply_nested_html(depth: int = 200_000) -> bytes:
    return b"<html><body>" + b"<div>" * depth + b"deep" + b"</div>" * depth + b"</body></html>"
