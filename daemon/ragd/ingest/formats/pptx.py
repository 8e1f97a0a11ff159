"""PowerPoint decks (``.pptx``) through python-pptx: a slide's title is its heading.

python-pptx reads the Office Open XML package directly (no PowerPoint or LibreOffice, and
nothing in the file is run). Each slide becomes a section: its title (else the first line
of its text) is the heading, and its body is the text of its other shapes in the order
the slide lists them (grouped shapes included), its tables as ``| a | b |`` rows, and its
speaker notes. Every line remembers its slide, so a chunk cites the slides it spans
(`slides` [first, last], 1-based). The zip container is checked for a bomb first.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.archive import check_zip
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "PowerPoint presentation"
MAX_SLIDES = 5_000
TITLE_MAX_CHARS = 80


def parse(name: str, data: bytes) -> Document:
    from pptx import Presentation

    check_zip(data, FORMAT)
    try:
        deck = Presentation(io.BytesIO(data))
    except ValueError as exc:  # python-pptx names the package's type after the file's repr
        _, found, kind = str(exc).partition("content type is ")
        if not found:
            raise
        kind = kind.strip("' ")[:100]
        raise SkipFile(f"not a {FORMAT} (the package holds {kind})") from None
    if len(deck.slides) > MAX_SLIDES:
        raise SkipFile(f"{FORMAT} has {len(deck.slides)} slides (more than {MAX_SLIDES})")
    slides = (_slide(slide, number) for number, slide in enumerate(deck.slides, start=1))
    return deck_document(name, slides)


def _slide(slide: Any, number: int) -> tuple[str, MarkdownWriter]:
    """The slide's title and the Markdown of the rest of its text, notes last."""
    title_shape = slide.shapes.title
    title = _title(title_shape)
    body = MarkdownWriter()
    body.at = number
    for shape in slide.shapes:
        if not title or shape.shape_id != title_shape.shape_id:
            _write_shape(shape, body)
    notes = _notes(slide)
    if notes:
        body.paragraph(f"Notes: {notes}")
    return title, body


def deck_document(name: str, slides: Iterable[tuple[str, MarkdownWriter]]) -> Document:
    """A deck of `slides` (each its title and body, numbered from 1) as one Markdown
    document: a slide is a section headed by its title, else its body's first line, and
    one with no text at all (a picture) is left out; every line cites its slide. Shared
    by PowerPoint and OpenDocument (`odp`) decks."""
    writer = MarkdownWriter()
    for number, (title, body) in enumerate(slides, start=1):
        writer.at, writer.until = number, None
        heading = title or next((b.split("\n")[0] for b in body.blocks), "")
        if not heading:
            continue
        writer.heading(1, heading[:TITLE_MAX_CHARS])
        if title and len(title) > TITLE_MAX_CHARS:
            writer.paragraph(title)  # the words past the cut are the slide's text too
        writer.extend(body)
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=writer.text(),
        located="slides",
        origins=writer.origins(),
        reaches=writer.reaches(),
    )


def _title(shape: Any) -> str:
    return clean(shape.text_frame.text) if shape is not None and shape.has_text_frame else ""


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return clean(frame.text) if frame is not None else ""


def _write_shape(shape: Any, writer: MarkdownWriter) -> None:
    """A shape's text: paragraphs (indented ones as list items), a table's rows, or the
    shapes of a group in turn."""
    if getattr(shape, "shape_type", None) is not None and hasattr(shape, "shapes"):
        for inner in shape.shapes:  # a group
            _write_shape(inner, writer)
    elif getattr(shape, "has_table", False):
        for row in shape.table.rows:
            writer.line("| " + " | ".join(clean(cell.text) for cell in row.cells) + " |")
        writer.end_lines()
    elif getattr(shape, "has_text_frame", False):
        for paragraph in shape.text_frame.paragraphs:
            text = clean("".join(run.text for run in paragraph.runs))
            if text and paragraph.level > 0:
                writer.line("- " + text)
            elif text:
                writer.paragraph(text)
