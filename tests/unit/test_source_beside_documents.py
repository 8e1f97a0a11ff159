"""Which units lose SOURCE_PENALTY (query/extractive.py): a program's source read as code,
when the page holds something else too — not an example program or a test (they show the
project in use), not Rust (its doc comments are read as Markdown), and nothing on a page
of source alone."""

from __future__ import annotations

from ragd.query.candidates import candidates_of
from ragd.query.extractive import _source_beside_documents
from tests.support.chunks import make_chunk

CODE = "```python\ndef tide_height(port):\n    return port.gauge.read()\n```\n"
README = "Call tide_height(port) to read the harbour gauge of a port.\n"


def flagged(*chunks: tuple[str, str]) -> set[str]:
    candidates = candidates_of([make_chunk(source, "Tides", text) for source, text in chunks])
    marks = _source_beside_documents(candidates)
    return {c.chunk.source for c, mark in zip(candidates, marks, strict=True) if mark}


def test_program_source_beside_a_document_is_flagged() -> None:
    assert flagged(("tidewatch/gauge.py", CODE), ("README.md", README)) == {"tidewatch/gauge.py"}


def test_an_example_program_a_test_and_rust_are_not() -> None:
    rust = "/// Reads the harbour gauge of a port.\npub fn tide_height() {}\n"
    pages = [
        ("examples/gauge.py", CODE),
        ("tests/test_gauge.py", CODE),
        ("src/gauge.rs", rust),
        ("README.md", README),
    ]
    assert flagged(*pages) == set()


def test_a_page_of_source_alone_is_not() -> None:
    assert flagged(("tidewatch/gauge.py", CODE), ("tidewatch/port.py", CODE)) == set()
