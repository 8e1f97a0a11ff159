"""AsciiDoc (`ingest/formats/asciidoc.py`, `asciidoc_inline.py`, `asciidoc_tables.py`):
small documents written here, each construct read through the loader as the daemon
reads them, and chunked to see the heading paths a citation would carry."""

from __future__ import annotations

from ragd.core.config import DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document, split_lines
from ragd.ingest.filters import PathFilter
from ragd.ingest.formats import module_name
from ragd.ingest.loaders import parse


def read(source: str, name: str = "guide.adoc") -> Document:
    return parse(name, source.encode())


def paths(document: Document) -> list[str]:
    return [chunk.heading_path for chunk in chunk_document(document)]


def test_adoc_and_asciidoc_files_are_documents_read_as_asciidoc() -> None:
    documents = PathFilter(DOCUMENT_PATTERNS)
    for name in ("guide.adoc", "README.asciidoc", "GUIDE.ADOC"):
        assert documents.includes(name.lower()), name
    assert module_name("guide.adoc") == module_name("a.asciidoc") == "asciidoc"


def test_titles_are_headings_at_their_level() -> None:
    document = read(
        "= Harbour Guide\n\nIntro words.\n\n== Mooring\n\nRopes doubled.\n\n"
        "=== Fees ===\n\nFive euro.\n\n## Markdown Style\n\nAlso a section.\n"
    )
    assert paths(document) == [
        "Harbour Guide",
        "Harbour Guide > Mooring",
        "Harbour Guide > Mooring > Fees",
        "Harbour Guide > Markdown Style",
    ]


def test_two_line_titles_are_headings_but_not_over_a_four_character_delimiter() -> None:
    document = read(
        "Harbour Guide\n=============\n\nIntro.\n\nMooring Rules\n-------------\n\n"
        "Ropes.\n\nCode\n----\nprint(1)\n----\n"
    )
    assert paths(document)[:2] == ["Harbour Guide", "Harbour Guide > Mooring Rules"]
    # `Code` over `----` opens a listing (read as a title, its closing line would open
    # another block): the code stays code under the section before.
    assert "```\nprint(1)\n```" in document.text
    assert "Code" in document.text and len(set(paths(document))) == 2


def test_source_listing_and_literal_blocks_are_code() -> None:
    document = read(
        "= T\n\n[source,python]\n----\nprint('high water')\n== not a heading\n----\n\n"
        "....\nliteral text\n....\n\n[source,ruby]\nputs 1\n\n  indented literal\n"
    )
    assert "```python\nprint('high water')\n== not a heading\n```" in document.text
    assert "```\nliteral text\n```" in document.text
    assert "```ruby\nputs 1\n```" in document.text
    assert "```\nindented literal\n```" in document.text
    assert paths(document) == ["T"]


def test_code_keeps_its_own_lines() -> None:
    source = "= T\n\n[source,sh]\n----\nmake\nmake install\n----\n"
    document = read(source)
    lines = split_lines(document.text)
    at = lines.index("make install")
    assert split_lines(source)[document.origins[at] - 1] == "make install"


def test_tables_are_rows_of_their_cells() -> None:
    document = read(
        '[cols="1,2"]\n|===\n|Boat |Fee\n\n|Dinghy\n|5 EUR\n|Yacht |20 EUR\n|===\n\n'
        ",===\nberth,depth\nA,3 m\n,===\n\n"
        "|===\n2+|Spanning cell\n|a|b \\| c\n|===\n"
    )
    assert "| Boat | Fee |\n| Dinghy | 5 EUR |\n| Yacht | 20 EUR |" in document.text
    assert "| berth | depth |\n| A | 3 m |" in document.text
    assert "| Spanning cell |" in document.text and "2+" not in document.text
    assert "b | c" in document.text  # an escaped bar is a bar


def test_a_csv_table_cell_over_the_csv_modules_field_limit_keeps_the_file() -> None:
    """The csv module refuses a field over 128 KB (`field_size_limit`): one such cell in a
    `,===` table raised csv.Error out of the reader, and the whole file was skipped as "unreadable
    AsciiDoc". Now that line is cut at its commas and every other row is read."""
    long_cell = "tide " * 30_000  # 150 KB
    document = read(f"== Tides\n\n,===\nberth,depth\n{long_cell},x\nA,3 m\n,===\n\nAfter.\n")
    assert "| berth | depth |" in document.text
    assert "| A | 3 m |" in document.text
    assert document.text.count("tide") == 30_000
    assert "After." in document.text


def test_admonitions_keep_their_label_and_text() -> None:
    document = read(
        "NOTE: Ropes must be doubled.\n\n[WARNING]\n====\nGales expected tonight.\n====\n\n"
        "[TIP]\nCheck the tide table.\n"
    )
    assert "NOTE: Ropes must be doubled." in document.text
    assert "WARNING:\n\nGales expected tonight." in document.text
    assert "TIP:\n\nCheck the tide table." in document.text


def test_attribute_entries_and_comments_are_not_text() -> None:
    document = read(
        "= T\n:toc: left\n:secret-key: hunter2\n\n// a line comment\n"
        "////\nblock comment words\n////\n\nKept words.\n// tag::x[]\nMore kept.\n"
    )
    for markup in ("toc", "hunter2", "secret", "comment", "tag::"):
        assert markup not in document.text
    assert "Kept words.\nMore kept." in document.text


def test_attribute_references_are_their_values() -> None:
    document = read(
        ":product: Tidewatch\n:url-docs: https://example.org/docs\n\n"
        "{product} docs: {url-docs}[the manual]. {undefined} stays.\n"
    )
    assert "Tidewatch docs: the manual. {undefined} stays." in document.text


def test_a_plus_passthrough_is_its_text_as_written() -> None:
    # FreeRADIUS's xlat/builtin.adoc titles 7 sections `=== +%{Packet-Type}+`: the page
    # shows "%{Packet-Type}", the citation had shown the pluses a user must not type
    # (newuser58). Nothing inside is substituted; `+` inside a word, around a blank, or
    # with no partner is a plus sign.
    document = read(
        ":bar: Tidewatch\n\n== +%{0}+..+%{32}+\n\n"
        "Use +%{Packet-Src-Port} and {bar}+, `+a*b+` and {bar}.\n"
        "C++ stays, 1+1=2, a + b, x +y + z and +=:: too.\n\n"
        "See link:https://example.org/x[the +{bar}+ page].\n"
    )
    assert paths(document) == ["%{0}..%{32}"]
    text = document.text
    assert "Use %{Packet-Src-Port} and {bar}, `a*b` and Tidewatch." in text
    assert "C++ stays, 1+1=2, a + b, x +y + z and +=: too." in text
    assert "See the {bar} page." in text


def test_links_are_their_text() -> None:
    document = read(
        "See link:https://example.org/a[the guide], https://example.org/b[the FAQ^] "
        "and https://example.org/c[]. Mail mailto:desk@harbour.example[the desk]. "
        "Read <<mooring,Mooring rules>>, xref:fees.adoc#top[fees] and image:map.png[Harbour map].\n"
    )
    text = document.text
    assert "See the guide, the FAQ and https://example.org/c." in text
    assert "the desk (desk@harbour.example)" in text
    assert "Read Mooring rules, fees and Harbour map." in text
    assert "link:" not in text and "example.org/a" not in text


def test_include_is_a_reference_never_followed() -> None:
    document = read("= T\n\ninclude::/etc/passwd[]\n\ninclude::chapter.adoc[leveloffset=+1]\n")
    assert "(includes /etc/passwd)" in document.text
    assert "(includes chapter.adoc)" in document.text
    assert "root:" not in document.text


def test_lists_keep_their_items_and_numbers() -> None:
    document = read(
        "* first\n** nested\n* second\ncontinued\n\n. one\n. two\n+\n----\ncode\n----\n. three\n\n"
        "CPU:: The brain.\nDisk:: Storage.\n"
    )
    text = document.text
    assert "- first\n  - nested\n- second continued" in text
    assert "1. one\n2. two" in text and "3. three" in text
    assert "CPU: The brain.\nDisk: Storage." in text


def test_block_titles_and_quotes_keep_their_words() -> None:
    document = read(
        ".Harbour map\nimage::map.png[]\n\n[quote, Harbour Master, Rules]\n____\nTie twice.\n____\n"
    )
    assert "Harbour map" in document.text
    assert "Tie twice.\n\n— Harbour Master, Rules" in document.text


def test_a_ten_megabyte_line_reads_whole() -> None:
    """A line of 10 MB (a run of link-like words, one of `<<`, a heading) is read in
    one pass: every word stays (the growth of these shapes is timed in
    test_regex_linear)."""
    size = 10 * 1024 * 1024
    assert read("link:" * (size // 5)).text.count("link:") == size // 5
    assert len(read("<<" * (size // 2)).text) == size
    heading = read("== " + "tide " * (size // 5))
    assert heading.text.startswith("## tide tide")
    # 100,000 nested example blocks (each delimiter unlike the one inside which it
    # opens), none closed; and an item nested 100,000 deep
    nested = "".join("=" * (4 + i % 50) + "\n" for i in range(100_000)) + "still text\n"
    assert read(nested).text == "still text"
    assert read("*" * 100_000 + " deep item\n").text == "        - deep item"


def test_a_backslash_escapes_references_links_and_quotes_and_is_not_shown() -> None:
    """fix30: Asciidoctor shows `\\{product}` as "{product}", `\\https://…[x]` as the URL and
    brackets written, `\\<<id>>` as "<<id>>", `\\*not bold*` as "*not bold*": the
    backslash escapes the markup and is not shown. It was kept ("\\{product}")."""
    document = read(
        ":product: Tidewatch\n\n"
        "Write \\{product} or {product}; \\{undefined} too; {product\\} closes.\n\n"
        "Type \\https://example.org/a[the guide] or \\https://example.org/b alone "
        "(\\https://example.org/c), \\link:fees.html[fees] and \\mailto:desk@example.org[desk].\n\n"
        "Cite \\<<mooring>> and \\<<tides,Tides>>; \\[[anchor]] shows; \\footnote:[no note].\n\n"
        "Say \\*not bold* and \\_not italic_, \\`not code`, a\\*b*, \\^up^.\n\n"
        "Keep C:\\Users\\dir, \\*open and 2 \\^ 3, dir\\https://example.org/d.\n"
    )
    lines = [line for line in document.text.splitlines() if line]
    assert lines == [
        "Write {product} or Tidewatch; {undefined} too; {product} closes.",
        "Type https://example.org/a[the guide] or https://example.org/b alone "
        "(https://example.org/c), link:fees.html[fees] and mailto:desk@example.org[desk].",
        "Cite <<mooring>> and <<tides,Tides>>; [[anchor]] shows; footnote:[no note].",
        "Say *not bold* and _not italic_, `not code`, a*b*, ^up^.",
        "Keep C:\\Users\\dir, \\*open and 2 \\^ 3, dir\\https://example.org/d.",
    ], document.text


HOWTO = (
    "From: A Maintainer <a@example.org>\n"
    "Subject: mooring in fog\n"
    "Content-type: text/asciidoc\n\n"
    "How to moor in fog\n==================\n\n"
    "----\n$ ropes --double\n----\n\n"
    "Tie the bow first, see https://example.org/knots[the knots page].\n"
)


def test_a_text_file_whose_header_declares_asciidoc_is_read_as_asciidoc() -> None:
    """newuser51: git-doc's how-tos are AsciiDoc in `.txt` files that say so in a mail-like
    header; read as plain text, a listing's last line headed the rest of one how-to and
    links showed their markup. A `.txt` without the header stays plain text."""
    document = read(HOWTO, "recover-corrupted-blob-object.txt")
    assert document.kind == read(HOWTO).kind  # as the same text in an `.adoc`
    assert "How to moor in fog" in paths(document)[-1]
    assert "```\n$ ropes --double\n```" in document.text
    assert "the knots page" in document.text and "[the knots page]" not in document.text
    undeclared = read(HOWTO.replace("Content-type: text/asciidoc\n", ""), "moor.txt")
    assert undeclared.kind == "text"
    quoting = read("Mail headers\n\nA how-to says:\nContent-type: text/asciidoc\n", "m.txt")
    assert quoting.kind == "text"  # in the body, not the header (review51)


def test_an_open_block_is_read_for_its_contents() -> None:
    """`--` opens an open block, a container like `====`: its paragraphs had been one
    code block (its first character is a listing's, attack52), an admonition's label
    and a list inside it lost."""
    text = read("[NOTE]\n--\nOpen *words* here.\n\n* an item\n--\nAfter.\n").text
    assert text == "NOTE:\n\nOpen *words* here.\n\n- an item\n\nAfter."
