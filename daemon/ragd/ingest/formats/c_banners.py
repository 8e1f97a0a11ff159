"""C and C++ banner comments: the titles a header gives its groups of declarations.

lz4.h, lz4frame.h, zstd.h and xxhash.h open each group with a comment that is only rules
and a title::

    /*-************************************
    *  Advanced Functions
    **************************************/

and the macros under it (`#define LZ4_MAX_INPUT_SIZE 0x7E000000`) belong to that title.
Without it they were the tail of the documented prototype above the banner (cited as
`LZ4_decompress_safe()`), or of the file's `(untitled)` start. A banner is a block comment
of at most `MAX_LINES` lines, each a rule (eight or more of `* = - ~ # _` and nothing
else) or blank but for one title of at most `TITLE_WORDS` words; or one line holding its
title between two rules (`/* ===== Internal helpers ===== */`). A comment that says more
than a title (a licence, a function's documentation) is none.

Each line is looked at a bounded number of times (a comment opened is read at most
`MAX_LINES` lines on), and no regular expression is used.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ragd.ingest.formats.c_family import Definition

MAX_LINES = 6  # a taller comment says more than a title
TITLE_WORDS = 8
RULE_CHARS = frozenset("*=-~#_")
MIN_RULE = 8  # rule characters in a line of a banner's own: fewer are an ornament
MIN_SIDE_RULE = 3  # either side of a one-line banner's title
POINTERS = frozenset(("<", ">", "<<", ">>", "<-", "->", "<--", "-->"))  # around a title
DOXYGEN_COMMAND = frozenset("\\@")  # `\file`, `@name`
COPYRIGHT = frozenset(("copyright", "(c)", "©", "copyright:"))
# HTML a comment's author wrote for Doxygen (`<b>Types</b>`): the words only, in a heading.
# Inline marks join what they wrap to its neighbours; a break or a paragraph is a blank.
INLINE_MARKUP = frozenset("b i u s em strong code tt var kbd sub sup small big".split())
BREAK_MARKUP = frozenset(("br", "p"))
TAG_CHARS = 8  # the longest tag looked for, `</strong>`: a `<` is looked past that far at most


@dataclass(frozen=True)
class Banner:
    first: int  # 0-based line of the comment's opening
    last: int  # 0-based line of its closing
    title: str


def banners(lines: list[str], openings: Iterable[int] | None = None) -> list[Banner]:
    """The banner comments of a C or C++ file, in order: of those opening at the lines
    `openings` (0-based, in order; None: at any line)."""
    found: list[Banner] = []
    after = 0  # the line after the last banner (or line looked at): none opens another
    for number in range(len(lines)) if openings is None else openings:
        if number < after:
            continue  # a line of many comments (`/* a */ /* b */ …`) is looked at once
        after = number + 1
        line = lines[number].strip()
        banner = None
        if line.startswith("/*"):
            banner = _block_banner(lines, number)
        elif line.startswith("//"):
            title = _one_line_title(line[2:])
            banner = Banner(number, number, title) if title else None
        if banner is not None:
            found.append(banner)
            after = banner.last + 1
    return found


def _block_banner(lines: list[str], first: int) -> Banner | None:
    """The banner opening at line `first` (which starts with `/*`), or None."""
    opening = lines[first].strip()[2:]
    closing = opening.find("*/")
    if closing >= 0:  # a comment on one line: `/* ==== Title ==== */`
        if opening[closing + 2 :].strip():
            return None  # code after it
        title = _one_line_title(opening[:closing])
        return Banner(first, first, title) if title else None
    titles: list[str] = []
    rules = 0
    for number in range(first, min(first + MAX_LINES, len(lines))):
        text = lines[number].strip()
        if number == first:
            text = text[2:]
        ends = text.endswith("*/")
        if ends:
            text = text[:-2]
        text = text.strip()
        if _is_rule(text):
            rules += 1
        elif text.strip("* "):
            titles.append(text.strip("* "))  # a boxed title's borders too: `* Types *`
        if ends:
            title = _title(titles[0]) if rules and len(titles) == 1 else ""
            return Banner(first, number, title) if _reads_as_title(title) else None
    return None


def _is_rule(text: str) -> bool:
    bare = text.replace(" ", "")
    return len(bare) >= MIN_RULE and all(char in RULE_CHARS for char in bare)


def _one_line_title(text: str) -> str:
    """`text`'s title when it is one between two rules of one character each (`==== Title
    ====`), else "": an editor's mode line, `-*- C++ -*-`, is none."""
    text = text.strip()
    left = len(text) - len(text.lstrip("".join(RULE_CHARS)))
    right = len(text) - len(text.rstrip("".join(RULE_CHARS)))
    if left < MIN_SIDE_RULE or right < MIN_SIDE_RULE or left + right >= len(text):
        return ""
    if len(set(text[:left])) > 1 or len(set(text[len(text) - right :])) > 1:
        return ""
    title = _title(text[left : len(text) - right])
    return title if _reads_as_title(title) else ""


def _title(text: str) -> str:
    """A banner's title as a heading: spaces collapsed; no pointers at its ends (`>
    Basic Manipulations <` would read as a level of the heading path), but brackets that
    close a name kept (pyport.h's `WRAPPER FOR <sys/select.h>` had lost its `>`); no
    Doxygen command opening it (`\\file harbour.h`, `@name Getters`: markup, not the
    title's words), and no HTML tag (`<b>Types</b>`: "Types")."""
    words = _without_markup(text).split()
    if words and words[0] in POINTERS:
        words = words[1:]
    if words and words[-1] in POINTERS:
        words = words[:-1]
    if words and words[0][:1] in DOXYGEN_COMMAND and words[0][1:].isalpha():
        words = words[1:]
    return " ".join(words)


def _without_markup(text: str) -> str:
    """`text` without the HTML tags of `INLINE_MARKUP` and `BREAK_MARKUP` (a break a
    blank); any other `<…>` is kept, `<sys/select.h>`, `<dsig:Signature>` (xmlsec's
    `templates.h`). Each `<` looks at most `TAG_CHARS` on: linear."""
    parts: list[str] = []
    at = 0
    start = text.find("<")
    while start != -1:
        end = text.find(">", start, start + TAG_CHARS + 1)
        name = text[start + 1 : end].lstrip("/").rstrip("/").rstrip().lower() if end != -1 else ""
        if name in INLINE_MARKUP or name in BREAK_MARKUP:
            parts.append(text[at:start] + (" " if name in BREAK_MARKUP else ""))
            at = end + 1
        start = text.find("<", max(at, start + 1))
    return "".join(parts) + text[at:]


def _reads_as_title(title: str) -> bool:
    """A few words, not a sentence, a brace or a copyright line (a licence box of one
    line, `* Copyright (c) 2004 Acme Corp *`, heads nothing)."""
    words = title.split()
    return (
        0 < len(words) <= TITLE_WORDS
        and any(char.isalpha() for char in title)
        and not title.endswith((".", ";", ",", "{", "}", "(", ")"))
        and not any(word.lower() in COPYRIGHT for word in words)
    )


def with_banners(
    lines: list[str], definitions: list[Definition], openings: list[int]
) -> list[Definition]:
    """`definitions` (in line order) with each banner at the top as one more, headed by its
    title, where code follows it before the next definition (lz4.h's `Advanced Functions`
    and its macros). A banner with only comments between it and the next definition opens
    that definition's section instead (coff.h's `FILE HEADER` above `struct
    COFF_filehdr`: a section of the banner alone would be a chunk of nothing but a title).
    None with no code after it (valgrind's `/*--- end  pub_tool_seqmatch.h ---*/`).

    A banner is looked for only at `openings`, the lines where the code reader's lexer
    found a comment opening between statements at the top or in a namespace
    (c_family.outline): not inside a type's braces (a class's members stay its own), a
    function's body (a `/* ===== Step 1 ===== */` there had cut the function in two, its
    second half headed by the step), another comment (a `// ==== Old ====` in a
    commented-out block), an `#if 0` branch, a string or a macro's continued lines. Each
    line is looked at once: a banner's look ahead stops at the next banner."""
    definitions = list(definitions)  # a definition a banner titles moves up: the caller's stay
    found = banners(lines, openings)
    merged: list[Definition] = []
    at = 0
    for index, banner in enumerate(found):
        while at < len(definitions) and definitions[at].line <= banner.last:
            merged.append(definitions[at])
            at += 1
        following = definitions[at] if at < len(definitions) else None
        stop = following.line if following is not None else len(lines)
        if index + 1 < len(found):
            stop = min(stop, found[index + 1].first)
        if _code_between(lines, banner.last + 1, stop):
            merged.append(Definition(banner.first, banner.title, False, None))
        elif following is not None and stop == following.line and not following.member:
            definitions[at] = replace(following, line=banner.first)  # titles what follows
    merged.extend(definitions[at:])
    return merged


def _code_between(lines: list[str], start: int, stop: int) -> bool:
    """Whether a line from `start` up to `stop` holds more than blanks and comments."""
    return any(
        line.strip() and not line.strip().startswith(("/*", "*", "//"))
        for line in lines[start:stop]
    )
