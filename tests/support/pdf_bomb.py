"""A small PDF that expands into a lot of text: one compressed content stream, shared by
every page (the shape of the 22 KB PDF that expanded into ≈ 200 MB in issue 10)."""

from __future__ import annotations

import io


def shared_stream_pdf(pages: int, lines: int, token: str) -> bytes:
    """`pages` pages that all draw the same `lines` lines of text (each carrying `token`)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    text = "".join(
        f"BT /F1 8 Tf 20 {780 - (i % 95) * 8} Td ({token} line {i} of the shared stream) Tj ET\n"
        for i in range(lines)
    )
    stream = DecodedStreamObject()
    stream.set_data(text.encode("latin-1"))
    shared = writer._add_object(stream.flate_encode())
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = shared
        page[NameObject("/Resources")] = resources
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()
