"""MyST Markdown (Sphinx's Markdown): directive fences and roles read as the text they show.

A MyST file is Markdown plus ```` ```{note} ```` / `:::{note}` directive fences, `{eval-rst}`
blocks of reStructuredText and `` {func}`name` `` roles. Read as plain Markdown, a
directive fence is a code block (`{note}` indexed as a language tag, the note's prose as
code) and a role keeps its markup. `convert` rewrites what MyST means, line by line, with
the same meanings as the reST reader (`formats.sphinx`): an admonition is its label and
body, a domain or autodoc directive its signature as code, `code-block` a fenced block,
`literalinclude` a line "(includes FILE)", `toctree` and other navigation nothing; an
`{eval-rst}` body goes through the reST reader; a role shows its text. A fence whose name
is none of those (an R Markdown chunk ```` ```{r} ````) stays what it was, a code block.

Every line written remembers the line of the file it came from, so chunks keep their
locations; a file without MyST syntax is left alone (`convert` returns None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragd.ingest.document import Document, split_lines
from ragd.ingest.formats import sphinx

_OPEN = re.compile(r"^[ ]{0,12}(`{3,}|:{3,})[ \t]*\{([\w:.+-]{1,60})\}[ \t]*(.*)$")
_CODE_OPEN = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})")
_ROLE = re.compile(r"\{([\w:.+-]{1,60})\}`([^`\n]{0,2000})`")
_TARGET = re.compile(r"^[ ]{0,3}\([\w:.+-]{1,200}\)=[ \t]*$")
_OPTION = re.compile(r"^[ \t]*:[\w-]{1,60}:")


@dataclass
class _Frame:
    fence: str  # the run of fence characters that closes it
    kind: str  # a `sphinx.family`, or "eval-rst"
    start: int = 0  # eval-rst: the 1-based line its body starts at
    body: list[str] = field(default_factory=list)


@dataclass
class _Out:
    lines: list[str] = field(default_factory=list)
    origins: list[int | None] = field(default_factory=list)
    reaches: list[int | None] = field(default_factory=list)

    def add(self, line: str, origin: int | None, reach: int | None = None) -> None:
        self.lines.append(line)
        self.origins.append(origin)
        self.reaches.append(origin if reach is None else reach)


def uses_myst(text: str) -> bool:
    return "{" in text and any(
        _OPEN.match(line) or _ROLE.search(line) for line in split_lines(text)
    )


def convert(text: str) -> Document | None:
    """The Markdown a MyST file means, with each line's origin; None without MyST syntax."""
    if not uses_myst(text):
        return None
    lines = split_lines(text)
    out = _Out()
    stack: list[_Frame] = []
    code: str | None = None  # the fence that closes an open plain code block
    skip_options = False
    for number, line in enumerate(lines, start=1):
        if code is not None:
            out.add(line, number)
            if _closes(line, code):
                code = None
            continue
        if stack and _closes(line, stack[-1].fence):
            _close(stack.pop(), out, number)
            skip_options = False
            continue
        frame = stack[-1] if stack else None
        if frame is not None and frame.kind in ("eval-rst", "silent", "code"):
            if not (skip_options and _OPTION.match(line)):
                skip_options = False
                if frame.kind == "eval-rst":
                    frame.body.append(line)
                elif frame.kind == "code":
                    out.add(line, number)
            continue
        if skip_options and _OPTION.match(line):
            continue
        skip_options = False
        opened = _OPEN.match(line)
        if opened and _known(opened.group(2)):
            stack.append(_open(opened, out, number))
            skip_options = True
            continue
        plain = _CODE_OPEN.match(line)
        if plain:
            code = plain.group(1)
            out.add(line, number)
        elif not _TARGET.match(line):
            out.add(_ROLE.sub(_role, line), number)
    for frame in reversed(stack):  # a fence left open runs to the end of the file
        _close(frame, out, len(lines))
    return Document(
        kind="markdown",
        title="",
        text="\n".join(out.lines),
        located="lines",
        origins=out.origins,
        reaches=out.reaches,
    )


def _known(name: str) -> bool:
    return name.lower() == "eval-rst" or sphinx.family(name) != "unknown"


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.strip(fence[0])


def _role(match: re.Match[str]) -> str:
    shown = sphinx.role_text(match.group(2))
    return f"`{shown}`" if sphinx.is_code_role(match.group(1)) and "`" not in shown else shown


def _open(opened: re.Match[str], out: _Out, number: int) -> _Frame:
    fence, name, argument = opened.group(1), opened.group(2).lower(), opened.group(3).strip()
    kind = "eval-rst" if name == "eval-rst" else sphinx.family(name)
    if kind == "code":
        ticks = "`" * max(3, len(fence)) if fence[0] == "`" else "```"
        out.add(f"{ticks}{argument.split(' ')[0]}", None)
        return _Frame(fence, kind, body=[ticks])
    if kind == "eval-rst":
        return _Frame(fence, kind, start=number + 1)
    lead = sphinx.lead_line(name, argument)
    if lead and kind in ("signature", "autodoc"):
        lead = f"`{lead}`"
    if lead:
        out.add("", None)
        out.add(_ROLE.sub(_role, lead), number)
        out.add("", None)
    return _Frame(fence, kind)


def _close(frame: _Frame, out: _Out, number: int) -> None:
    if frame.kind == "code":
        out.add(frame.body[0], None)  # the closing fence written at the opening
    elif frame.kind == "eval-rst":
        _write_rst(frame, out)
    out.add("", None)


def _write_rst(frame: _Frame, out: _Out) -> None:
    """An `{eval-rst}` body read by the reST reader, its lines counted from the file's."""
    from ragd.ingest.formats import rst

    body = "\n".join(frame.body)
    if not body.strip():
        return
    rst.refuse_long_lines(frame.body, first=frame.start)  # with the file's line number
    document = rst.parse("eval-rst.rst", body.encode("utf-8"))
    shift = frame.start - 1
    reaches = document.reaches or document.origins
    for line, origin, reach in zip(
        split_lines(document.text), document.origins, reaches, strict=False
    ):
        out.add(line, _shifted(origin, shift), _shifted(reach, shift))


def _shifted(origin: int | None, shift: int) -> int | None:
    return origin + shift if origin else origin  # None and UNPLACED (0) stay as they are
