"""Markdown's underlined (setext) headings rewritten as `#` headings, line for line (pure).

CommonMark has two heading styles: `# Title`, and a title underlined with `===` (level 1)
or `---` (level 2). Change logs and READMEs often use the second — requests' HISTORY.md
puts every release, "2.32.0 (2024-05-20)", over a row of dashes — and the chunker reads
`#` headings only, so every release of such a file fell under the file's one title and a
chunk ran across releases: "what changed in 2.32.0?" was answered from 2.32.3's notes.
The title becomes `## Title` and its underline an empty line, so the file keeps its line
count and every chunk's line numbers still point at the file.

Only where the underline cannot mean something else: the title is a paragraph of one line
(a blank line, a heading or the start of the file above it) that is not a list item, a
quote, a table row, HTML, indented code or inside a fence, and the underline is at least
three `=` or `-`. A `---` under a paragraph of several lines stays text (CommonMark would
make the whole paragraph the heading: rare, and a wrong guess would swallow a paragraph
into a heading path), and so does a `---` with nothing titled above it: a rule, or YAML
front matter (skipped whole, blank lines and all). So does a line longer than a heading
path keeps (HEADING_MAX_CHARS): that is a paragraph over a rule, and as a heading its last
words were in no chunk. One pass over the lines (str methods, and the chunker's anchored
fence and heading openings): linear in the text.
"""

from __future__ import annotations

from ragd.ingest.chunking import HEADING_MAX_CHARS, Fences, atx_heading
from ragd.ingest.document import split_lines

MIN_UNDERLINE = 3
LEVELS = {"=": "#", "-": "##"}
_LIST_MARKERS = ("- ", "* ", "+ ")


def underlined_to_atx(text: str) -> str:
    """`text` with each setext heading written the `#` way (unchanged when it has none)."""
    lines = split_lines(text)
    fences = Fences()
    above_clear = True  # the line above the current one ends a block (blank, heading, start)
    changed = False
    matter_end = _front_matter_end(lines)
    for number, line in enumerate(lines):
        if number <= matter_end:
            continue  # YAML front matter: its keys are not titles, its `---` no underline
        stripped = line.strip()
        if fences.feed(line):
            above_clear = False
            continue
        if not stripped:
            above_clear = True
            continue
        following = lines[number + 1] if number + 1 < len(lines) else ""
        level = _underline_level(following)
        if level and above_clear and _can_be_title(line):
            lines[number] = f"{level} {stripped}"
            lines[number + 1] = ""
            changed = True
            above_clear = True  # the (now empty) underline ends this heading
            continue
        above_clear = atx_heading(line) is not None  # an ATX heading ends its block too
    return "\n".join(lines) if changed else text


def _front_matter_end(lines: list[str]) -> int:
    """The line closing the file's YAML front matter (`---` on the first line, `---` or
    `...` after it), or -1 for none. A blank line inside it ("title: x", "", "draft:
    false", "---") made its last key a title over the closing `---`, and the heading
    path of the text under it."""
    if len(lines) < 2 or lines[0].rstrip() != "---":
        return -1
    key = lines[1].split(":", 1)[0]
    if lines[1].rstrip() != "---" and (":" not in lines[1] or not key or " " in key.strip()):
        return -1  # a rule opening the file, not YAML's `key: value` under it
    return next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), -1)


def _underline_level(line: str) -> str:
    """ "#" or "##" when `line` is a setext underline, else ""."""
    if len(line) - len(line.lstrip(" ")) > 3:
        return ""
    body = line.strip()
    if len(body) < MIN_UNDERLINE or body[0] not in LEVELS or body.strip(body[0]):
        return ""
    return LEVELS[body[0]]


def _can_be_title(line: str) -> bool:
    """A one-line paragraph that no other Markdown construct claims, short enough for a
    heading path to hold whole."""
    indent = len(line) - len(line.lstrip(" "))
    body = line.strip()
    if (
        len(body) > HEADING_MAX_CHARS
        or indent > 3
        or line.startswith("\t")
        or body[0] in "#>|<"
        or _underline_level(line)
    ):
        return False
    if body.startswith(_LIST_MARKERS) or body in ("-", "*", "+"):
        return False
    digits = len(body) - len(body.lstrip("0123456789"))
    return not (0 < digits <= 9 and body[digits : digits + 2] in (". ", ") "))
