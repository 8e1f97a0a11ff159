import itertools

from ragd.ingest.chunking import ChunkParams, chunk_document, estimate_tokens, split_sections
from ragd.ingest.loaders import Document


def md(text: str, title: str = "doc") -> list:
    return chunk_document(Document(kind="markdown", title=title, text=text))


def test_every_chunk_has_exactly_one_heading_path() -> None:
    chunks = md("# Guide\nintro\n## Setup\nsteps here\n### Linux\napt install\n## Usage\nrun it\n")
    assert [c.heading_path for c in chunks] == [
        "Guide",
        "Guide > Setup",
        "Guide > Setup > Linux",
        "Guide > Usage",
    ]
    assert [c.text for c in chunks] == ["intro", "steps here", "apt install", "run it"]


def test_text_before_first_heading_belongs_to_the_title() -> None:
    chunks = md("Preface words.\n\n# The Title\n\nBody.\n")
    assert chunks[0].heading_path == "The Title"
    assert chunks[0].text == "Preface words."
    no_h1 = md("Loose text.\n\n## Section\n\nMore.\n", title="notes")
    assert no_h1[0].heading_path == "notes"
    assert no_h1[1].heading_path == "Section"


def test_hash_inside_a_fence_is_code_not_a_heading() -> None:
    text = "# Ops\n\n```bash\n# restart the service\nsystemctl restart x\n# done\n```\n\nAfter.\n"
    chunks = md(text)
    assert len(chunks) == 1
    assert chunks[0].heading_path == "Ops"
    assert "# restart the service" in chunks[0].text and "After." in chunks[0].text


def test_code_fence_is_atomic_when_packing() -> None:
    para = "word " * 300  # ≈ 1,500 chars
    code = "```\n" + "\n".join(f"# line {i} " + "x" * 40 for i in range(20)) + "\n```"
    chunks = md(f"# T\n\n{para}\n\n{code}\n\n{para}\n")
    holders = [c for c in chunks if "# line 0" in c.text]
    assert len(holders) == 1
    assert "# line 19" in holders[0].text  # not cut


def test_packing_respects_target_and_overlaps_with_whole_paragraphs() -> None:
    paragraphs = [f"Paragraph {i} says something useful about topic {i}. " * 3 for i in range(40)]
    chunks = md("# Big\n\n" + "\n\n".join(paragraphs))
    params = ChunkParams()
    assert len(chunks) > 3
    for chunk in chunks:
        assert estimate_tokens(chunk.text) <= params.target_tokens * 1.05
        # every piece of every chunk is a whole paragraph
        for piece in chunk.text.split("\n\n"):
            assert piece in paragraphs or piece.strip() in [p.strip() for p in paragraphs]
    for before, after in itertools.pairwise(chunks):
        first = after.text.split("\n\n")[0]
        assert first in before.text  # overlap carried over from the previous chunk
        assert estimate_tokens(first) <= params.overlap_tokens * 1.5


def test_oversized_paragraph_is_split_at_sentence_boundaries() -> None:
    sentences = [f"Sentence number {i} is here." for i in range(200)]
    chunks = md("# Long\n\n" + " ".join(sentences))
    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.text.endswith(".")
        assert estimate_tokens(chunk.text) <= ChunkParams().target_tokens


def test_pdf_chunks_keep_their_page() -> None:
    doc = Document(kind="pdf", title="report", pages=[(1, "First page text."), (2, "Second.")])
    chunks = chunk_document(doc)
    assert [(c.page, c.heading_path) for c in chunks] == [(1, "report"), (2, "report")]


def test_heading_levels_pop_correctly() -> None:
    sections = split_sections("# A\nx\n### C\ny\n## B\nz\n# D\nw\n", "f")
    assert [s[0] for s in sections] == [("A",), ("A", "C"), ("A", "B"), ("D",)]
