"""A Vim help file (`doc/*.txt`: Vim's own manuals, every plugin's), read as Vim shows it.

Vim's help is plain text with a markup of its own, which its help window conceals: a
`*tag*` is an anchor (shown as the tag's name), a `|link|` a jump to one (its name), a
line ending in ` >` opens an example (the indented lines after it, to a line starting
with `<` or any text at the margin), a line ending in ` ~` is a header, and a line of `=`
(or `-`) across the page rules off a section whose title is the line right under it,
`*08.7*	Viewing differences with vimdiff`, with the section's tags right-aligned after it
(a rule is one only at the margin; a plugin's rule that carries tags at its right,
`------ *airline-tabline*`, opens a part headed by its first tag).
Read as plain text, Vim 9.0's user manual (36 files) had no heading at all: every chunk
`(untitled)`, its rules and stars in the text, its examples run into the prose
(newuser66). Here the file's title (the first line's description, or the centred title
under it) heads the file, each ruled-off title a section under it (its number kept, its
tags as a line of text below it), examples are fenced code, and the markers are taken
out; the modeline (`vim:tw=78:ts=8:noet:ft=help:norl:`) is no text. Every other line is
kept, each output line citing the line it came from. Pure, one pass over the lines, str
methods and bounded patterns only.
"""

from __future__ import annotations

import codecs
import re

HEAD_BYTES = 4096  # of the file's start: every `.txt` is asked, so only these are read
TAIL_BYTES = 512  # of its end, for the modeline
RULE_MIN = 20  # a rule runs across the page: Vim's are 78 columns
HEADING_MAX_CHARS = 100  # with its right-aligned tags out
# The first line names the file's own tag: `*usr_08.txt*	For Vim version 9.0. …`,
# `*fugitive.txt*  A Git wrapper so awesome, it should be illegal`.
_FIRST_TAG = re.compile(r"\*(?P<name>[^\s*|\"]{1,100}\.txt)\*(?P<rest>[^\n]*)")
_MODELINE = re.compile(r"(?:^|[ \t])vim?:[^\n]{0,200}?(?:ft|filetype)=help\b")
# Anchors and jumps as help.vim's syntax finds them: no blank, `*`, `|` or `"` inside, a
# tag standing alone between blanks.
_TAG = re.compile(r"(?<!\S)\*([^\s*|\"]{1,100})\*(?!\S)")
_LINK = re.compile(r"\|([^\s*|\"]{1,100})\|")
_EXAMPLE_OPENER = re.compile(r"(?:^|[ \t])>(?P<lang>[a-z0-9]{0,12})$")
_SECTION_NUMBER = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){1,3}")
# A manual's byline, centred under the first line: `VIM REFERENCE MANUAL    by Bram
# Moolenaar`, `VIM USER MANUAL - by …`, or its name on a line of its own, `by Anton …`.
# What frames a centred title: pi_tar.txt's `| Tar File Interface |` between `+====+` lines.
_BOX = " \t|+=-"
_BYLINE = re.compile(r"[^\n]{0,200}?\bMANUAL\b|by[ \t]")


def is_vim_help(data: bytes) -> bool:
    """Is this text a Vim help file? Its first non-blank line opens with its own tag,
    `*NAME.txt*`, or its last lines hold a modeline setting `ft=help`."""
    head = data[:HEAD_BYTES].removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace")
    first = next((line for line in head.split("\n") if line.strip()), "")
    if _FIRST_TAG.match(first.strip()) is not None:
        return True
    tail = data[-TAIL_BYTES:].decode("utf-8", errors="replace")
    return _MODELINE.search(tail) is not None


def vim_help_to_markdown(text: str) -> tuple[str, list[int | None]]:
    """The help file as Markdown and, per line of it, the 1-based line it came from (None
    for a line written here: a fence, a blank)."""
    lines = text.split("\n")
    out: list[tuple[str, int | None]] = []
    start = _title(lines, out)
    rule_above = False
    example: str | None = None  # an example's fence, once its first line of code is seen
    opened = False
    blanks: list[tuple[str, int | None]] = []  # blank lines in an example, held back
    for number in range(start, len(lines)):
        line = lines[number].rstrip()
        stripped = line.strip()
        if example is not None:
            if not stripped:
                blanks.append(("", number + 1))
                continue
            if line[0] in " \t":  # the example goes on: its code, fenced
                out += blanks if opened else [*blanks, (example, None)]
                out.append((line, number + 1))
                blanks, opened = [], True
                continue
            out += [("```", None), *blanks] if opened else blanks
            example, opened, blanks = None, False, []
            if line.startswith("<"):  # the example's end, concealed; what follows is text
                line = line[1:].rstrip()
                stripped = line.strip()
        if number >= len(lines) - 3:
            line = _without_modeline(line)
            stripped = line.strip()
        if line[:1] in ("=", "-") and _is_rule(stripped):  # at the margin, as help.vim's
            rule_above = True
            continue
        if (ruled := _ruled_tags(line)) is not None:
            level, tags = ruled
            out += [(f"{'#' * level} {tags[0]}", number + 1), ("", None)]
            if tags[1:]:
                out += [(" ".join(tags[1:]), number + 1), ("", None)]
            rule_above = False
            continue
        if rule_above and stripped and (heading := _heading(stripped)) is not None:
            title, tags = heading
            out += [(f"## {title}", number + 1), ("", None)]
            if tags:
                out += [(" ".join(tags), number + 1), ("", None)]
            rule_above = False
            continue
        rule_above = False
        opener = _EXAMPLE_OPENER.search(line)
        if opener is not None:
            line = line[: opener.start()].rstrip()
            example = f"```{opener.group('lang')}"
        out.append((_shown(line) if line.strip() else "", number + 1))
    if opened:
        out.append(("```", None))
    return "\n".join(text for text, _ in out), [origin for _, origin in out]


def _title(lines: list[str], out: list[tuple[str, int | None]]) -> int:
    """Writes the file's title heading and its first line's text to `out`; returns the
    0-based line the body starts at. The title is the first line's description after its
    tag; where that is `For Vim version …`, a tagged line at the margin right under the
    centred byline (a reference manual's `Options		*options*` under `VIM REFERENCE
    MANUAL	by Bram Moolenaar`), else the first centred line with words besides tags that
    is no byline (a chapter's `Splitting windows` under `VIM USER MANUAL - by Bram
    Moolenaar`, quickref.txt's `Quick reference guide` above its indented table; a line of
    tags alone under it, usr_90.txt's `*install*`, is no title), else the file's name."""
    first = next((n for n, line in enumerate(lines) if line.strip()), len(lines))
    if first == len(lines):
        return first
    match = _FIRST_TAG.match(lines[first].strip())
    if match is None:
        return first
    rest = _shown(match.group("rest")).strip()
    body = first + 1
    centred: list[tuple[str, int]] = []
    while body < len(lines) and (not lines[body].strip() or lines[body][0] in " \t"):
        if lines[body].strip():
            centred.append((lines[body].strip(), body))
        body += 1
    title, tags_at = rest, first
    tags: list[str] = []
    if not rest or rest.startswith("For Vim version"):
        margin = _heading(lines[body].strip()) if body < len(lines) else None
        titled = [n for n, (shown, _) in enumerate(centred) if _names_a_title(shown)]
        heading = _heading(centred[titled[0]][0].strip(_BOX)) if titled else None
        if margin is not None and margin[1]:
            (title, tags), tags_at = margin, body
            body += 1
        elif heading is not None:
            title, tags = heading
            tags_at = centred.pop(titled[0])[1]
        else:
            title = match.group("name")
    out += [(f"# {title}", first + 1), ("", None)]
    out += [(f"{match.group('name')} {rest}".strip(), first + 1), ("", None)]
    shown_lines = [(_shown(shown), number + 1) for shown, number in centred]
    if tags:
        shown_lines.append((" ".join(tags), tags_at + 1))
    for shown, number in sorted(shown_lines, key=lambda pair: pair[1]):
        out += [(shown, number), ("", None)]
    return body


def _names_a_title(centred: str) -> bool:
    """Could this centred line under the first be the file's title? Not a line of tags
    alone, a rule or a box's edge (`+====+`), nor the manual's byline: many of Vim 9.0's
    151 help files (change.txt, diff.txt, index.txt, …) have no title but the byline,
    which had titled 34 of them (`VIM REFERENCE MANUAL by Bram Moolenaar`); such a file is
    titled by its own tag, its name."""
    shown = _TAG.sub("", centred).strip(_BOX)
    return any(c.isalnum() for c in shown) and _BYLINE.match(shown) is None


def _is_rule(stripped: str) -> bool:
    return (
        len(stripped) >= RULE_MIN
        and stripped[0] in "=-"
        and stripped == stripped[0] * len(stripped)
    )


def _ruled_tags(line: str) -> tuple[int, list[str]] | None:
    """A rule at the margin that carries tags at its right, `------ *airline-tabline*`:
    a plugin's manual opens each part of a section so (vim-airline's 56 extensions, under
    one `EXTENSIONS` section, had all been cited as that section, newuser73). The part is
    headed by its first tag, the name `:help` finds it by, one level under a section for a
    dashed rule; (level, tags), or None for any other line."""
    parts = line.split()
    if len(parts) < 2 or line[:1] not in ("=", "-") or not _is_rule(parts[0]):
        return None
    tags = [_TAG.fullmatch(part) for part in parts[1:]]
    names = [tag.group(1) for tag in tags if tag is not None]
    if len(names) != len(tags):
        return None
    return (2 if parts[0][0] == "=" else 3), names


def _heading(stripped: str) -> tuple[str, list[str]] | None:
    """The title and the tags of a line under a rule: `*08.7*	Viewing differences with
    vimdiff` is `08.7 Viewing differences with vimdiff`, and `INTRODUCTION	*ale-intro*`
    is `INTRODUCTION` with the tag `ale-intro`; None for a line too long to be a title."""
    tags = [match.group(1) for match in _TAG.finditer(stripped)]
    words = _TAG.sub(" ", stripped).split()
    if words and words[-1] == "~":
        words.pop()
    if tags and _SECTION_NUMBER.fullmatch(tags[0]) and stripped.startswith("*"):
        words.insert(0, tags.pop(0))  # the section's number opens its title
    title = _LINK.sub(r"\1", " ".join(words))
    if not title:
        if not tags:
            return None
        title = tags.pop(0)
    if len(title) > HEADING_MAX_CHARS:
        return None
    return title, tags


def _shown(line: str) -> str:
    """A line of text as the help window shows it: tags and links by their names, a
    header's trailing `~` out, a `#` at its start no Markdown heading."""
    line = _LINK.sub(r"\1", _TAG.sub(r"\1", line))
    if line.endswith((" ~", "\t~")):
        line = line[:-1].rstrip()
    if line.startswith("#"):
        line = "\\" + line
    return line


def _without_modeline(line: str) -> str:
    match = _MODELINE.search(line)
    return line if match is None else line[: match.start()].rstrip()
