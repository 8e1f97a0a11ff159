"""What hostile70 bounded: the text the index holds of a file, and the text a groff
document keeps, whatever a hostile file does (output sizes and words kept, no clock).

- a Markdown code fence whose opening line is thousands of characters long: each later
  piece of the block carried that whole line, so the index held the file ≈ 3 times over;
  the chunks' text is now within a fixed factor of the file's at n, 2n and 4n;
- a groff string doubling itself (`.ds x \\*x\\*x`) a thousand times spent the document's
  printing allowance, so every string printed after it printed nothing;
- a `.de` or `.ig` block never closed swallowed the rest of the file (as troff does): its
  lines are now read as the page's, once.
"""

from __future__ import annotations

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse

CODE_LINE = "    let tide = harbour.read_gauge(station, offset) + correction; // gauge\n"


def fenced(info_chars: int, lines: int) -> str:
    info = "rust " + " ".join(f"attr{i}=v{i}" for i in range(info_chars // 11))
    return f"# Gauges\n\nHow the gauge is read.\n\n```{info}\n{CODE_LINE * lines}```\n"


def held(text: str) -> float:
    """The characters of a Markdown file's chunks over the file's own."""
    chunks = chunk_document(parse("gauges.md", text.encode()))
    return sum(len(chunk.text) for chunk in chunks) / len(text)


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_a_long_fence_line_is_held_a_bounded_number_of_times(scale: int) -> None:
    """Opening lines of ≈ 2,000, 4,000 and 8,000 characters over a block of 600 lines:
    before, each piece of the block repeated the opening line (2,000 characters: the
    chunks held ≈ 3× the file)."""
    text = fenced(2_000 * scale, 600)
    assert held(text) < 1.5
    chunks = chunk_document(parse("gauges.md", text.encode()))
    assert all(chunk.text.count("attr100=") <= 1 for chunk in chunks)
    assert sum(chunk.text.count("attr100=") for chunk in chunks) == 1  # kept, once


def test_a_short_fence_line_is_still_carried_whole() -> None:
    text = '# Gauges\n\n```rust title="gauge.rs"\n' + CODE_LINE * 600 + "```\n"
    chunks = chunk_document(parse("gauges.md", text.encode()))
    assert len(chunks) > 2
    assert all(chunk.text.startswith('```rust title="gauge.rs"') for chunk in chunks)


def roff_text(source: str, name: str = "gauge.1") -> str:
    return "\n".join(chunk.text for chunk in chunk_document(parse(name, source.encode())))


PAGE = ".TH GAUGE 1\n.SH NAME\ngauge \\- read a tide gauge\n.SH DESCRIPTION\n"


@pytest.mark.parametrize("name", ["gauge.1", "gauge.ms"])
def test_a_string_doubling_itself_leaves_later_strings_printed(name: str) -> None:
    """2,000 lines of `.ds x \\*x\\*x`, then a 1,000-character string printed on 100
    lines: every one prints it (before, the definitions had spent the document's printing
    allowance down to less than its own size: 91 of the 100 printed nothing)."""
    tide = "tide " * 200
    doubling = ".ds x a\n" + ".ds x \\*x\\*x\n" * 2_000
    later = "".join(f"Entry {i} reads \\*(lg at dawn.\n" for i in range(100))
    source = (PAGE if name.endswith(".1") else ".PP\n") + f".ds lg {tide}\n" + doubling + later
    text = roff_text(source, name)
    assert text.count(" at dawn.") == 100
    assert text.count(f"reads {tide.strip()} at dawn.") == 100


@pytest.mark.parametrize("opener", [".de XX", ".ig", ".de1 YY END"])
def test_a_block_never_closed_leaves_the_text_after_it(opener: str) -> None:
    source = PAGE + "The gauge reads at dawn.\n" + opener + "\n.B broken\n"
    source += ".SH OPTIONS\nThe valve opens at noon.\n"
    text = roff_text(source)
    assert "The gauge reads at dawn." in text
    assert "The valve opens at noon." in text


def test_a_block_closed_still_hides_its_lines() -> None:
    source = PAGE + ".ig\nHidden words.\n..\nThe valve opens at noon.\n"
    text = roff_text(source)
    assert "Hidden words" not in text and "The valve opens at noon." in text
