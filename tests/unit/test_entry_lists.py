"""Plain-text entry databases (`%`-separated: Crawl's description files, fortune files) are
read entry by entry (ingest/entry_list.py): each entry its own section, headed by its name
when it opens with one, the separators and comments not text, and no chunk or keyless
unit running from one entry into the next. Files that are not such lists read as before."""

from __future__ import annotations

from ragd.ingest import chunking, loaders
from ragd.query.units import units_of

# Crawl's shape (dat/descript/*.txt): comments, then `%%%%` entries, each a name, a blank
# line and prose; a `#` note inside the list; a quote whose last line has no full stop.
CRAWL = """\
# Goals for the prose section: pitch the god to a player.
# What's 'cool' about this god?
%%%%
Ashenzari

While it seems inconceivable that the divine could be shackled, Ashenzari is
just that: bound to the sky for eternity.
%%%%
# XXX: clarify gargoyles
Beogh

Beogh is an evil deity, worshipped by the cave orcs native to the dungeon.
%%%%
Cheibriados

"Slow and steady wins the race."
    -Aesop, The Tortoise and the Hare, trans. Earnest Cary, 1925
%%%%
entropy weaver

A strange creature that weaves entropy into its web, and he sees no reason why
that should stop him.
%%%%
"""

FORTUNES = """\
A day for firm decisions!!!!!  Or is it?
%
#include <stdio.h>
main() { printf("hello, world"); }
%
\tWhy are you doing this to me?
\tBecause knowledge is torture, and there must be awareness before
\tthere is change.
\t\t-- Jim Starlin
%
A visit to a strange place will bring fresh work.
%
"""


def _chunks(name: str, text: str) -> list[chunking.Chunk]:
    return chunking.chunk_document(loaders.parse(name, text.encode()))


def _sections(chunks: list[chunking.Chunk]) -> dict[str, str]:
    return {c.heading_path: c.text for c in chunks}


def test_each_entry_is_a_section_headed_by_its_name() -> None:
    sections = _sections(_chunks("gods.txt", CRAWL))
    assert list(sections) == ["Ashenzari", "Beogh", "Cheibriados", "entropy weaver"]
    assert (
        sections["Beogh"]
        == "Beogh is an evil deity, worshipped by the cave orcs native to the dungeon."
    )
    assert "1925" in sections["Cheibriados"] and "entropy" not in sections["Cheibriados"]


def test_separators_and_comments_are_not_text() -> None:
    document = loaders.parse("gods.txt", CRAWL.encode())
    assert "%%%%" not in document.text
    assert "Goals" not in document.text and "cool" not in document.text
    assert "gargoyles" not in document.text  # a note inside the list: Crawl never shows it


def test_no_keyless_unit_runs_into_the_next_entry() -> None:
    """quotes.txt's quote ended "… trans. Earnest Cary, 1925. entropy weaver"."""
    for chunk in _chunks("quotes.txt", CRAWL):
        for unit in units_of(chunk.text, chunk.heading_path):
            assert not ("1925" in unit.text and "entropy" in unit.text), unit.text


def test_an_entry_keeps_its_file_lines() -> None:
    chunks = _chunks("gods.txt", CRAWL)
    lines = {c.heading_path: c.lines for c in chunks}
    assert lines["Ashenzari"] == (6, 7)  # its prose, the file's lines 6–7
    assert lines["entropy weaver"] == (21, 22)


def test_in_a_named_list_an_entry_without_a_name_is_untitled() -> None:
    text = (
        "%%%%\nring of poison resistance\n Buttercup: And to think, all that time.\n"
        "%%%%\nThis entry opens with a whole sentence, not a name.\n\nIts prose.\n"
        "%%%%\ntyrant leech\n\nA leech.\n%%%%\nslave\n\nA slave.\n%%%%\n"
    )
    paths = [c.heading_path for c in _chunks("quotes.txt", text)]
    assert paths == ["ring of poison resistance", "(untitled)", "tyrant leech", "slave"]


def test_a_fortune_file_is_entries_without_names() -> None:
    """No suffix (the code reader took it for one block of code): each fortune its own
    (untitled) section; its `#` lines are text; its shared indentation is layout."""
    chunks = _chunks("fortunes", FORTUNES)
    assert {c.heading_path for c in chunks} == {chunking.UNTITLED}
    texts = [c.text for c in chunks]
    assert texts[0] == "A day for firm decisions!!!!!  Or is it?"
    assert texts[1].startswith("\\#include <stdio.h>")  # escaped: body text, not a heading
    assert texts[2].startswith("Why are you doing this to me?\nBecause knowledge")
    assert len(texts) == 4 and not any("%" in text for text in texts)


def test_no_chunk_holds_two_fortunes() -> None:
    fortunes = "".join(
        f"Fortune number {n} says words of wisdom\n\t\t-- Someone {n}\n%\n" for n in range(50)
    )
    for chunk in _chunks("wisdom.txt", fortunes):
        assert chunk.text.count("Fortune number") == 1, chunk.text


def _reads_as_text(name: str, text: str) -> None:
    document = loaders.parse(name, text.encode())
    assert (document.kind, document.text) == ("text", text)


def test_a_readme_with_percent_lines_in_its_prose_is_text() -> None:
    """Three `%` lines in an example, with the README's prose around them: not a list."""
    prose = "This paragraph explains how the program reads its data files in detail.\n\n" * 20
    example = "The file looks like this:\n\nfirst quote\n%\nsecond quote\n%\nthird\n%\n\n"
    _reads_as_text("README", prose + example + prose)


def test_text_commented_with_percent_is_not_a_list() -> None:
    banner = "%" * 40
    tex = "".join(
        f"{banner}\n% Section {n}: the setup\n{banner}\n\\section{{Part {n}}}\nText.\n"
        for n in range(5)
    )
    _reads_as_text("notes.txt", tex)


def test_a_csv_and_a_file_with_one_percent_line_are_text() -> None:
    _reads_as_text("rates.txt", "name,rate\nalpha,5%\nbeta,10%\n%,%\ngamma,%\n")
    _reads_as_text("notes.txt", "Intro text here.\n%\nMore text after the one separator.\n")
    _reads_as_text("two.txt", "a\n%\nb\n%\nc\n")  # two separators: too few to be a list


def test_a_markdown_file_is_never_read_as_a_list() -> None:
    text = "# Quotes\n\nfirst\n%\nsecond\n%\nthird\n%\nfourth\n"
    document = loaders.parse("quotes.md", text.encode())
    assert document.kind == "markdown" and "%" in document.text
