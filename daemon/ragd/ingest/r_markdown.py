"""R Markdown (`.Rmd`) as the rendered page shows it: a vignette's or report's front matter
and its code chunks' headers.

An `.Rmd` is Markdown with a YAML header and fenced R chunks. The header's `title` is the
page's title, and its `subtitle`, `author`, `date`, `description` and `abstract` text on
the page; every other key (`output: rmarkdown::html_vignette`, the `vignette:` block with
`%\\VignetteIndexEntry{…}` and `\\usepackage[utf8]{inputenc}`, `params`) is an instruction
to knitr and R, never shown. A chunk's header (```` ```{r, echo = FALSE, message = FALSE}
````) is its language and knitr's options; the page shows an R block. Read as plain
Markdown, dplyr 1.0.10's nine vignettes had opened every file with its header as text,
under `(untitled)` (newuser65).

Quarto (`.qmd`) is the same page with two more of Pandoc's marks read by Quarto: a chunk's
options as its first lines (`#| echo: false`, `#| code-fold: true`), an instruction, never
shown; and fenced divs (`::: {.callout-note}` … `:::`), whose fence lines are layout (a
column, a grid, a tab set) or a callout, shown as its title (`title="…"`, else its kind:
"Note", "Warning"). Read as Markdown, great_tables 1.1.0's 101 pages had each fence line
as text (`::: {.callout-note}`, `:::{.g-col-lg-6 .g-col-12}`) and each figure chunk's
options as code. R Markdown reads fenced divs the same way (Pandoc's), so both do.

A shortcode (`{{< include _intro.qmd >}}`, `{{< video https://… >}}`, `{{< pagebreak >}}`,
`{{< var version >}}`; blogdown's Hugo ones in an `.Rmd` are written alike) is replaced
when the page is rendered by what it names: another file, a player, a break, a value
this reader does not know. Its own words are never on the page, so outside code it is
read as nothing, but `kbd`'s keys, shown as written (`{{< kbd Shift-Ctrl-P >}}`); an
escaped one (`{{{< var >}}}`) is shown as the shortcode it spells. Read as text, each had
been a line of prose (`include get-started/overview.qmd`), and a `{{< pagebreak >}}` over
a `---` rule a heading.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

SHOWN_KEYS = ("subtitle", "author", "date", "description", "abstract")
NULLS = frozenset(("~", "null", "Null", "NULL"))  # YAML's null, read as text (_NoAliases)
HEADER_MAX_LINES = 200  # a longer "header" is no front matter: left as it is
HEADER_MAX_CHARS = 20_000  # nor a larger one (the YAML parser is pure Python: bounded input)
# A chunk's header: its fence, then `{r, echo = FALSE}` / `{python}` (knitr's engines).
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]|$)")
_CHUNK_HEADER = re.compile(r"([ \t]{0,3}(?:`{3,}|~{3,}))[ \t]*\{[ \t]*([A-Za-z][\w.-]{0,40})")
# A chunk's option line, Quarto's (`#| echo: false`; `//|` and `--|` in other engines).
_CHUNK_OPTION = re.compile(r"[ \t]*(?:#|//|--)\|")
# A fenced div's fence: three or more colons, then nothing, a class, or `{attributes}`.
# The blanks before the attributes belong to the optional group, so that a line of blanks
# after the colons is tried once, not once for each split between two runs of blanks.
_DIV_FENCE = re.compile(r"[ \t]{0,3}:{3,}(?:[ \t]*(?:\{([^{}\n]{0,400})\}|([\w-]{1,80})))?[ \t]*$")
_CALLOUT = re.compile(r"\.callout-(note|warning|important|tip|caution)\b")
_TITLE = re.compile(r"""\btitle=(?:"([^"]{0,200})"|'([^']{0,200})')""")


def r_markdown_shown(text: str) -> str:
    """`text`, an `.Rmd` or `.qmd` file's, with its YAML header as the page shows it (the
    title a `#` heading, the shown keys' text under it), each chunk header a plain fence
    (```` ```r ````), its leading option lines blank and fenced divs as _pandoc_shown
    shows them; line for line. Linear: the fences are found once, each line looked at
    once more."""
    lines = text.split("\n")
    end = _header_end(lines)
    head: list[str] = []
    if end > 0:
        fields = _fields("\n".join(lines[1:end]))
        if fields is None:
            end = 0  # not YAML: left as text
        else:
            head = _in_lines(_shown(fields), end + 1)
    rest = lines[end + 1 if end > 0 else 0 :]
    # What _pandoc_shown writes keeps each line's place among the fences (an opening fence
    # stays one, a line it blanks or gives a callout's title is no fence), so one reading
    # of the fences serves both passes.
    places = _fences(rest)
    body = _pandoc_shown(rest, places)
    if head[:1] and head[0].startswith("# "):
        body = _below_title(body, places)
    return "\n".join(head + body)


def _fences(lines: list[str]) -> list[str]:
    """Each line's place among code fences: "open" (a fence that opens a block), "code"
    (inside one, its closing fence included) or "" (text). A block closes at a bare fence
    of the same mark at least as long, as CommonMark says."""
    places: list[str] = []
    fence = ""  # the fence a block opened, until a bare one as long closes it
    for line in lines:
        opening = _FENCE.match(line)
        if fence:
            run = opening.group(1) if opening else ""
            closes = run[:1] == fence[0] and len(run) >= len(fence)
            if closes and not line[opening.end() if opening else 0 :].strip():
                fence = ""
            places.append("code")
        elif opening:
            fence = opening.group(1)
            places.append("open")
        else:
            places.append("")
    return places


def _pandoc_shown(body: list[str], places: list[str]) -> list[str]:
    """`body` as Pandoc shows it: each chunk header a plain fence, a chunk's leading option
    lines blank, each fenced div's fence blank or its callout's title. Line for line, so
    every chunk keeps the file line it came from. `places`: _fences(body)."""
    shown: list[str] = []
    options = False  # inside a chunk, before its first line that is no option
    for line, place in zip(body, places, strict=True):
        if place == "open":
            shown.append(_plain_fence(line))
            options = True
        elif place == "code":
            options = options and _CHUNK_OPTION.match(line) is not None
            shown.append("" if options else line)
        elif div := _DIV_FENCE.match(line):
            # `::: callout-note` names its class bare, `::: {.callout-note}` with its dot
            shown.append(_div_title(div.group(1) or f".{div.group(2) or ''}"))
        elif SHORTCODE_OPEN in line:
            shown.append(_shortcodes_shown(line))
        else:
            shown.append(line)
    return shown


SHORTCODE_OPEN, SHORTCODE_CLOSE = "{{<", ">}}"
SHOWN_ARGUMENTS = frozenset(("kbd",))  # shortcodes whose arguments are the page's text


def _shortcodes_shown(line: str) -> str:
    """`line` with each shortcode as the page shows it: nothing, `kbd`'s keys, an escaped
    one (`{{{< x >}}}`) as `{{< x >}}`; a line (or heading) that held only shortcodes is
    blank. Each
    shortcode's close is found once, from its opening on: linear."""
    parts: list[str] = []
    at = 0
    while (opening := line.find(SHORTCODE_OPEN, at)) >= 0:
        closing = line.find(SHORTCODE_CLOSE, opening + len(SHORTCODE_OPEN))
        if closing < 0:
            break  # no shortcode closes past here: the rest is text
        end = closing + len(SHORTCODE_CLOSE)
        inside = line[opening + len(SHORTCODE_OPEN) : closing]
        if line[opening - 1 : opening] == "{" and line[end : end + 1] == "}":
            parts += [line[at : opening - 1], line[opening:end]]  # escaped: shown as written
            at = end + 1
            continue
        parts += [line[at:opening], _shortcode_text(inside)]
        at = end
    parts.append(line[at:])
    shown = "".join(parts)
    # a heading of shortcodes alone (`{{< pagebreak >}}` over a `---` rule, read as its
    # underline before this reader) is no heading
    return shown if shown.strip().strip("#") else ""


def _shortcode_text(inside: str) -> str:
    """What the page shows for a shortcode whose name and arguments are `inside`."""
    words = inside.split()
    if not words or words[0] not in SHOWN_ARGUMENTS:
        return ""
    return " ".join(word.rpartition("=")[2].strip("\"'") for word in words[1:])


def _div_title(attributes: str) -> str:
    """What a fenced div's opening fence shows: a callout's title (`title="Tip"`, else its
    kind: "Note"), in bold as Quarto heads the box; nothing for layout or a closing fence."""
    callout = _CALLOUT.search(attributes)
    if callout is None:
        return ""
    title = _TITLE.search(attributes)
    text = (title.group(1) or title.group(2)) if title else callout.group(1).capitalize()
    return f"**{' '.join(text.split())}**" if text.strip() else ""


def _below_title(body: list[str], places: list[str]) -> list[str]:
    """`body` with its `#` headings one level down when any is at level 1, so that its
    sections sit under the title as the page sets them (`dplyr <-> base R > Overview`:
    base.Rmd's `# Overview` and `# One table verbs` had been the title's siblings). A
    chunk's R comment (`# Select columns by name`) is code, left alone. `places`: each
    line's place among the fences (_fences)."""
    headings: list[tuple[int, str]] = []  # (line, its `#` marks) outside fences
    for number, (line, place) in enumerate(zip(body, places, strict=True)):
        if not place and (heading := _ATX.match(line)):
            headings.append((number, heading.group(1)))
    if all(marks != "#" for _, marks in headings):
        return body
    shown = list(body)
    for number, marks in headings:
        if len(marks) < 6:
            shown[number] = "#" + body[number].lstrip(" ")
    return shown


def _header_end(lines: list[str]) -> int:
    """The line closing the YAML header opened by `---` on the first line, or -1."""
    if not lines or lines[0].rstrip() != "---":
        return -1
    for number in range(1, min(len(lines), HEADER_MAX_LINES)):
        if lines[number].rstrip() in ("---", "..."):
            return number
    return -1


class _NoAliases(yaml.BaseLoader):
    """YAML as text: every value the string it is written as, and no aliases.

    A front matter's values are text the page shows as written: read as YAML's types, a
    date that is no day (`date: 2024-02-30`, a typo) or a number of 5,000 digits raised
    ValueError and the whole file was unreadable, and `subtitle: 007` showed as 7
    (review69); no tag is constructed. A front matter names each value once: expanded, a
    dozen lines of anchors and aliases are millions of words (each level ten times the one
    below), so an alias makes the header no front matter, left as the text it is (its own
    size)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, "an alias: no front matter", event.start_mark
            )
        return super().compose_node(parent, index)


def _fields(header: str) -> dict[str, Any] | None:
    if len(header) > HEADER_MAX_CHARS:
        return None
    try:
        fields = yaml.load(header, Loader=_NoAliases)
    except (yaml.YAMLError, RecursionError):  # (`[[[[…` deeper than the composer goes)
        return None
    return fields if isinstance(fields, dict) else None


def _shown(fields: dict[str, Any]) -> list[str]:
    shown: list[str] = []
    title = _words(fields.get("title"))
    if title:
        shown += [f"# {' '.join(title.split())}", ""]
    for key in SHOWN_KEYS:
        words = _words(fields.get(key))
        if words:
            shown += [words, ""]
    return shown


def _in_lines(shown: list[str], count: int) -> list[str]:
    """The header's shown lines in the `count` lines the header took, so that every line
    below keeps its number in the file (a chunk's lines, its neighbours): blank lines
    between the fields when they fit, else none. A header holds its two `---` and at least
    a line per field, so the fields always fit."""
    if len(shown) > count:
        shown = [line for line in shown if line]
    return shown + [""] * (count - len(shown))


def _words(value: object) -> str:
    """A field's text as written (a number or date too: `_NoAliases` reads every value as
    its string), the names in a list of authors; nothing for YAML's null."""
    if isinstance(value, dict):
        return _words(value.get("name"))
    if isinstance(value, list):
        return ", ".join(filter(None, (_words(item) for item in value)))
    if not isinstance(value, str) or value in NULLS:
        return ""
    return value.strip()


def _plain_fence(line: str) -> str:
    match = _CHUNK_HEADER.match(line)
    if match is None:
        return line
    return f"{match.group(1)}{match.group(2).lower()}"
