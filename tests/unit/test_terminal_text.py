"""Plain text as a terminal shows it (ingest/terminal_text.py): grotty's bold and
underline, written as overstrikes (`X\\bX`, `_\\bX`) or as ANSI SGR sequences
(`ESC[1m` … `ESC[0m`), leave each character once, so words are whole, headings hold no
escape codes and the paged-text and plain-text readers find the titles they would find
in the same text without them. man-db's `man-db-manual.txt.gz` is written so."""

from __future__ import annotations

from ragd.ingest import loaders
from ragd.ingest.chunking import chunk_document
from ragd.ingest.terminal_text import as_displayed
from tests.unit.test_paged_text import GUIDE, GUIDE_BODY, MARGIN, distinct_paths, paginate

BOLD, UNDERLINED, PLAIN, NOT_UNDERLINED = "\x1b[1m", "\x1b[4m", "\x1b[0m", "\x1b[24m"


def sgr_bold_titles(lines: list[str]) -> list[str]:
    """`lines` as grotty writes them for a terminal: titles and one word bold (SGR)."""
    out = []
    for line in lines:
        body = line.strip()
        if body[:1].isdigit():  # "1.1.  Tickets"
            line = line.replace(body, f"{BOLD}{body}{PLAIN}")
        out.append(line.replace("purser", f"{UNDERLINED}purser{NOT_UNDERLINED}"))
    return out


def overstruck(word: str, bold: bool = True) -> str:
    return "".join(f"{c}\b{c}" if bold else f"_\b{c}" for c in word)


def chunk_texts(name: str, text: str) -> list[tuple[str, str]]:
    chunks = chunk_document(loaders.parse(name, text.encode()))
    return [(chunk.heading_path, chunk.text) for chunk in chunks]


def test_a_paged_manual_with_bold_titles_has_its_outline_and_no_escapes() -> None:
    header = f"{BOLD}{MARGIN}Harbour Guide{' ' * 47}{{}}{PLAIN}"
    plain = chunk_texts("guide.txt", GUIDE)
    chunks = chunk_texts("guide.txt", paginate(sgr_bold_titles(GUIDE_BODY), header))
    assert distinct_paths(chunks) == distinct_paths(plain)
    assert distinct_paths(chunks)[:2] == ["1. Setting out", "1. Setting out > 1.1. Tickets"]
    assert not any("\x1b" in path or "\x1b" in text for path, text in chunks)
    assert "purser" in " ".join(text for _, text in chunks).split()


def test_an_overstruck_man_page_is_text_with_its_section_names() -> None:
    """`man -P cat` without -c, saved: its bytes are backspaces between letters, which
    made it binary content; its bold section names head sections."""
    lines = [
        "FERRY(1)                 General Commands Manual                FERRY(1)",
        "",
        overstruck("NAME"),
        f"       {overstruck('ferry')} - cross the harbour",
        "",
        overstruck("OPTIONS"),
        *[f"       {overstruck(f'-{c}')}     option {c} sets the {overstruck('sail', False)}."
          for c in "abcdefghijklmnopqrstuvwxyz"],
        "",
        overstruck("SEE ALSO"),
        f"       {overstruck('boat')}(1)",
    ]  # fmt: skip
    chunks = chunk_texts("ferry.1.txt", "\n".join(lines) + "\n")
    assert {path.split(" > ")[-1] for path, _ in chunks} >= {"NAME", "OPTIONS", "SEE ALSO"}
    text = "\n".join(text for _, text in chunks)
    assert "\b" not in text
    assert "ferry - cross the harbour" in text
    assert "-q     option q sets the sail." in text


def test_each_mark_leaves_what_a_terminal_shows_and_every_line_stays() -> None:
    cases = {
        "b\bbo\bol\bld": "bold",  # bold
        "_\bu_\bn": "un",  # underlined
        "x\b_": "x",  # underlined, the underline struck after
        "_\bb\bb": "b",  # bold and underlined
        "+\bo item": "• item",  # grotty's bullet
        "a\bb": "b",  # anything else: the later character, as col -b shows it
        "\bstart": "start",  # nothing to strike over
        "\x1b[1mman\x1b[22m(1)": "man(1)",
        "\x1b[38;5;196mred\x1b[m": "red",
        "lone \x1b escape": "lone  escape",
        "unfinished \x1b[12": "unfinished [12",
    }
    for marked, shown in cases.items():
        assert as_displayed(marked) == shown, repr(marked)
    text = "\x1b[1mA\x1b[0m\n\nb\bb\x1b[\n_\bc\n"
    assert as_displayed(text).split("\n") == ["A", "", "b[", "c", ""]
    plain = "no marks\n"
    assert as_displayed(plain) is plain
