"""Plain-text entry databases read entry by entry (pure, linear, str methods only).

A fortune file (`/usr/share/games/fortunes/*`) is entries apart by a line `%`; Dungeon
Crawl's description files (`dat/descript/*.txt`) are entries apart by `%%%%`, each opening
with its name on a line of its own over a blank line, and `#` lines are its authors'
notes ("XXX: clarify gargoyles", "TAG_MAJOR_VERSION == 34"), which the game never shows.
Read as plain text, the whole file was one untitled section: the separators were text,
and a paragraph ran on into the next entry's name ("… trans. Earnest Cary, 1925.
entropy weaver"), so the keyless answer quoted one entry's last sentence glued to the
next one's name.

A file is such a list when, as a whole, it is one (`_separators`):

- a separator is a line made only of `%` at the margin; the file's most frequent such
  line is its separator, and there are at least MIN_SEPARATORS of them;
- other lines opening with `%` (TeX comments, a banner of another length) are at most
  STRAY_SHARE of the separators: a file commented with `%` is not a list;
- the text between the first and the last separator is most of the file's text
  (INSIDE_SHARE; `#` comment lines not counted): a README showing three lines of `%` in
  an example, with its prose around them, is not a list.

Then each entry is its own part of the document, the separators are not text, and `#`
lines before the first separator are comments. A list is *named* when at least
NAMED_SHARE of its entries open with a name: a short line at the margin, not ending like
a sentence, over a blank line (Crawl's "Ashenzari", "entropy weaver"). A named list is
written as Markdown with each entry a level-1 section headed by its name (a first line
that reads as a name heads its entry even without the blank line under it: the list's
own convention; an entry without one is headed `(untitled)`), and its `#` lines are
comments wherever they stand, as Crawl reads them. An unnamed list (fortunes) has each
entry a section headed `(untitled)`, its `#` lines text ("#include <stdio.h>" in a fortune
is the joke) and the indentation all its lines share taken off. Sections, not paragraphs
of one section: packed together, an entry opening indented was read by the keyless answer
as a code block that the entry above it, ending without a full stop ("-- Ian Shoales"),
led in; as sections, no chunk holds two entries. Embeddings are the same (one window a
paragraph either way); what grows is the number of chunks. A file of entries shorter than
the section budget allows (`ingest.section_budget`: fortunes-min's `fortunes`, 57
characters an entry) has them merged into sections of about a chunk again, their shared
path written nowhere.

Every written line keeps the file's line it came from, so locations are the file's.
"""

from __future__ import annotations

import itertools
from collections import Counter

from ragd.ingest.document import Document, split_lines
from ragd.ingest.formats.markdown import escape_line

SEPARATOR = "%"
COMMENT = "#"
MIN_SEPARATORS = 3
STRAY_SHARE = 0.1  # other `%` lines a list may have, per separator
INSIDE_SHARE = 0.5  # the share of the text that must lie between the first and last separator
NAMED_SHARE = 0.5  # the share of entries opening with a name that makes a list named
NAME_MAX_CHARS = 80
SENTENCE_ENDS = tuple(".,;:!?")
UNTITLED = "(untitled)"  # chunking.UNTITLED: an entry without a name, as text without a title

Line = tuple[str, int | None]  # a written line and the 1-based line of the file it comes from


def read_entries(text: str, stem: str, notes: list[str]) -> Document | None:
    """`text` as a Document of its entries when it is an entry list, else None."""
    lines = [line.rstrip() for line in split_lines(text)]
    separators = _separators(lines)
    if separators is None:
        return None
    parts = _parts(lines, separators)
    head, entries = parts[0], parts[1:]
    head = [n for n in head if not lines[n].startswith(COMMENT)]
    if _has_text(lines, head):
        entries.insert(0, head)  # a fortune file's first entry has no separator above it
    else:
        head = []
    named = _is_named(lines, entries)
    out = _named(lines, entries) if named else _unnamed(lines, entries)
    return Document(
        kind="markdown",
        title=stem,
        text="\n".join(line for line, _ in out),
        notes=notes,
        located="lines",
        origins=[origin for _, origin in out],
    )


def _separators(lines: list[str]) -> list[int] | None:
    """The 0-based separator lines of an entry list, or None when the file is not one."""
    runs = Counter(line for line in lines if line and not line.strip(SEPARATOR))
    if not runs:
        return None
    separator, count = runs.most_common(1)[0]
    if count < MIN_SEPARATORS:
        return None
    stray = sum(1 for line in lines if line.startswith(SEPARATOR) and line != separator)
    if stray > count * STRAY_SHARE:
        return None
    found = [number for number, line in enumerate(lines) if line == separator]
    inside = outside = 0
    for number, line in enumerate(lines):
        if line.startswith(COMMENT) or line == separator:
            continue
        size = len(line.strip())
        if found[0] < number < found[-1]:
            inside += size
        else:
            outside += size
    if inside <= (inside + outside) * INSIDE_SHARE:
        return None
    return found


def _parts(lines: list[str], separators: list[int]) -> list[list[int]]:
    """The line numbers before the first separator, between each two, after the last."""
    bounds = [-1, *separators, len(lines)]
    return [list(range(a + 1, b)) for a, b in itertools.pairwise(bounds)]


def _has_text(lines: list[str], numbers: list[int]) -> bool:
    return any(lines[n].strip() for n in numbers)


def _opening(lines: list[str], entry: list[int]) -> int | None:
    """The index in `entry` of its first line with text, `#` comments passed over."""
    for index, number in enumerate(entry):
        line = lines[number]
        if line.strip() and not line.startswith(COMMENT):
            return index
    return None


def _name_like(line: str) -> bool:
    """Short, at the margin, with a letter or digit, and not ending like a sentence."""
    return (
        len(line) <= NAME_MAX_CHARS
        and line == line.lstrip()
        and not line.endswith(SENTENCE_ENDS)
        and any(c.isalnum() for c in line)
    )


def _stands_alone(lines: list[str], entry: list[int], index: int) -> bool:
    """Nothing, or a blank line, follows the line at `index` of `entry` (comments passed)."""
    for number in entry[index + 1 :]:
        line = lines[number]
        if not line.startswith(COMMENT):
            return not line.strip()
    return True


def _is_named(lines: list[str], entries: list[list[int]]) -> bool:
    named = 0
    filled = 0
    for entry in entries:
        first = _opening(lines, entry)
        if first is None:
            continue
        filled += 1
        line = lines[entry[first]]
        named += _name_like(line) and _stands_alone(lines, entry, first)
    return filled > 0 and named >= filled * NAMED_SHARE


def _named(lines: list[str], entries: list[list[int]]) -> list[Line]:
    """Each entry a `#` section headed by its name (or UNTITLED); comments dropped."""
    out: list[Line] = []
    for entry in entries:
        first = _opening(lines, entry)
        if first is None:
            continue  # only comments or blank lines: no entry
        body = entry[first:]
        name = lines[body[0]]
        if _name_like(name):
            out.append((f"# {name}", body[0] + 1))
            body = body[1:]
        else:
            out.append((f"# {UNTITLED}", None))
        out.extend(_body(lines, body, comments=True))
    return out


def _unnamed(lines: list[str], entries: list[list[int]]) -> list[Line]:
    """Each entry an UNTITLED section of its lines, the indentation they all share taken
    off; `#` lines kept."""
    out: list[Line] = []
    for entry in entries:
        body = _body(lines, entry, comments=False)
        filled = [index for index, (line, _) in enumerate(body) if line.strip()]
        if not filled:
            continue
        body = body[filled[0] : filled[-1] + 1]
        # The indentation every line of the entry has is its layout (a fortune set off
        # by a tab), not code; kept, merged entries (section_budget) opening indented are
        # read as a code block the entry above leads in ("-- Goldfinger" / "\t\"Hawk, …").
        common = _shared_indent([line for line, _ in body if line.strip()])
        out.append((f"# {UNTITLED}", None))
        out.extend((line[common:] if line.strip() else line, at) for line, at in body)
    return out


def _shared_indent(lines: list[str]) -> int:
    """The length of the leading blanks every line starts with, character for character
    (a tab is not taken for spaces)."""
    shared = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    for line in lines[1:]:
        if not shared:
            break
        length = 0
        while length < len(shared) and length < len(line) and line[length] == shared[length]:
            length += 1
        shared = shared[:length]
    return len(shared)


def _body(lines: list[str], numbers: list[int], comments: bool) -> list[Line]:
    """The entry's lines escaped for Markdown; `#` lines left out when `comments`."""
    return [
        (escape_line(lines[n]), n + 1)
        for n in numbers
        if not (comments and lines[n].startswith(COMMENT))
    ]
