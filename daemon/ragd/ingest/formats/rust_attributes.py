"""`#[doc = …]` attributes as the doc text rustdoc shows for them.

rustdoc reads `#[doc = "text"]` (and `#![doc = …]`, the module's) as it reads `///`
(`//!`) lines, joined with them in order. A crate may take its docs from another file,
`#![doc = include_str!("../README.md")]`, or a whole example into a fence between two
`//!` lines (clap's tutorials). The included file is not read: a reader is given one
file's bytes (the index is keyed by their hash, so text taken from another file would go
stale when that one changes) and the included file, a README or an example beside the
crate, is usually indexed itself. In its place is a line naming it as a path from the
indexed folder's root, resolved from the file's own (`src/lib.rs` including
`../README.md` is "(documentation included from README.md)"), under the heading it
lands under, where a reader can follow it. Read as code, the attribute was cited
under the last item's code with nothing saying what the page shows there.

Only an attribute on one line is read (`doc = "…"` with its escapes, or `doc =
include_str!("…")`); `doc = concat!(…)`, a macro's `doc = $doc`, and a `cfg_attr`'s
doc (one per feature, formats.rust_docs reads its fences) stay code.
"""

from __future__ import annotations

import posixpath
import re

_DOC = re.compile(r"[ \t]*#(!?)\[[ \t]*doc[ \t]*=[ \t]*")
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"[ \t]*\][ \t]*$')
_INCLUDE = re.compile(r'include_str![ \t]*\([ \t]*"([^"\\\n]*)"[ \t]*(?:,[ \t]*)?\)[ \t]*\][ \t]*$')
_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]{1,6})\}|x([0-7][0-9a-fA-F])|(.))")
_ESCAPED = {"n": "\n", "t": "\t", "r": "", "0": ""}


def doc_attribute(line: str, name: str) -> tuple[bool, list[str]] | None:
    """`line` as a one-line doc attribute: (whether it is the module's, `#![doc]`, and
    its text's lines), or None when it is no such attribute. `name` is the file's path
    in its folder, which an included file's path is read from."""
    opening = _DOC.match(line)
    if opening is None:
        return None
    inner = opening.group(1) == "!"
    literal = _LITERAL.match(line, opening.end())
    if literal is not None:
        return inner, _unescaped(literal.group(1)).split("\n")
    included = _INCLUDE.match(line, opening.end())
    if included is not None:
        return inner, [f"(documentation included from {included_path(name, included.group(1))})"]
    return None


def included_path(name: str, path: str) -> str:
    """`path`, relative to the file `name`, as a path from the indexed folder's root;
    as written when it leaves that folder (or is absolute)."""
    if path.startswith("/"):
        return path
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(name), path))
    return path if joined.startswith("../") or joined == ".." else joined


def _unescaped(text: str) -> str:
    return _ESCAPE.sub(_character, text)


def _character(escape: re.Match[str]) -> str:
    code, byte, single = escape.groups()
    if code is not None:
        number = int(code, 16)
        return chr(number) if number <= 0x10FFFF and not 0xD800 <= number <= 0xDFFF else ""
    if byte is not None:
        return chr(int(byte, 16))
    return _ESCAPED.get(single, single)
