"""Scanned PDFs for the OCR tests: text drawn into an image, the image placed on the page.

The pages have no text layer at all (reportlab writes only the image), as a scanner's
PDF has; Pillow draws the text with its built-in scalable font, so no font file is needed.
"""

from __future__ import annotations

import io


def page_image(lines: list[str], width: int = 1700, line_height: int = 64) -> bytes:
    """A white page with `lines` in black, as PNG bytes (about 200 dpi for A4 width)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=40)
    image = Image.new("L", (width, line_height * (len(lines) + 2)), color=255)
    draw = ImageDraw.Draw(image)
    for number, line in enumerate(lines, start=1):
        draw.text((80, number * line_height), line, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def scanned_pdf(pages: list[list[str]]) -> bytes:
    """A PDF whose every page is one image of its lines, with no text layer."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    for lines in pages:
        reader = ImageReader(io.BytesIO(page_image(lines)))
        width, height = reader.getSize()
        scale = (A4[0] - 72) / width
        pdf.drawImage(reader, 36, A4[1] - 36 - height * scale, width * scale, height * scale)
        pdf.showPage()
    pdf.save()
    return out.getvalue()


def text_and_scan_pdf(text: str, scan_lines: list[str], **image_entries: object) -> bytes:
    """Page 1 with `text` in a text layer, page 2 a scan of `scan_lines`, whose image's
    dictionary then gets `image_entries` (`Width=100000` declares a size it does not have,
    `Filter="/JBIG2Decode"` an encoding), as a hostile or unusual scanner's file would."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject, NumberObject
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    first = io.BytesIO()
    pdf = canvas.Canvas(first, pagesize=A4)
    pdf.drawString(72, A4[1] - 72, text)
    pdf.showPage()
    pdf.save()
    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(first.getvalue())))
    writer.append(PdfReader(io.BytesIO(scanned_pdf([scan_lines]))))
    xobjects = writer.pages[1]["/Resources"].get_object()["/XObject"].get_object()
    for name in xobjects:
        image = xobjects[name].get_object()
        for key, value in image_entries.items():
            entry = NumberObject(value) if isinstance(value, int) else NameObject(str(value))
            image[NameObject("/" + key)] = entry
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
