"""A PDF's outline heads its pages (ingest/pdf_outline.py, chunker 94): each part of a page
under the outline path in force there, a page cut where an entry's title stands."""

from __future__ import annotations

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document
from ragd.ingest.loaders import parse
from ragd.ingest.pdf_outline import outlined_pages
from tests.support.outlined_pdf import outlined_pdf


def test_a_pdfs_outline_heads_the_text_of_its_sections() -> None:
    data = outlined_pdf(
        [
            (
                ["Widget Manual", "Widgets turn cranks.", "1 Installing", "Bolt it down."],
                [("1 Installing", 0)],
            ),
            (
                [
                    "Mains power only.",
                    "1.1 Cables",
                    "Use the grey cable.",
                    "2 Cleaning",
                    "Wipe with a damp cloth.",
                ],
                [("1.1 Cables", 1), ("2 Cleaning", 0)],
            ),
        ]
    )
    doc = parse("manual.pdf", data)
    assert doc.outline == [(1, 0, "1 Installing"), (2, 1, "1.1 Cables"), (2, 0, "2 Cleaning")]
    where = {}
    for chunk in chunk_document(doc):
        for sentence in ("Widgets turn", "Bolt it", "Mains power", "grey cable", "damp cloth"):
            if sentence in chunk.text:
                where[sentence] = (chunk.heading, chunk.page)
    assert where == {
        "Widgets turn": (("Widget Manual",), 1),  # before the first entry's title
        "Bolt it": (("Widget Manual", "1 Installing"), 1),
        "Mains power": (("Widget Manual", "1 Installing"), 2),  # carried over the break
        "grey cable": (("Widget Manual", "1 Installing", "1.1 Cables"), 2),
        "damp cloth": (("Widget Manual", "2 Cleaning"), 2),  # a sibling ends the subtree
    }


def test_a_pdf_without_an_outline_keeps_its_title_alone() -> None:
    doc = parse("notes.pdf", outlined_pdf([(["Meeting notes", "We met."], [])]))
    assert doc.outline == []
    assert {c.heading for c in chunk_document(doc)} == {("Meeting notes",)}


def test_a_title_is_found_with_its_words_glued_or_cased_otherwise() -> None:
    # pypdf glues the words of some TeX fonts' lines ("Differentfonttechnologies") and
    # prints TeX's logo as "TEX": letters and digits are compared, case aside.
    page = "intro text\n1.2 Differentfonttechnologies: AAT\nbody\n2 Using TEX\nmore"
    parts = outlined_pages(
        [(5, page)], [(5, 0, "1.2 Different font technologies: AAT"), (5, 0, "2 Using TeX")]
    )
    assert parts == [
        ((), 5, "intro text"),
        (("1.2 Different font technologies: AAT",), 5, "1.2 Differentfonttechnologies: AAT\nbody"),
        (("2 Using TeX",), 5, "2 Using TEX\nmore"),
    ]


def test_a_title_not_on_its_page_starts_at_its_top_and_blank_pages_pass_theirs_on() -> None:
    # An entry's title drawn as an image is not in the text: its section starts at the
    # page's top. Entries pointing at a page with no text start at the next one's top.
    parts = outlined_pages(
        [(1, "front matter"), (3, "chapter text"), (4, "more text")],
        [(2, 0, "Part I"), (3, 1, "Chapter 1"), (4, 1, "Chapter 2")],
    )
    assert parts == [
        ((), 1, "front matter"),
        (("Part I", "Chapter 1"), 3, "chapter text"),
        (("Part I", "Chapter 2"), 4, "more text"),
    ]


def test_thousands_of_entries_on_one_page_still_head_it() -> None:
    # Looking for titles is bounded per line of the page: entries past the budget start
    # where the last one found did, and every line is kept.
    lines = [f"line {i}" for i in range(50)]
    outline = [(1, 0, f"Section {i}") for i in range(4000)] + [(1, 0, "line 30")]
    parts = outlined_pages([(1, "\n".join(lines))], outline)
    assert "\n".join(text for _, _, text in parts) == "\n".join(lines)
    assert parts[-1][0] == ("line 30",)


def test_an_outline_comes_through_the_chunker_as_headings_only() -> None:
    doc = Document(
        kind="pdf", title="t", pages=[(1, "Guide\n1 Start\nGo.")], outline=[(1, 0, "1 Start")]
    )
    assert [(c.heading, c.text) for c in chunk_document(doc)] == [
        (("Guide",), "Guide"),
        (("Guide", "1 Start"), "1 Start\nGo."),
    ]
