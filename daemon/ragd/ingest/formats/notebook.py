"""Jupyter notebooks (``.ipynb``) through nbformat: markdown cells and code cells, no outputs.

nbformat is Jupyter's own reader: it upgrades old notebook versions to v4 and knows the
cell schema. Markdown cells are Markdown already, so their headings give the heading
paths; code cells become fenced blocks in the kernel's language. Outputs are left out:
they are results, often huge (images, dataframes, logs), and rarely what a question is
about.

Each chunk knows the cells it came from (1-based, in notebook order, code and markdown
cells alike), which is how a notebook's citation is opened.
"""

from __future__ import annotations

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
    metadata = notebook.get("metadata", {})
    language = str(
        metadata.get("language_info", {}).get("name")
        or metadata.get("kernelspec", {}).get("language")
        or ""
    )
    writer = MarkdownWriter()
    for number, cell in enumerate(notebook.get("cells", []), start=1):
        writer.at = number
        source = cell.get("source", "")
        if isinstance(source, list):  # v3-style line lists, should nbformat leave one
            source = "".join(source)
        if cell.get("cell_type") == "markdown":
            writer.markdown(with_rendered_headings(source))
        elif cell.get("cell_type") == "code":
            writer.code(source, language)
    return Document(
        kind="markdown",
        title=PurePath(name).stem,
        text=writer.text(),
        notes=notes,
        located="cells",
        origins=writer.origins(),
    )
