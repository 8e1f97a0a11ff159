"""What the code reader and the chunker make of a source file, for the tests of each
language: its sections by heading path, and the check that no line is lost."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse


def sections_of(name: str, data: bytes) -> dict[str, str]:
    """Heading path → the text of its chunks, in file order."""
    out: dict[str, str] = {}
    for chunk in chunk_document(parse(name, data)):
        out[chunk.heading_path] = out.get(chunk.heading_path, "") + chunk.text
    return out


def assert_every_line_kept(name: str, data: bytes) -> None:
    """Each chunk starts and ends on the lines it reports; every non-blank line of the
    file is in a chunk."""
    chunks = chunk_document(parse(name, data))
    lines = data.decode().split("\n")
    for chunk in chunks:
        assert chunk.lines is not None
        first, last = chunk.lines
        assert lines[first - 1].strip() in chunk.text
        assert lines[last - 1].strip() in chunk.text
    covered = {n for c in chunks if c.lines for n in range(c.lines[0], c.lines[1] + 1)}
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered
