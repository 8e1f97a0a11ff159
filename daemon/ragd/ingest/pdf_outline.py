"""A PDF's outline (its bookmarks) as the heading paths of its pages.

A PDF's text layer has no headings: every chunk of a 234-page manual was headed by its
title alone ("The beamer class"), so a citation said only the file and page, and the
section a passage is in ("Creating Overlays > The \\pause Command") was in no window for
either retriever to find (newuser52: 25 LaTeX package manuals, 18 with outlines). Most
PDFs made by LaTeX (hyperref), word processors and documentation tools carry an outline:
a tree of titles, each pointing at a page. That tree is the document's table of contents
as its author wrote it, so it is what the heading paths are made of.

`read_outline` (in the parse worker, with pypdf) flattens the tree to (page, depth, title)
in document order, bounded: at most MAX_ENTRIES entries, MAX_DEPTH levels; an entry whose
destination names no page of the file is left out; an outline pypdf cannot read is none.

`outlined_pages` (pure, linear in the pages' text) cuts each page where the title of an
entry that points at it stands: an outline entry points at a page, not at a line, and a
section often starts halfway down. The title is looked for line by line from the previous
cut on, its letters and digits compared (case, spaces and punctuation aside: pypdf may glue
words or space a title's letters out); a title not found on its page (drawn as an image,
spelled otherwise) starts at the previous cut, at worst the page's top. Looking is bounded
by SEARCH_LINES_PER_LINE comparisons per line of the page, so a hostile outline of
thousands of entries on one page costs no more than a few passes over that page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ragd.ingest.document import split_lines

MAX_ENTRIES = 4096  # beamer's user guide has 227, etoolbox's 233
MAX_DEPTH = 12  # deeper entries are read as the deepest level
TITLE_MAX_CHARS = 200  # a longer title is cut (chunking.clean_heading cuts again at 200)
KEY_PREFIX = 48  # letters and digits of a title that must open its line
WRAPPED_MIN = 12  # a line this long (letters and digits) may hold a title's first part
SEARCH_LINES_PER_LINE = 8  # comparisons allowed per line of a page, all entries together

OutlineEntry = tuple[int, int, str]  # (1-based page, depth from 0, title)
PageSection = tuple[tuple[str, ...], int, str]  # (outline path, page, text)

_NOT_KEY = re.compile(r"[\W_]+")


def read_outline(reader: Any) -> list[OutlineEntry]:
    """The outline of a pypdf `PdfReader`, flattened in document order (see module doc)."""
    try:
        tree = reader.outline
    except Exception:  # a damaged outline is no reason to lose the file's text
        return []
    entries: list[OutlineEntry] = []
    # pypdf nests a level's children as a list right after their parent: walk it with
    # an explicit stack (no recursion: the nesting comes from the file).
    stack: list[tuple[Iterable[Any], int]] = [(iter(tree), 0)]
    while stack and len(entries) < MAX_ENTRIES:
        items, depth = stack[-1]
        item = next(items, None)  # type: ignore[call-overload]
        if item is None:
            stack.pop()
        elif isinstance(item, list):
            stack.append((iter(item), min(depth + 1, MAX_DEPTH)))
        else:
            entry = _entry(reader, item, depth)
            if entry is not None:
                entries.append(entry)
    return entries


def _entry(reader: Any, item: Any, depth: int) -> OutlineEntry | None:
    try:
        index = reader.get_destination_page_number(item)
        title = str(item.title or "")
    except Exception:
        return None
    title = " ".join(title.replace("\x00", "").split())[:TITLE_MAX_CHARS]
    if not isinstance(index, int) or index < 0 or not title:
        return None
    return index + 1, depth, title


def outlined_pages(pages: list[tuple[int, str]], outline: list[OutlineEntry]) -> list[PageSection]:
    """Each page's text, cut where its outline entries' titles stand, with the outline
    path in force over each part (`()` before the first entry); see the module doc."""
    by_page: dict[int, list[tuple[int, str]]] = {}
    for page, depth, title in outline:
        by_page.setdefault(page, []).append((depth, title))
    waiting = sorted(by_page)  # pages with entries, in order: a page without text too
    next_waiting = 0
    path: list[tuple[int, str]] = []  # (depth, title) from the top down
    parts: list[PageSection] = []
    for number, text in pages:
        # Entries pointing at a page with no text (or none read) start at the top of
        # the next page that has some.
        while next_waiting < len(waiting) and waiting[next_waiting] < number:
            for depth, title in by_page[waiting[next_waiting]]:
                path = _enter(path, depth, title)
            next_waiting += 1
        entries: list[tuple[int, str]] = []
        if next_waiting < len(waiting) and waiting[next_waiting] == number:
            entries = by_page[number]
            next_waiting += 1
        lines = split_lines(text)
        start = 0
        for (depth, title), at in zip(entries, _title_lines(lines, entries), strict=True):
            if at > start:
                parts.append((_titles(path), number, "\n".join(lines[start:at])))
                start = at
            path = _enter(path, depth, title)
        parts.append((_titles(path), number, "\n".join(lines[start:])))
    return parts


def _enter(path: list[tuple[int, str]], depth: int, title: str) -> list[tuple[int, str]]:
    """The path once an entry at `depth` starts: its ancestors kept, its siblings and
    their children left (a level the outline skips is not invented)."""
    return [step for step in path if step[0] < depth] + [(depth, title)]


def _titles(path: list[tuple[int, str]]) -> tuple[str, ...]:
    return tuple(title for _, title in path)


def _title_lines(lines: list[str], entries: list[tuple[int, str]]) -> list[int]:
    """For each entry, in order, the line its title starts on: found from the previous
    one's line on, else that line (0 for the first); bounded (module doc)."""
    budget = SEARCH_LINES_PER_LINE * len(lines) + len(entries)
    keys: list[str | None] = [None] * len(lines)  # each line's key, made once
    found: list[int] = []
    at = 0
    for _, title in entries:
        wanted = _key(title)[:KEY_PREFIX]
        hit = None
        for number in range(at, len(lines)):
            if budget <= 0 or not wanted:
                break
            budget -= 1
            key = keys[number]
            if key is None:
                key = keys[number] = _key(lines[number])
            if key and (
                key.startswith(wanted) or (len(key) >= WRAPPED_MIN and wanted.startswith(key))
            ):
                hit = number
                break
        if hit is not None:
            at = hit
        found.append(at)
    return found


def _key(text: str) -> str:
    """Letters and digits only, lower-cased: how a title is compared with a line."""
    return _NOT_KEY.sub("", text).lower()
