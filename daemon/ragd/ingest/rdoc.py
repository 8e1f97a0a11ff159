"""A Ruby gem's RDoc document (`README.rdoc`, `History.rdoc`), read as Markdown.

Debian installs a gem's `README.rdoc` in `/usr/share/doc/ruby-*/`, read as text by its
name; RDoc's headings (`= Title`, `== Section`, at the margin) were not headings there,
so every passage of Rack's README was cited under its first line, `= \\Rack, a modular
Ruby webserver interface`, and its `== Configuration` sections could not be told apart
(newuser41). Here each `=` heading becomes the Markdown heading of its level, and the
rest is read as Markdown, which it mostly already is for a reader: `*` lists, indented
verbatim blocks (Markdown's indented code), blank-line paragraphs. RDoc's `\\Word`
(kept from being linked) loses its backslash outside verbatim lines; a line at the margin
starting with `#`, no heading in RDoc, is kept from being one. One line in, one line
out: line numbers stay the file's. Pure, str methods only.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import PurePath

MAX_LEVEL = 6  # Markdown's deepest heading


def is_rdoc(name: str) -> bool:
    return PurePath(name).suffix.lower() == ".rdoc"


def rdoc_to_markdown(text: str) -> str:
    return "\n".join(_line(line) for line in text.split("\n"))


def _line(line: str) -> str:
    if line[:1].isspace() or not line:
        return line  # verbatim (code), or blank
    if line.startswith("#"):
        return "\\" + line
    marks = len(line) - len(line.lstrip("="))
    if 0 < marks <= MAX_LEVEL and line[marks : marks + 1] in (" ", "\t"):
        return "#" * marks + " " + _unescaped(line[marks:].strip())
    return _unescaped(line)


def _unescaped(line: str) -> str:
    """`\\Rack` → `Rack`: RDoc's escape before a word it would link; other backslashes
    (`C:\\temp`, `\\n`) stay."""
    parts = line.split("\\")
    out = [parts[0]]
    for before, part in pairwise(parts):
        word_start = not before or not (before[-1].isalnum() or before[-1] in "\\_:")
        out.append(part if word_start and part[:1].isupper() else "\\" + part)
    return "".join(out)
