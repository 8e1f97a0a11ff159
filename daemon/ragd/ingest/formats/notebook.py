"""Jupyter notebooks (``.ipynb``) through nbformat: markdown, code and raw cells, no outputs.

nbformat is Jupyter's own reader: it upgrades old notebook versions to v4 and knows the
cell schema. Markdown cells are Markdown already, so their headings give the heading
paths; code cells become fenced blocks in the kernel's language; raw cells (text nbconvert
passes through untouched: reST, LaTeX, HTML, a citation block) become fenced blocks in the
language of their declared format, as written, or Markdown when they declare Markdown (they
had been dropped, words and all: attack52). Outputs are left out:
they are results, often huge (images, dataframes, logs), and rarely what a question is
about.

Each chunk knows the cells it came from (1-based, in notebook order, code and markdown
cells alike), which is how a notebook's citation is opened.
"""

from __future__ import annotations

import json
import warnings
from pathlib import PurePath

from ragd.ingest.document import Document, SkipFile, decode_text
from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.heading_text import with_rendered_headings

FORMAT = "notebook"


def parse(name: str, data: bytes) -> Document:
    import nbformat

    text, notes = decode_text(data)
    with warnings.catch_warnings():  # schema nits (missing cell ids, …) are not our reader's
        warnings.simplefilter("ignore")
        try:
            notebook = nbformat.reads(text, as_version=4)
        except nbformat.reader.NotJSONError:
            raise SkipFile("damaged notebook (not JSON)") from None
        except (RecursionError, MemoryError):
            raise
        except Exception:  # nbformat refuses it whole: the cells as written
            notebook = _as_written(text)
    language = _language(notebook.get("metadata"))
    writer = MarkdownWriter()
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        writer.at = number
        if not isinstance(cell, dict):
            continue  # a cell as a string, null: it says nothing, the others still do
        source = _source(cell.get("source", ""))
        if source is None:
            continue  # not text: this cell says nothing, the others still do
        if cell.get("cell_type") == "markdown":
            writer.markdown(with_rendered_headings(source))
        elif cell.get("cell_type") == "code":
            writer.code(source, language)
        elif cell.get("cell_type") == "raw":
            _write_raw(writer, source, cell.get("metadata"))
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=writer.text(),
        notes=notes,
        located="cells",
        origins=writer.origins(),
    )


def _as_written(text: str) -> dict[str, object]:
    """The notebook in `text` (JSON that nbformat refused) as its fields are: one cell
    that is a string or lacks its `metadata`, a `metadata` that is a list, no `nbformat`
    field, each made nbformat raise ("'str' object has no attribute 'get'",
    UnboundLocalError), so the notebook was "unreadable" and every other cell's words
    lost (attack56). Its cells are v4's `cells` or v3's worksheets' cells."""
    fields = json.loads(text)
    if not isinstance(fields, dict):
        raise SkipFile("damaged notebook (JSON, but not an object)")
    cells = fields.get("cells")
    if not isinstance(cells, list):
        sheets = fields.get("worksheets")
        sheets = sheets if isinstance(sheets, list) else []
        cells = [
            cell
            for sheet in sheets
            if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list)
            for cell in sheet["cells"]
        ]
    return {"metadata": fields.get("metadata"), "cells": cells}


# A raw cell's declared format (`raw_mimetype`, or `format` in older notebooks) → the fence's
# language; any other declared or no format is a plain fence.
RAW_LANGUAGES = {
    "text/restructuredtext": "rst",
    "text/x-rst": "rst",
    "text/latex": "latex",
    "text/html": "html",
    "text/x-python": "python",
    "text/asciidoc": "asciidoc",
}
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")


def _write_raw(writer: MarkdownWriter, source: str, metadata: object) -> None:
    fields = metadata if isinstance(metadata, dict) else {}
    declared = fields.get("raw_mimetype", fields.get("format"))
    kind = declared.strip().lower() if isinstance(declared, str) else ""
    if kind in MARKDOWN_TYPES:
        writer.markdown(with_rendered_headings(source))
    else:
        writer.code(source, RAW_LANGUAGES.get(kind, ""))


def _language(metadata: object) -> str:
    """The kernel's language, for the code cells' fences; "" when the metadata does not
    say it as the schema does. Its fields are only labels: `"language_info": null` (or
    a string) had made the whole notebook "unreadable" (attack52)."""
    for section, key in (("language_info", "name"), ("kernelspec", "language")):
        fields = metadata.get(section) if isinstance(metadata, dict) else None
        value = fields.get(key) if isinstance(fields, dict) else None
        if isinstance(value, str) and value:
            return value
    return ""


def _source(source: object) -> str | None:
    """A cell's text: a string, or v3-style lines should nbformat leave a list; None for
    anything else (a number, an object), which is no text to read."""
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return None
