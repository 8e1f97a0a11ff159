"""Documentation files named by custom (`README`, `NEWS.Debian`, `ChangeLog`) and gzipped
documents (`NEWS.gz`, `faq.txt.gz`, as /usr/share/doc holds them): which are indexed by
default, which reader each gets, and a gzip that is a bomb or damaged is one skip reason."""

import gzip
import time
import zlib
from pathlib import Path, PurePosixPath

import pytest

from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS
from ragd.ingest.chunking import chunk_document
from ragd.ingest.filters import PathFilter
from ragd.ingest.gzipped import gunzip, inner_name
from ragd.ingest.loaders import SkipFile, is_doc_name, kind_for, parse
from ragd.serve.passages import read_lines

DEFAULTS = PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS)

NEWS = b"""This is the NEWS file for harbourd.

Version 2.1
===========

* The tide table is read from tides.csv at start.

Version 2.0
===========

* Moorings can be booked a season ahead.
"""


@pytest.mark.parametrize(
    ("path", "accepted"),
    [
        ("README", True),
        ("readme", True),
        ("ChangeLog", True),
        ("pkg/NEWS", True),
        ("COPYING.LIB", True),
        ("README.Debian", True),
        ("README.source", True),
        ("NEWS.old", True),
        ("changelog.Debian.amd64", True),
        ("README.md", True),
        ("NEWS.gz", True),
        ("changelog.Debian.gz", True),
        ("changelog.gz", True),
        ("README.md.gz", True),
        ("faq.txt.gz", True),
        ("tar.1.gz", True),
        ("backup.tar.gz", False),  # an archive, not a document
        ("README.tar.gz", False),  # an archive, whatever its name
        ("data.gz", False),  # `data` is not a document
        ("x.txt.gz.gz", False),  # one layer only
        ("NEWS.gz.gz", False),  # one layer only, whatever its name
        ("newsletter", False),
        ("READMEFIRST", True),  # a name in capitals (config.in_capitals)
        ("bash/COMPAT.gz", True),  # nu23: bash's compatibility notes, gzipped
        ("util-linux/POSIX", True),
        ("RELEASE-NOTES", True),
        ("00FAQ", True),
        ("PKG-INFO", True),
        ("OK", False),  # two letters: no name
        ("src/TAGS", False),  # review18: a tag table etags wrote, every identifier of a tree
        ("GTAGS", False),
        ("DATA.BIN", False),  # a suffix: not by this rule
        ("Makefile", False),
        ("copyright", False),
        # nu23: util-linux's notes of each release, where alone CVE-2016-2779's fix is told
        ("util-linux/releases/v2.31-ReleaseNotes.gz", True),
        ("v2.28-ReleaseNotes", True),
        ("ReleaseNotes-draft", False),
        ("draft-releasenotes", False),  # no version names it
        (".README", False),
    ],
)
def test_conventional_and_gzipped_names_are_indexed_by_default(path: str, accepted: bool) -> None:
    assert DEFAULTS.accepts(PurePosixPath(path)) is accepted


@pytest.mark.parametrize(
    "path",
    [
        "docs/images/install.png",
        "screenshots/History.JPG",
        "img/changes.svg",
        "assets/license.ico",
        "contributing.mp4",
        "authors.ttf",
        "README.zip",
        "NEWS.tar",
        "changelog.xz",
        "install.exe",
        "history.sqlite3",
        "todo.db",
    ],
)
def test_a_documentation_name_on_another_kind_of_file_is_not_a_document(path: str) -> None:
    """`README.*` is for `README.Debian` and `NEWS.old`; an image, an archive or a
    database that happens to be called `install` or `history` is not plain text. Before,
    `docs/images/install.png` was read and listed in `rag status` errors: "binary content
    (not text)". It is a type ragd skips, as `diagram.png` is."""
    assert not DEFAULTS.accepts(PurePosixPath(path))
    assert PathFilter(("*.svg", *DOCUMENT_PATTERNS)).accepts(PurePosixPath("img/changes.svg"))


def test_gzipped_names_follow_the_include_globs_they_hold() -> None:
    only_text = PathFilter(("*.txt",))
    assert only_text.accepts(PurePosixPath("faq.txt.gz"))
    assert not only_text.accepts(PurePosixPath("NEWS.gz"))  # NEWS is not included here
    excluded = PathFilter(DOCUMENT_PATTERNS, exclude=("*.gz",))
    assert not excluded.accepts(PurePosixPath("NEWS.gz"))
    # Names in capitals go with the documentation names: not taken when those are not.
    assert not only_text.accepts(PurePosixPath("COMPAT.gz"))
    assert not only_text.accepts(PurePosixPath("COMPAT"))


@pytest.mark.parametrize(
    ("name", "inner"),
    [
        ("NEWS.gz", "NEWS"),
        ("doc/faq.txt.GZ", "doc/faq.txt"),
        ("backup.tar.gz", None),
        ("x.gz.gz", None),
        (".gz", None),
        ("NEWS", None),
    ],
)
def test_inner_name(name: str, inner: str | None) -> None:
    assert inner_name(name) == inner


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("README", "text"),
        ("Hacking", "text"),
        ("README.Debian", "text"),
        ("changelog.Debian.amd64", "text"),
        ("README.md", "markdown"),  # a suffix with its own reader keeps it
        ("README.mdwn", "markdown"),  # ikiwiki's Markdown (newuser44: etckeeper's README)
        ("guide.mkd", "markdown"),
        ("notes.mdown", "markdown"),
        ("README.txt", "text"),
        ("LICENSE.pdf", "pdf"),
        ("README.rst", None),  # formats.rst
        ("INSTALL.sh", None),  # formats.code
        ("install.1", None),  # a man page (coreutils' install(1)): formats.man
        ("notes", None),
        ("COMPAT", "text"),
        ("KEYSERVER", "text"),
        ("v2.31-ReleaseNotes", "text"),
    ],
)
def test_reader_by_name(name: str, kind: str | None) -> None:
    assert kind_for(name) == kind


def test_a_tail_must_be_words() -> None:
    assert is_doc_name("README.abs-guide") and is_doc_name("NEWS.v2_old")
    assert is_doc_name("README.libstdc++")
    assert not is_doc_name("README..old") and not is_doc_name("README.")
    assert not is_doc_name("README.old~x") and not is_doc_name("readmes")


def test_a_readme_is_plain_text_and_its_underlined_titles_head_chunks() -> None:
    doc = parse("NEWS", NEWS)
    assert doc.kind == "text" and doc.text == NEWS.decode()
    headings = [c.heading for c in chunk_document(doc)]
    assert ("Version 2.1",) in headings and ("Version 2.0",) in headings


def test_a_gzipped_document_is_read_as_the_file_inside() -> None:
    plain, packed = parse("NEWS", NEWS), parse("NEWS.gz", gzip.compress(NEWS))
    assert (packed.kind, packed.text, packed.title) == (plain.kind, plain.text, "NEWS")
    markdown = parse("README.md.gz", gzip.compress(b"# Harbour\n\nBerths by the week.\n"))
    assert markdown.kind == "markdown" and "Berths by the week." in markdown.text
    debian = parse("changelog.Debian.gz", gzip.compress(b"harbourd (2.1-1) unstable\n"))
    assert debian.kind == "text" and debian.text.startswith("harbourd (2.1-1)")
    # Two members, as `cat a.gz b.gz` makes them: both read, as zcat does.
    joined = parse("NEWS.gz", gzip.compress(NEWS[:40]) + gzip.compress(NEWS[40:]))
    assert joined.text == NEWS.decode()


CHANGELOG_MD = b"""# Change Log
All notable changes to this project will be documented in this file.

## [Unreleased][unreleased]

## [2.3.9] - 2023-02-15

### Fixed

- Fixed autolink extension not detecting some URIs with underscores (#956)

## [2.3.8] - 2022-12-10

### Fixed

- Fixed parsing issues when `mb_internal_encoding()` is set to something else (#951)

[2.3.9]: https://github.com/thephpleague/commonmark/compare/2.3.8...2.3.9
"""

DEBIAN_TRIMMED = b"""harbourd (2.1-1) unstable; urgency=medium

  * New upstream release.

 -- Ann Author <ann@example.org>  Mon, 01 Jan 2024 10:00:00 +0000

# Older entries have been removed from this changelog.
# To read the complete changelog use `apt changelog harbourd`.
"""


def test_a_change_log_in_markdown_under_a_plain_name_is_read_as_markdown() -> None:
    """Debian installs an upstream CHANGELOG.md as `changelog.gz`: read as plain text,
    league/commonmark's was 17 chunks headed `(untitled)`, its release headings body text
    (newuser40). Its first line an ATX heading and another after a blank line: Markdown."""
    document = parse("changelog.gz", gzip.compress(CHANGELOG_MD))
    assert document.kind == "markdown"
    headings = {c.heading_path: c.text for c in chunk_document(document)}
    assert "underscores (#956)" in headings["Change Log > [2.3.9] - 2023-02-15 > Fixed"]
    assert "(#951)" in headings["Change Log > [2.3.8] - 2022-12-10 > Fixed"]
    # A trimmed Debian changelog ends in `#` comments: still plain text, headed by release.
    debian = parse("changelog.Debian.gz", gzip.compress(DEBIAN_TRIMMED))
    assert debian.kind == "text" and debian.text == DEBIAN_TRIMMED.decode()
    # One `# Title` over plain text, or a script's comments: not Markdown.
    for name, data in (
        ("README", b"# Harbour\n\nBerths by the week.\n  # make install\n"),
        ("INSTALL", b"#!/bin/sh\n\n# build\nmake\n"),
    ):
        assert parse(name, data).kind == "text", name


README_MDWN = b"""etckeeper is a collection of tools to let `/etc` be stored in a git repository.

## Security warnings

By checking /etc into version control, you are creating a copy of /etc/shadow.

## changing VCS

Run `etckeeper uninit`, edit etckeeper.conf, then `etckeeper init`.
"""


def test_markdown_under_its_other_suffixes_is_read_as_markdown() -> None:
    """ikiwiki's `.mdwn`: etckeeper installs README.mdwn.gz, which was read as plain text
    by its name, one `(untitled)` section whose `## changing VCS` was body text, and its
    `index.mdwn` and `forum.mdwn` were skipped as a type not indexed (newuser44)."""
    document = parse("README.mdwn.gz", gzip.compress(README_MDWN))
    assert document.kind == "markdown"
    headings = {c.heading_path: c.text for c in chunk_document(document)}
    assert "etckeeper uninit" in headings["changing VCS"]
    assert "/etc/shadow" in headings["Security warnings"]
    for name in ("index.mdwn", "doc/guide.mkd", "a.mkdn", "notes.MDOWN"):
        assert DEFAULTS.accepts(PurePosixPath(name)), name


def test_a_file_read_as_markdown_by_a_guess_keeps_its_html_comments_as_text() -> None:
    """A README with no suffix is read as text by whoever opens it: an HTML comment in it
    is words on the screen. Read as Markdown for its `#` headings, the comment was dropped
    as a rendered page drops it (libjansi-java's changelog.gz: 54 of 5,322 words lost).
    A guess keeps it; a `.md` file still drops it."""
    data = b"# Tides\n\n<!-- the harbourmaster posts spring tides -->\n\n## Neaps\n\nLow.\n"
    guessed = parse("README", data)
    assert guessed.kind == "markdown"
    assert "harbourmaster posts spring tides" in guessed.text
    assert "harbourmaster" not in parse("README.md", data).text


@pytest.mark.parametrize(
    "data",
    [
        # groff's BUG-REPORT and PROJECTS: a licence in `#` comments over plain text
        b"# Copyright (C) 1999 Free Software Foundation\n#\n# This file is part of groff.\n"
        b"\n\n   Groff Bug Report\n\n# Please keep this line.\n",
        # gnupg's DETAILS: Org mode (`-*- org -*-`, `#+TITLE:`)
        b"# doc/DETAILS   -*- org -*-\n#+TITLE: GnuPG Details\n\n* Format\n\n# a note\n",
    ],
)
def test_comment_lines_opening_a_plain_file_are_no_markdown_headings(data: bytes) -> None:
    """Their first line is `# …` and another `# …` stands after a blank line, so they
    were read as Markdown: groff's licence block became ten nested headings."""
    document = parse("README", data)
    assert document.kind == "text"
    assert document.text == data.decode()


def test_a_gzip_bomb_or_a_damaged_gzip_is_one_skip_reason() -> None:
    bomb = gzip.compress(b"a" * (8 * 1024 * 1024))  # 8 MB of text in about 8 KB
    assert len(bomb) < 64 * 1024
    with pytest.raises(SkipFile, match="expands past the 1 MB max_text_mb cap"):
        parse("NEWS.gz", bomb, max_text_chars=1024 * 1024)
    packed = gzip.compress(NEWS * 50)
    with pytest.raises(SkipFile, match=r"unreadable gzip \(the file ends early\)"):
        parse("NEWS.gz", packed[: len(packed) // 2])
    with pytest.raises(SkipFile, match="unreadable gzip"):
        parse("faq.txt.gz", NEWS)  # named .gz, but plain text
    with pytest.raises(SkipFile, match="binary content"):
        parse("README.tar.gz", gzip.compress(b"README\0\0\0\0ustar\0" * 40))
    with pytest.raises(SkipFile, match="binary content"):
        parse("NEWS.gz.gz", gzip.compress(gzip.compress(NEWS)))  # one layer is read
    with pytest.raises(SkipFile, match="empty"):
        parse("NEWS.gz", gzip.compress(b"\n \n"))


def test_line_ranges_of_a_gzipped_document_are_its_text_lines(tmp_path: Path) -> None:
    (tmp_path / "NEWS.gz").write_bytes(gzip.compress(NEWS))
    passage = read_lines(str(tmp_path), "NEWS.gz", 3, 4, 1 << 20)
    assert passage.text == "Version 2.1\n===========" and passage.lines == (3, 4)


def test_a_rotated_change_log_named_like_a_man_page_is_read_as_text() -> None:
    """`ChangeLog.1` matches the man-page names; with no troff in it, it was skipped as
    "not a man page". A documentation name like that is plain text."""
    text = b"2024-01-05  Ann Author\n\n\t* parser.c: fix the overflow.\n"
    for name, data in (("ChangeLog.1", text), ("ChangeLog.2.gz", gzip.compress(text))):
        document = parse(name, data)
        assert document.kind == "text" and "fix the overflow" in document.text
    # A real man page with that name is still a man page; any other name is not text.
    page = b".TH CHANGELOG 1\n.SH NAME\nchangelog \\- show changes\n"
    assert parse("changelog.1", page).kind == "markdown"
    with pytest.raises(SkipFile, match="not a man page"):
        parse("syslog.1", text)


def _members(count: int) -> bytes:
    """`count` gzip members of one word each, as `cat` of that many tiny .gz files makes."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    return (packer.compress(b"word ") + packer.flush()) * count


def _cpu(data: bytes) -> float:
    """The least CPU time of three decompressions of `data`."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        gunzip(data, 64 * 1024 * 1024)
        best = min(best, time.process_time() - start)
    return best


def test_many_gzip_members_decompress_in_linear_time() -> None:
    """Each member's end gave back the rest of the file as a new bytes object (zlib's
    `unused_data`), so a file of many small members cost its size times their number: 2 MB
    of one-word members (80,000) took 4.3 s, 4× the members 16× the time. That runs in the
    daemon too, on the search pool, for `get`'s line ranges of a `.gz` document. Time now
    grows as the file does (4× ≈ 4×; 8× is the limit, as in test_regex_linear)."""
    small, large = _members(10_000), _members(40_000)
    assert gunzip(small, 1 << 20) == b"word " * 10_000
    ratio = _cpu(large) / max(_cpu(small), 1e-9)
    if ratio > 8:  # measure once more before calling it: a busy machine
        ratio = min(ratio, _cpu(large) / max(_cpu(small), 1e-9))
    assert ratio <= 8, f"4× the members took {ratio:.1f}× the time"
