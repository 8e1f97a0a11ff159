"""Where a Rust file's strings and comments are, line by line.

A doc comment is `///` or `/**` where the lexer is in code: the same characters inside a
string are text (`r#"… /// not a doc …"#`, a test's expected output), and a line that
starts inside a string or a block comment is never a definition. Read line by line
without this, a raw string's `//! ` lines were taken for the module's docs.

What it knows of Rust's tokens: line comments; block comments, nested as rustc nests
them; strings (`"…"` with `\\` escapes, `b"…"`, `c"…"`) and raw strings (`r"…"`,
`r#"…"#`, `br##"…"##`); char literals (`'"'`, `'\\''`, `'\\u{1F600}'`) told from
lifetimes and labels (`'a`, `'outer:`), which close nothing. Linear by construction: one
pass left to right, each token found by a search from where the last one ended, and a
string or comment scanned once to its end. A string or comment never closed (a file that
does not compile, or a token this lexer does not know) is read as no string at all, its
opener skipped, at most `RESTARTS` times (each costs a scan to the file's end); past that
it runs to the end, as rustc would read it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"""//|/\*|(?<!\w)[bc]?r#*"|"|'""")
_BLOCK_TOKEN = re.compile(r"/\*|\*/")
_QUOTE_OR_ESCAPE = re.compile(r'["\\]')
RESTARTS = 2  # unclosed strings or comments read past before the rest is taken as one
MAX_ESCAPED_CHAR = len("'\\u{10FFFF}'")


@dataclass
class Lexed:
    """Per line of a file: whether it starts in code (outside every string and comment),
    and, for a line whose first non-blank characters open a block comment closed later
    with nothing after its `*/`, that comment's last line."""

    in_code: list[bool]
    block_last: dict[int, int]


def lex_lines(lines: list[str]) -> Lexed:
    """`lines` (a file split at its line breaks) read as Rust tokens."""
    text = "\n".join(lines)
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    in_code = [True] * len(lines)
    indents = [len(line) - len(line.lstrip()) for line in lines]
    block_last: dict[int, int] = {}
    number = 0
    for start, end, closed_block in spans(text):
        while number < len(lines) and starts[number] <= start:
            number += 1  # the first line starting after the span's start
        first = number - 1  # the span's own first line
        while number < len(lines) and starts[number] < end:
            in_code[number] = False  # starts inside the span
            number += 1
        last = number - 1
        # Compared by column, not by slicing the line: a line of many tokens would be
        # copied once per token (quadratic in its length).
        opens_line = start - starts[first] <= indents[first]
        if closed_block and opens_line and end - starts[last] >= len(lines[last].rstrip()):
            block_last[first] = last
    return Lexed(in_code, block_last)


def spans(text: str) -> list[tuple[int, int, bool]]:
    """The strings, chars and comments of `text`: (start, end, whether it is a block
    comment closed by its own `*/`), in order, never overlapping."""
    found: list[tuple[int, int, bool]] = []
    restarts = 0
    position = 0
    while True:
        token = _TOKEN.search(text, position)
        if token is None:
            return found
        start, kind = token.start(), token.group()
        if kind == "'":
            end = _char_end(text, start)
            if end is not None:
                found.append((start, end, False))
            position = end or start + 1  # a lifetime or a label: no literal
            continue
        if kind == "//":
            newline = text.find("\n", start)
            end = len(text) if newline == -1 else newline
        elif kind == "/*":
            end = _block_end(text, start)
        elif kind == '"':
            end = _string_end(text, token.end())
        else:
            closer = '"' + "#" * kind.count("#")
            at = text.find(closer, token.end())
            end = None if at == -1 else at + len(closer)
        if end is None and restarts < RESTARTS:
            restarts += 1
            position = token.end()  # never closed: no string, no comment (see above)
            continue
        closed = end is not None
        found.append((start, end if end is not None else len(text), kind == "/*" and closed))
        position = found[-1][1]


def _char_end(text: str, start: int) -> int | None:
    """The end of a char literal opening at `start`, or None for a lifetime or label."""
    if text[start + 1 : start + 2] == "\\":
        close = text.find("'", start + 3, start + MAX_ESCAPED_CHAR)
        return None if close == -1 else close + 1
    if text[start + 2 : start + 3] == "'" and text[start + 1 : start + 2] not in ("", "\n"):
        return start + 3
    return None


def _block_end(text: str, start: int) -> int | None:
    depth = 0
    for token in _BLOCK_TOKEN.finditer(text, start):
        depth += 1 if token.group() == "/*" else -1
        if depth == 0:
            return token.end()
    return None


def _string_end(text: str, position: int) -> int | None:
    while True:
        found = _QUOTE_OR_ESCAPE.search(text, position)
        if found is None:
            return None
        if found.group() == '"':
            return found.end()
        position = found.end() + 1  # the escaped character, whatever it is
