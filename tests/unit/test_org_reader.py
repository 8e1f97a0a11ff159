"""Org-mode (`ingest/formats/org.py`, `org_inline.py`): small documents written here,
each construct read through the loader as the daemon reads them, and chunked to see
the heading paths a citation would carry."""

from __future__ import annotations

import pytest

from ragd.core.config import DOCUMENT_PATTERNS
from ragd.core.no_text import is_no_text
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document, SkipFile
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import module_name
from ragd.ingest.loaders import parse


def read(source: str, name: str = "notes.org") -> Document:
    return parse(name, source.encode())


def paths(document: Document) -> list[str]:
    return [chunk.heading_path for chunk in chunk_document(document)]


def test_org_files_are_documents_read_as_org() -> None:
    assert PathFilter(DOCUMENT_PATTERNS).includes("notes.org")
    assert module_name("Notes.ORG") == "org"


def test_headlines_sit_under_the_title() -> None:
    document = read(
        "#+TITLE: Harbour Notes\n#+AUTHOR: Ann\n\nIntro words.\n\n* Mooring\nRopes.\n"
        "** Fees\nFive euro.\n* Tides\nTwice a day.\n"
    )
    assert paths(document) == [
        "Harbour Notes",
        "Harbour Notes > Mooring",
        "Harbour Notes > Mooring > Fees",
        "Harbour Notes > Tides",
    ]
    assert "Ann" not in document.text  # #+AUTHOR: is a setting


def test_without_a_title_headlines_start_at_the_top() -> None:
    assert paths(read("* Mooring\nRopes.\n** Fees\nFive euro.\n")) == [
        "Mooring",
        "Mooring > Fees",
    ]


def test_keywords_priorities_and_tags_leave_the_path_but_keep_their_words() -> None:
    document = read(
        "#+TODO: TODO NEXT | DONE\n* TODO [#A] Renew the permit :harbour:admin:\nAt the office.\n"
        "* NEXT Pay fees\nOnline.\n* DONE Paint the hull\nBlue.\n* Plain :boats:\nText.\n"
    )
    assert paths(document) == ["Renew the permit", "Pay fees", "Paint the hull", "Plain"]
    text = document.text
    assert "TODO; priority A; tags: harbour, admin\n\nAt the office." in text
    assert "NEXT\n\nOnline." in text and "DONE\n\nBlue." in text
    assert "tags: boats" in text


def test_source_and_example_blocks_are_code() -> None:
    document = read(
        "* Code\n#+BEGIN_SRC python :results output\nprint('tide')\n,* not a headline\n"
        "#+END_SRC\n\n#+begin_example\nexample text\n#+end_example\n\n: fixed width\n"
        "#+BEGIN_COMMENT\nhidden words\n#+END_COMMENT\n"
    )
    text = document.text
    assert "```python\nprint('tide')\n* not a headline\n```" in text
    assert "```\nexample text\n```" in text
    assert "```\nfixed width\n```" in text
    assert "hidden" not in text and "END_SRC" not in text
    assert paths(document) == ["Code"]


def test_a_block_never_closed_in_its_section_is_text() -> None:
    document = read("* A\n#+BEGIN_SRC sh\nls\n* B\nwords\n#+END_SRC\n")
    assert paths(document) == ["A", "B"]  # the headline is not swallowed as code
    assert "```" not in document.text


def test_keyword_lines_comments_and_property_drawers_are_not_text() -> None:
    document = read(
        "#+OPTIONS: toc:nil\n#+STARTUP: overview\n# a comment\n* Task\n"
        ":PROPERTIES:\n:ID: 1234-secret\n:END:\n:LOGBOOK:\nCLOCK: [2024-01-01]\n:END:\n"
        ":NOTES:\nDrawer words stay.\n:END:\nBody.\n#+CAPTION: Fee table\n"
        '#+INCLUDE: "/etc/passwd"\n'
    )
    text = document.text
    for markup in ("OPTIONS", "overview", "comment", "secret", "PROPERTIES", "CLOCK", ":END:"):
        assert markup not in text
    assert "Drawer words stay." in text and "Body." in text
    assert "Fee table" in text
    assert "(includes /etc/passwd)" in text and "root:" not in text


def test_links_are_their_text() -> None:
    document = read(
        "See [[https://example.org][the guide]] and [[file:fees.org]]; "
        "mail [[mailto:desk@harbour.example][the desk]].\n"
    )
    assert "See the guide and file:fees.org; mail the desk (desk@harbour.example)." in document.text


def test_tables_and_lists_are_kept_as_rows_and_items() -> None:
    document = read(
        "| Boat | Fee |\n|------+-----|\n| Dinghy | [[x][5]] |\n\n"
        "- first\n  continued\n- [X] done item\n- term :: definition\n1. numbered\n"
    )
    text = document.text
    assert "| Boat | Fee |\n| Dinghy | 5 |" in text and "---" not in text
    assert "- first continued\n- [X] done item\n- term: definition\n1. numbered" in text


def test_an_item_wrapped_at_the_margin_mid_sentence_goes_on() -> None:
    """Postmodern's manual (newuser56) wraps an item by hand at the margin in mid-sentence;
    read as Org says, an item and half a sentence of paragraph each, the keyless answer
    quoted "possible of the work at compile time. Finally,". An item that ends a sentence
    still ends at the margin: the paragraph after the list is its own."""
    document = read(
        "- S-SQL compiles s-expressions to SQL, doing as much as\n"
        "possible of the work at compile time.\n"
        "- CL-postgres talks to the server.\n"
        "The list ends here.\n"
    )
    assert (
        "- S-SQL compiles s-expressions to SQL, doing as much as possible of the work at "
        "compile time.\n- CL-postgres talks to the server.\n\nThe list ends here." in document.text
    )


def test_a_paragraph_under_a_list_without_a_blank_line_is_its_own() -> None:
    """Postmodern's create-tables page writes each definition under its term with no blank
    line ("- SET NULL" / "Set the referencing column(s) to null."): the term stops
    mid-sentence but the line under it starts one, and Org ends the item there. An item
    whose stop is inside a bracket or quote, or before a footnote, ends a sentence too."""
    shapes = {  # source: how it reads
        "- SET NULL\nSet the referencing column(s) to null.": "- SET NULL\n\nSet the",
        "- see the manual (chapter 2.)\nthe list ends.": "(chapter 2.)\n\nthe list",
        "- a claim.[fn:1]\nso does this one.": "\n\nso does this one.",
        "- storing time-related\nSQL types, by hand.": "- storing time-related SQL types",
        "- an item going on\n-----\nafter the rule.": "- an item going on\n\nafter the rule.",
        "A paragraph going on\n-----\nafter the rule.": "going on\n\nafter the rule.",
    }
    for source, shown in shapes.items():
        assert shown in read(source + "\n").text, source


def test_a_ten_megabyte_line_and_deep_nesting_read_whole() -> None:
    """A line of 10 MB (`[[` runs, a headline of stars) and 100,000 nested or unclosed
    blocks are read in one pass (their growth is timed in test_regex_linear)."""
    size = 10 * 1024 * 1024
    assert len(read("x " + "[[" * (size // 2)).text) == size + 2
    assert paths(read("*" * size + " Deep :a:\nbody\n")) == ["Deep"]
    unclosed = read("#+BEGIN_SRC\n" * 100_000)
    assert unclosed.text.count("#+BEGIN_SRC") == 100_000  # never closed: text
    nested = read("#+BEGIN_QUOTE\n" * 100_000 + "inside\n" + "#+END_QUOTE\n" * 100_000)
    assert nested.text == "inside"


def test_a_commented_subtree_is_left_out_whole() -> None:
    """fix30: `* COMMENT Draft` comments out its headline, body and every deeper headline
    under it, as Org's export does; only the word COMMENT was dropped before, and
    "Draft", its words and its children were indexed."""
    document = read(
        "* Mooring\nRopes.\n* TODO [#A] COMMENT Draft :wip:\nunfinished words\n"
        "** Deeper draft\nmore unfinished words\n*** Deepest\nstill hidden\n"
        "* Tides\nTwice a day.\n** COMMENT\nbare hidden\n** Neap tides\nSmall.\n"
        "* COMMENTARY is a title\nKept.\n"
    )
    assert paths(document) == ["Mooring", "Tides", "Tides > Neap tides", "COMMENTARY is a title"]
    text = document.text
    for hidden in ("Draft", "unfinished", "Deeper", "Deepest", "hidden", "TODO", "wip"):
        assert hidden not in text
    assert "Ropes." in text and "Twice a day." in text and "Small." in text and "Kept." in text


def test_a_file_of_commented_subtrees_only_has_no_text() -> None:
    with pytest.raises(SkipFile) as skipped:
        read("* COMMENT Draft\nwords\n** Child\nmore words\n* COMMENT Other\nx\n")
    assert is_no_text(str(skipped.value)), skipped.value  # skipped as such, not an error
