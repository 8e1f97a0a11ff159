"""Paginated formatter output (nroff manuals, RFCs) read as its author wrote it
(ingest/paged_text.py): running headers and footers are not text, words hyphenated at a
line end are whole, numbered section titles head sections; and documents that are not
such output are read exactly as before."""

from __future__ import annotations

import pytest

from ragd.ingest import loaders
from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import Document
from ragd.ingest.paged_text import read_paged

PAGE = 30  # lines per printed page in these documents (a real one has 56 or 66)


def paginate(body: list[str], header: str, footer: str | None = None, feed: bool = False) -> str:
    """`body` set on pages of PAGE lines as nroff does: a header (with the page number
    for {}) at each page's top, a footer at its foot, blank margins around both."""
    room = PAGE - 6
    pages = [body[i : i + room] for i in range(0, len(body), room)]
    out: list[str] = []
    for number, lines in enumerate(pages, start=1):
        page = ["", header.format(number), "", *lines]
        page += [""] * (PAGE - 3 - len(page))
        page += [footer.format(number) if footer else "", "", ""]
        if feed:
            page[-1] = "\f"
        out.extend(page)
    return "\n".join(out) + "\n"


def chunks_of(name: str, text: str) -> list[tuple[str, str]]:
    document = loaders.parse(name, text.encode())
    return [(chunk.heading_path, chunk.text) for chunk in chunk_document(document)]


def distinct_paths(chunks: list[tuple[str, str]]) -> list[str]:
    return list(dict.fromkeys(path for path, _ in chunks))


def words(text: str) -> list[str]:
    return text.split()


# Written for these tests in the layout of NetHack's Guidebook (groff -ms, a 10-column
# margin, justified, hyphenated, "Guide  N" over every page).
MARGIN = " " * 10
GUIDE_BODY = [
    f"{MARGIN}1.  Setting out",
    "",
    f"{MARGIN}     The  harbour  is  quiet  at  dawn, and the ferry waits by",
    f"{MARGIN}the  pier  with  its  lamps still lit.  Passengers who want a",
    f"{MARGIN}cabin  should  ask  the purser, whose office keeps a recollec-",
    f"{MARGIN}tion of every crossing since the pier was built.",
    "",
    f"{MARGIN}1.1.  Tickets",
    "",
    f"{MARGIN}     A  ticket  is  bought  at  the  kiosk.   Carry a two-handed",
    f"{MARGIN}bag  at most, for the gangway is narrow and the deck hands are",
    f"{MARGIN}strict.  Each passenger may bring one two-",
    f"{MARGIN}handed  bag  and  one  small  case.  Bicycles ride for free in",
    f"{MARGIN}winter.",
    "",
    f"{MARGIN}1.2.  Delays",
    "",
    # filler so that "lum-" below is the last line of page 2
    *[f"{MARGIN}     Fog  delays  the  ferry  on  some mornings, and the captain"] * 24,
    f"{MARGIN}then sounds the horn three times before the gangway is raised",
    f"{MARGIN}and  the  ropes are cast off, so that every passenger still on",
    f"{MARGIN}the pier hears that the crossing is about to begin in earnest,",
    f"{MARGIN}and the purser counts the tickets collected at the gate again",
    f"{MARGIN}while  the  deck  hands  stow the luggage below and the engines",
    f"{MARGIN}warm  in  the  hold, until the ferry leaves with a long signal",
    f"{MARGIN}and  the  gulls  follow  it out of the harbour and into the lum-",
    f"{MARGIN}inous morning.",
    "",
    f"{MARGIN}2.  Arriving",
    "",
    f"{MARGIN}     On  the  far  side a bus meets the ferry.  Take it to town.",
]
GUIDE = paginate(GUIDE_BODY, MARGIN + "Harbour Guide" + " " * 47 + "{}")
assert GUIDE_BODY.index(f"{MARGIN}inous morning.") == 2 * (PAGE - 6)  # the top of page 3


def test_running_headers_are_not_text_and_titles_head_sections() -> None:
    chunks = chunks_of("guide.txt", GUIDE)
    assert not any("Harbour Guide" in text for _, text in chunks)
    assert distinct_paths(chunks) == [
        "1. Setting out",
        "1. Setting out > 1.1. Tickets",
        "1. Setting out > 1.2. Delays",
        "2. Arriving",
    ]


ROMAN = {"1": "i", "2": "ii", "3": "iii"}


@pytest.mark.parametrize("roman", [False, True])
def test_a_page_number_alone_at_each_foot_is_not_text(roman: bool) -> None:
    """man-db's manual (man-db-manual.txt.gz): its running header is a line of fields,
    its page number a line of its own centred at each foot ("12", in its contents "ii"),
    which was kept, read into the paragraph running over the page break."""
    header = MARGIN + "Harbour Guide" + " " * 30 + "v1.2" + " " * 20 + "2023-01-08"
    lines = paginate(GUIDE_BODY, header, " " * 39 + "{}").split("\n")
    if roman:
        lines = [
            " " * 39 + ROMAN[line.strip()] if line.strip() in ROMAN else line for line in lines
        ]
    document = loaders.parse("manual.txt", "\n".join(lines).encode())
    left = [line for line in document.text.split("\n") if line.strip() in {*ROMAN, *ROMAN.values()}]
    assert left == []
    assert "out of the harbour and into the luminous morning." in " ".join(words(document.text))


def test_a_word_hyphenated_at_a_line_end_is_joined() -> None:
    text = "\n".join(text for _, text in chunks_of("guide.txt", GUIDE))
    assert "recollection" in words(text)
    # across a page break: "lum-" at a page's foot, "inous" on the next page
    assert "luminous" in words(text)
    # a compound written with its hyphen elsewhere keeps it: "two-" / "handed"
    assert words(text).count("two-handed") == 2
    assert "twohanded" not in text


def test_the_left_margin_is_removed() -> None:
    document = loaders.parse("guide.txt", GUIDE.encode())
    body = [line for line in document.text.split("\n") if line.strip() and line[0] != "#"]
    assert min(len(line) - len(line.lstrip()) for line in body) == 0
    # every line still says where it is in the file
    chunk = chunk_document(document)[0]
    assert chunk.lines is not None
    assert GUIDE.split("\n")[chunk.lines[0] - 1].split() == chunk.text.split("\n")[0].split()


RFC_BODY = [
    "Abstract",
    "",
    "   This memo describes the ferry protocol.",
    "",
    "1.  Introduction",
    "",
    *["   The ferry protocol carries passengers between two piers." for _ in range(20)],
    "",
    "2.  Messages",
    "",
    "   Two messages are defined:",
    "",
    "   1.  BOARD, sent by a passenger.",
    "",
    "   2.  LEAVE, sent by the captain.",
    "",
    "2.1.  BOARD",
    "",
    *["   A passenger sends BOARD with a ticket number." for _ in range(20)],
    "",
    "Author's Address",
    "",
    "   A. Writer",
]


def test_an_rfc_has_its_numbered_and_its_unnumbered_titles() -> None:
    header = "RFC 9999            Ferry Protocol            June 2026"
    footer = "Writer                 Informational                 [Page {}]"
    rfc = paginate(RFC_BODY, header, footer, feed=True)
    chunks = chunks_of("rfc9999.txt", rfc)
    expected = ["Abstract", "1. Introduction", "2. Messages", "2. Messages > 2.1. BOARD"]
    assert distinct_paths(chunks) == [*expected, "Author's Address"]
    text = "\n".join(text for _, text in chunks)
    assert "[Page" not in text and "RFC 9999" not in text and "\f" not in text
    # a numbered list in the body is not a title: it stands right of the titles
    assert "BOARD, sent by a passenger." in text


# After the numbered sections, an RFC's appendices (draft-miek-test's "Appendix A.  Tests",
# then "A.1.  A Very Long Title …" wrapped, "A.2.  Markup in heading").
APPENDIX_BODY = [
    *RFC_BODY[:-4],
    "",
    "Appendix A.  Examples",
    "",
    "   The examples below are not normative.",
    "",
    "A.1.  Boarding a Ferry That Waits at the Far End of the Pier With",
    "      Its Lamps Lit",
    "",
    *["   A passenger walks to the far end of the pier." for _ in range(20)],
    "",
    "A.2.  Leaving",
    "",
    "   The captain sends LEAVE.",
    "",
    "A.2.1.  Leaving Late",
    "",
    "   The captain sends LEAVE twice.",
    "",
    "Appendix B.  Acknowledgements",
    "",
    "   Thanks to the purser.",
    "",
    "B.1.  Crew",
    "",
    "   And to the deck hands.",
    "",
    *RFC_BODY[-4:],
]


def test_an_rfcs_appendix_subsections_stand_under_their_appendix() -> None:
    header = "RFC 9999            Ferry Protocol            June 2026"
    footer = "Writer                 Informational                 [Page {}]"
    chunks = chunks_of("rfc9999.txt", paginate(APPENDIX_BODY, header, footer, feed=True))
    paths = distinct_paths(chunks)
    assert paths[paths.index("Appendix A. Examples") :] == [
        "Appendix A. Examples",
        "Appendix A. Examples > A.1. Boarding a Ferry That Waits at the Far End of the Pier"
        " With Its Lamps Lit",
        "Appendix A. Examples > A.2. Leaving",
        "Appendix A. Examples > A.2. Leaving > A.2.1. Leaving Late",
        "Appendix B. Acknowledgements",
        "Appendix B. Acknowledgements > B.1. Crew",
        "Author's Address",
    ]


def test_numbering_that_is_no_outline_heads_nothing() -> None:
    # Paginated, but "1." then "3." then "1.": a list, not sections.
    body = ["1.  Pack a bag", "", *["   text"] * 60, "3.  Take a bus", "", "   text", "",
            "1.  Arrive", "", "   text"]  # fmt: skip
    document = loaders.parse("notes.txt", paginate(body, "Notes" + " " * 20 + "{}").encode())
    assert document.kind == "text"
    assert "Notes" not in document.text  # still paginated: the running lines go


def test_a_paged_man_page_keeps_its_section_names() -> None:
    """A man page rendered to paged text has no numbered titles: it stays plain text,
    without its running lines, and its capitals still head its sections."""
    body = ["NAME", "       ferry - cross the harbour", "", "OPTIONS"]
    body += [f"       -{c}     option {c} that runs on." for c in "abcdefghijklmnopqrstuvwxyz"]
    body += [f"       -{c}     option {c} once more." for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    text = paginate(body, "FERRY(1)        General Commands Manual        FERRY(1)",
                    "ferry 1.0              2026-01-01              {}")  # fmt: skip
    chunks = chunks_of("ferry.txt", text)
    assert {path.split(" > ")[-1] for path, _ in chunks} == {"NAME", "OPTIONS"}
    assert not any("2026-01-01" in text or "General Commands" in text for _, text in chunks)


# Documents that are not paginated formatter output are read exactly as before.
NOT_PAGED = {
    "a README with a numbered list and a hyphen at a line end": (
        "Ferry\n=====\n\n1. Install the ferry-\nboat package\n\n2. Run it\n\n3. Stop it\n"
    ),
    "GNU NEWS with form feeds between releases": "".join(
        f"\f\n* Noteworthy changes in release 1.{n} (2020-01-0{n}) [stable]\n\n"
        f"** A bug was fixed in the ferry-\nboat code.\n\n" + "text\n" * 25
        for n in range(1, 6)
    ),
    "a git log: a Date line at irregular places": "".join(
        f"commit {n:040x}\nAuthor: A <a@example.org>\nDate:   2023-01-{n % 28 + 1:02d} "
        f"10:00:00 +0200\n\n" + "    change\n" * (20 + n % 7) + "\n"
        for n in range(40)
    ),
    "a table repeated twice": ("name     value\n\n" + "row\n" * 30) * 2,
}


def test_documents_that_are_not_paginated_are_unchanged() -> None:
    for label, text in NOT_PAGED.items():
        assert read_paged(text, "t", []) is None, label
        document = loaders.parse("README", text.encode())
        assert document == Document(kind="text", title="README", text=text, located="lines")


def benchmark_log(inputs: int = 5) -> str:
    """A benchmark.js run over several inputs as a log saves it: every input's block has
    the same suites, each a row per library (names padded to one width) and the suite's
    verdict after its rows, so blocks and verdicts repeat at one interval."""
    libraries = ("fast-map:      decoded", "fast-map:      encoded", "source-map-js: encoded")
    out: list[str] = []
    for n in range(1, inputs + 1):
        out += [f"input-{n}.js.map - {n * 1000 + 17} segments", ""]
        for suite in ("Init speed", "Trace speed (random)", "Trace speed (ascending)"):
            out.append(f"{suite}:")
            out += [f"{lib} x {n * 31 + i},{n}0{i} ops/sec (9{i} runs)" for i, lib in
                    enumerate(libraries)]  # fmt: skip
            winner = libraries[n % 2] if suite == "Init speed" else libraries[0]
            out += [f"Fastest is {winner} for {suite.lower()}", ""]
        out += ["", "***", "", ""]
    return "\n".join(out) + "\n"


def test_a_benchmark_log_keeps_its_verdict_lines() -> None:
    """A verdict line ("Fastest is fast-map:      decoded …") has a gap between fields and
    comes back at the blocks' interval, a blank line after it; but it stands right under
    the suite's rows, where no running header or footer stands (a page's margin is blank
    on both sides of one). Taken for one, every verdict was dropped: the log's answer to
    "which library is fastest" was not indexed."""
    text = benchmark_log()
    assert read_paged(text, "bench", []) is None
    document = loaders.parse("bench.txt", text.encode())
    assert document.text == text
