"""A PDF with a text layer and an outline (bookmarks), as LaTeX's hyperref writes one: each
entry points at the page its section starts on, often halfway down (reportlab draws the
text and writes the outline)."""

from __future__ import annotations

import io

# (page lines, outline entries starting on that page: (title, level)); a title drawn
# as a line of the page is where its section starts.
Page = tuple[list[str], list[tuple[str, int]]]


def outlined_pdf(pages: list[Page]) -> bytes:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    count = 0
    for lines, entries in pages:
        for number, line in enumerate(lines):
            pdf.drawString(72, A4[1] - 72 - 16 * number, line)
        for title, level in entries:
            key = f"entry{count}"
            count += 1
            pdf.bookmarkPage(key)
            pdf.addOutlineEntry(title, key, level=level)
        pdf.showPage()
    pdf.save()
    return out.getvalue()
