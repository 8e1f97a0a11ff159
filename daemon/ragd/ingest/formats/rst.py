"""reStructuredText (``.rst``) through docutils: section titles become heading paths.

docutils is the reference implementation of the format (Sphinx builds on it), so section
levels come out exactly as the author's title adornments define them. It runs with
everything that could reach outside the file turned off: no ``include`` or ``raw`` file
insertion, no config files, no messages on stderr. Directives it does not know (Sphinx's
``toctree``, ``autoclass``, …) leave a system message, which is dropped; the text around
them is kept.
"""

from __future__ import annotations

import io
from pathlib import PurePath
from typing import Any

from ragd.ingest.document import Document, decode_text
from ragd.ingest.formats.markdown import MarkdownWriter, clean

FORMAT = "reStructuredText"

SETTINGS = {
    "file_insertion_enabled": False,  # `.. include::` and `:file:` would read other files
    "raw_enabled": False,
    "_disable_config": True,
    "doctitle_xform": False,  # keep the top title a section, so it heads the path
    "report_level": 5,
    "halt_level": 5,
    "input_encoding": "unicode",
}


def parse(name: str, data: bytes) -> Document:
    from docutils.core import publish_doctree

    text, notes = decode_text(data)
    tree = publish_doctree(text, settings_overrides=dict(SETTINGS, warning_stream=io.StringIO()))
    writer = MarkdownWriter()
    _write(tree, writer, 0)
    return Document(kind="markdown", title=PurePath(name).stem, text=writer.text(), notes=notes)


def _write(node: Any, writer: MarkdownWriter, level: int) -> None:
    from docutils import nodes

    # Titles are written with their section; the rest is markup, not text.
    dropped = (
        nodes.title,
        nodes.system_message,
        nodes.comment,
        nodes.substitution_definition,
        nodes.target,
        nodes.raw,
    )

    for child in node.children:
        if isinstance(child, nodes.section):
            titles = [c for c in child.children if isinstance(c, nodes.title)]
            writer.heading(level + 1, titles[0].astext() if titles else "")
            _write(child, writer, level + 1)
        elif isinstance(child, dropped):
            continue
        elif isinstance(child, nodes.literal_block | nodes.doctest_block):
            classes = [c for c in child.get("classes", []) if c != "code"]
            writer.code(child.astext(), classes[0] if classes else "")
        elif isinstance(child, nodes.bullet_list | nodes.enumerated_list):
            for item in child.children:
                writer.line("- " + clean(item.astext()))
            writer.end_lines()
        elif isinstance(child, nodes.table):
            for row in child.findall(nodes.row):
                writer.line("| " + " | ".join(clean(e.astext()) for e in row.children) + " |")
            writer.end_lines()
        elif isinstance(child, nodes.definition_list_item | nodes.field):
            parts = [clean(c.astext()) for c in child.children]
            writer.paragraph(": ".join(p for p in parts if p))
        elif isinstance(child, nodes.TextElement | nodes.Text):
            writer.paragraph(clean(child.astext()))
        elif isinstance(child, nodes.Element):
            _write(child, writer, level)  # containers: block quotes, admonitions, lists of terms
