"""A file made of headings costs chunks by its size, as paragraphs do (ingest.section_budget).

Before: every heading started a chunk, so 79 KB of bare `# hN` lines made 20,000 chunks
(the same size of paragraphs: about 40), each an embedding, a vector, a manifest row and a
tantivy document; through a daemon, 129 KB of them took 89 s to index and 145 MB of memory
where 83 KB of paragraphs took 9 s. The merged sections keep every word and their lines.
"""

from __future__ import annotations

import re

import pytest

from ragd.ingest.chunking import UNTITLED, Chunk, ChunkParams, chunk_document
from ragd.ingest.document import Document, split_lines
from ragd.ingest.section_budget import over_budget

COUNT = 8000


def _chunks(kind: str, text: str) -> list[Chunk]:
    return chunk_document(Document(kind, "file", text, located="lines"))  # type: ignore[arg-type]


def _paragraphs(size: int) -> str:
    words = []
    i = 0
    while sum(map(len, words)) < size:
        words.append(f"Paragraph {i} says valve {i} is checked every week.\n\n")
        i += 1
    return "".join(words)


SHAPES = {
    "bare headings": ("markdown", "\n".join(f"# h{i}" for i in range(COUNT))),
    "nested bare headings": (
        "markdown",
        "\n".join(f"{'#' * (1 + i % 3)} h{i}" for i in range(COUNT)),
    ),
    "headings over one word": ("markdown", "\n".join(f"## h{i}\nw{i}" for i in range(COUNT))),
    "underlined plain-text titles": (
        "text",
        "\n\n".join(f"Title h{i}\n==========" for i in range(COUNT)),
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_file_of_headings_makes_chunks_by_its_size_and_keeps_every_word(shape: str) -> None:
    kind, text = SHAPES[shape]
    chunks = _chunks(kind, text)
    paragraphs = _chunks("markdown", _paragraphs(len(text)))
    # Before: COUNT chunks (one a heading), 100-200 times the paragraphs' number.
    assert len(chunks) <= 3 * len(paragraphs), (len(chunks), len(paragraphs))

    said = " ".join(f"{' '.join(c.heading)} {c.text}" for c in chunks)
    tokens = set(re.findall(r"\b[hw]\d+\b", text))
    assert tokens - set(re.findall(r"\b[hw]\d+\b", said)) == set()

    # Each chunk's lines hold its words: `get` by lines and the sources stay right.
    lines = split_lines(text)
    for chunk in chunks:
        assert chunk.lines is not None
        first, last = chunk.lines
        span = " ".join(lines[first - 1 : last])
        for token in re.findall(r"\b[hw]\d+\b", chunk.fresh or chunk.text):
            assert re.search(rf"\b{token}\b", span), (token, chunk.lines)


def test_ordinary_documents_keep_one_section_per_heading() -> None:
    sections = [f"## Part {i}\n\n{_paragraphs(300)}" for i in range(40)]
    text = "# Guide\n\n" + "\n".join(sections) + "\n## Deprecated\n## Removed\n\nGone.\n"
    chunks = _chunks("markdown", text)
    assert not over_budget([((), [], 0)] * 42, len(text))
    headings = [c.heading for c in chunks]
    assert [("Guide", f"Part {i}") for i in range(40)] == [h for h in headings if "Part" in h[-1]]
    # A heading with nothing under it stays its own chunk (its title is its text).
    assert Chunk(("Guide", "Deprecated"), "Deprecated", fresh="Deprecated") in [
        Chunk(c.heading, c.text, fresh=c.fresh) for c in chunks
    ]


def test_merged_headings_name_the_levels_the_path_no_longer_says() -> None:
    # 200 sections of one word each under two H1s: over the budget, so merged. The
    # merged sections' path is what their members share; the rest is written as text.
    body = "\n".join(f"## s{i}\nword{i}" for i in range(100))
    text = f"# Alpha\n{body}\n# Beta\n{body.replace('word', 'term')}"
    chunks = _chunks("markdown", text)
    assert len(chunks) < 20
    alpha = [c for c in chunks if "word5" in c.text.split()]
    # Two H1s: the file has no one title (chunking._document_title), and this chunk runs
    # from Alpha into Beta, so its members share no level; its path is the file's content
    # title, and "Alpha", "Beta" are written in its text.
    assert alpha and alpha[0].heading == (UNTITLED,)
    assert alpha[0].text.startswith("Alpha\n")
    assert "s5\nword5" in alpha[0].text
    assert ChunkParams().target_chars // 4 < len(alpha[0].text)


@pytest.mark.parametrize(
    "text",
    [
        "".join(f"## {i} January\n\nBought rope for mooring {i}.\n\n" for i in range(1000)),
        "".join(f"## proc p{i}\n\n```tcl\nproc p{i} {{}} {{ {i} }}\n```\n\n" for i in range(600)),
    ],
    ids=["a journal of dated entries", "a Tcl file of 600 procs as code.py writes it"],
)
def test_merged_sections_are_not_named_after_the_first_one(text: str) -> None:
    """A file over its section budget whose first line is a heading other than its one
    title: merged runs of sections that share no heading had been headed by that line as
    written, `## proc p0` (markup and all), every chunk of a Tcl file of 600 procs cited
    as the first proc, a journal's as its first day."""
    chunks = _chunks("markdown", text)
    assert 1 < len(chunks) < 100  # merged
    for chunk in chunks:  # the runs share no heading: the file has no title to give them
        assert chunk.heading == (UNTITLED,), chunk.heading
    said = " ".join(c.text for c in chunks)
    assert "proc p599" in said or "599 January" in said  # each heading written as text
