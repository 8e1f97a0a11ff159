"""A Markdown heading's title as the rendered page shows it.

A heading path is read by people (the citation `[source:heading path]`, `rag search`), so
it should say what the page's title says, not its source: anyhow's README heading
`Anyhow&ensp;¯\\\\\\_(°ペ)\\_/¯` is shown "Anyhow ¯\\_(°ペ)_/¯". So, outside code spans:
HTML entities are decoded (`&ensp;`, `&amp;`, `&#8212;`), backslash escapes of ASCII
punctuation drop their backslash, emphasis markers (`*`, `_`, `**`, `__`, `~~`) that pair
as CommonMark pairs them are removed, and a link or image (`[text](url)`, `[text][ref]`,
`![alt](src)`) is its text. Code spans keep their backticks, as the body text of every
chunk shows code (and the reST reader writes a literal). A trailing attribute list
(`{: #id .class}`: MkDocs' and Python-Markdown's `attr_list`, kramdown; Pandoc's
`{#id .class key=value}`) sets the heading's id or class and shows nothing, so it goes.

Linear in the title: one pass over its characters, code spans matched by their runs'
lengths, emphasis by a stack of openers (each pushed and popped once), and links by one
pattern whose scans stop at the next bracket or parenthesis.
"""

from __future__ import annotations

import html
import re
import string

from ragd.ingest.chunking import Fences, atx_heading

_LINK = re.compile(r"!?\[([^\[\]\n]*)\](?:\([^()\n]*\)|\[[^\[\]\n]*\])")
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{0,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_PUNCTUATION = frozenset(string.punctuation)
_DELIMITERS = "*_~"
LINK_NESTING = 3  # links inside links read (each a pass over the title, so still linear)


def rendered_title(title: str) -> str:
    """`title` (a heading's raw text) as the rendered page shows it; the raw text when
    nothing would be left of it."""
    unlinked = _without_attributes(title)
    for _ in range(LINK_NESTING):  # a badge: an image inside a link, `[![alt](svg)](url)`
        inner, unlinked = unlinked, _without_links(unlinked)
        if unlinked == inner:
            break
    shown = _render(unlinked)
    return shown if shown.strip() else title


def with_rendered_headings(text: str) -> str:
    """Markdown `text` with each ATX heading's title rendered (`rendered_title`); fenced
    code untouched, every other line as it is."""
    fences = Fences()
    lines = text.split("\n")
    for number, line in enumerate(lines):
        heading = None if fences.feed(line) else atx_heading(line)
        if heading is not None:
            title = rendered_title(heading[1])
            if title != heading[1]:
                lines[number] = f"{'#' * heading[0]} {title}"
    return "\n".join(lines)


def _without_attributes(title: str) -> str:
    """`title` without the attribute list that ends it, `{: #\\8.0}`, `{#install .wide}`:
    braces holding only `#id`s, `.class`es and `key=value`s (after `attr_list`'s optional
    colon). Other braces stay, `Using {name}`, and so does one closing a code span: the
    title then ends with a backtick, not a brace."""
    stripped = title.rstrip()
    if not stripped.endswith("}"):
        return title
    opening = stripped.rfind("{")
    tokens = stripped[opening + 1 : -1].removeprefix(":").split() if opening >= 0 else []
    if not tokens or not all(t[0] in "#." or "=" in t for t in tokens):
        return title
    return stripped[:opening].rstrip() or title


def _code_spans(text: str) -> dict[int, int]:
    """Where each code span starts → where it ends (after its closing run): a run of
    backticks closed by the next run of the same length (CommonMark). Runs after an
    unescaped backslash open nothing."""
    runs: list[tuple[int, int]] = []  # (start, length)
    index = 0
    while index < len(text):
        if text[index] == "\\":
            index += 2
            continue
        if text[index] == "`":
            end = index
            while end < len(text) and text[end] == "`":
                end += 1
            runs.append((index, end - index))
            index = end
            continue
        index += 1
    later: dict[int, list[int]] = {}  # run length → the runs of that length, last first
    for number in range(len(runs) - 1, -1, -1):
        later.setdefault(runs[number][1], []).append(number)
    spans: dict[int, int] = {}
    closed_until = -1
    for number, (start, length) in enumerate(runs):
        same = later[length]
        while same and same[-1] <= number:
            same.pop()
        if start < closed_until or not same:
            continue
        closer = runs[same.pop()]
        spans[start] = closer[0] + length
        closed_until = spans[start]
    return spans


def _without_links(title: str) -> str:
    """Links and images as their text, outside code spans."""
    if "[" not in title:
        return title
    spans = _code_spans(title)
    inside = [False] * (len(title) + 1)
    for start, end in spans.items():
        for index in range(start, end):
            inside[index] = True
    parts: list[str] = []
    done = 0
    for link in _LINK.finditer(title):
        escaped = link.start() and title[link.start() - 1] == "\\"
        if escaped or inside[link.start()] or inside[link.end() - 1]:
            continue
        parts += [title[done : link.start()], link.group(1)]
        done = link.end()
    return "".join(parts) + title[done:]


def _render(title: str) -> str:
    """Entities, escapes and emphasis of `title` (links already their text)."""
    spans = _code_spans(title)
    pieces: list[str] = []
    runs: list[tuple[int, str, str]] = []  # a delimiter run's piece, the characters around it
    index = 0
    while index < len(title):
        char = title[index]
        if index in spans:
            pieces.append(title[index : spans[index]])
            index = spans[index]
        elif char == "\\" and index + 1 < len(title) and title[index + 1] in _PUNCTUATION:
            pieces.append(title[index + 1])
            index += 2
        elif char == "&" and (entity := _ENTITY.match(title, index)):
            pieces.append(html.unescape(entity.group(0)))
            index = entity.end()
        elif char in _DELIMITERS:
            end = index
            while end < len(title) and title[end] == char:
                end += 1
            before = title[index - 1] if index else " "
            runs.append((len(pieces), before, title[end] if end < len(title) else " "))
            pieces.append(title[index:end])
            index = end
        else:
            pieces.append(char)
            index += 1
    _pair_emphasis(pieces, runs)
    return "".join(pieces)


def _pair_emphasis(pieces: list[str], runs: list[tuple[int, str, str]]) -> None:
    """Removes the delimiter runs in `pieces` that pair, CommonMark's way simplified: a run
    that can close takes the nearest open run of its character; `_` opens or closes only
    at a word's edge (`snake_case` keeps its underscores), `~` pairs only as `~~`."""
    openers: dict[str, list[int]] = {char: [] for char in _DELIMITERS}  # innermost last
    for run, before, after in runs:
        delimiter = pieces[run]
        if delimiter[0] == "~" and len(delimiter) != 2:
            continue
        opens, closes = _flanks(before, after)
        if delimiter[0] == "_":
            opens, closes = (
                opens and (not closes or before in _PUNCTUATION),
                closes and (not opens or after in _PUNCTUATION),
            )
        same = openers[delimiter[0]]
        if closes and same:
            opener = same.pop()
            cut = min(len(pieces[opener]), len(delimiter))
            pieces[opener] = pieces[opener][cut:]
            pieces[run] = delimiter[cut:]
        elif opens:
            same.append(run)


def _flanks(before: str, after: str) -> tuple[bool, bool]:
    """(left-flanking, right-flanking) for a run between `before` and `after`."""
    left = not after.isspace() and (
        after not in _PUNCTUATION or before.isspace() or before in _PUNCTUATION
    )
    right = not before.isspace() and (
        before not in _PUNCTUATION or after.isspace() or after in _PUNCTUATION
    )
    return left, right
