"""Plain text as a terminal shows it: overstrikes and ANSI escape sequences resolved
(pure, one pass, str methods only).

grotty, the formatter behind `man` and `nroff`, marks bold and underlined words for a
terminal: the old way by overstriking (`X\\bX` bold, `_\\bX` underlined, `+\\bo` a bullet),
the new way with ANSI SGR sequences (`ESC[1m` … `ESC[0m`). Saved to a file (man-db's
own `man-db-manual.txt.gz`, a `man -P cat` capture), read as they are, those bytes split
words ("ESC[1mmkcatdirs" is the word "1mmkcatdirs"), fill headings with escape codes and
hide numbered titles from the paged-text reader, whose rules see "ESC[1m1.  Introduction".

A pager (less -R) shows each character once, in bold or underlined; so does this, without
the style. Overstrikes resolve to the character that is struck (`_` is the underline, a
repeated character the bold), grotty's bullet to "•", any other pair to the later
character (as `col -b` does). A CSI sequence (ESC `[`, parameters, one final byte) goes
whole; an ESC that opens none goes alone. Line breaks are never touched, so every line
keeps its number in the file.
"""

from __future__ import annotations

ESC = "\x1b"
BACKSPACE = "\b"
UNDERLINE = "_"
BULLET = "•"
BULLET_STRIKES = frozenset(("+o", "o+"))  # grotty's \(bu on a terminal
# A control sequence: ESC [, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F,
# then one final byte 0x40–0x7E (ECMA-48 5.4).
CSI_BODY_LOW, CSI_BODY_HIGH = "\x20", "\x3f"
CSI_FINAL_LOW, CSI_FINAL_HIGH = "\x40", "\x7e"


def has_terminal_marks(text: str) -> bool:
    return ESC in text or BACKSPACE in text


def as_displayed(text: str) -> str:
    """`text` with its overstrikes and escape sequences resolved (see the module's doc);
    the same string when it has none."""
    if not has_terminal_marks(text):
        return text
    return "\n".join(_line_as_displayed(line) for line in text.split("\n"))


def _line_as_displayed(line: str) -> str:
    if not has_terminal_marks(line):
        return line
    out: list[str] = []
    index, size = 0, len(line)
    while index < size:
        char = line[index]
        if char == ESC:
            index = _after_escape(line, index)
        elif char == BACKSPACE:
            # The next character prints over the last one shown: one of them stays.
            struck = line[index + 1] if index + 1 < size else ""
            if out and struck and struck not in (ESC, BACKSPACE):
                out[-1] = _overstruck(out[-1], struck)
                index += 2
            else:
                index += 1  # nothing to strike over (a line's start, a trailing \b)
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _overstruck(first: str, second: str) -> str:
    """The character a terminal shows for `second` printed over `first`."""
    if second == UNDERLINE:
        return first  # "X\b_": X underlined, the underline after it
    if first in (UNDERLINE, second):
        return second  # "_\bX" underlined, "X\bX" bold
    if first + second in BULLET_STRIKES:
        return BULLET
    return second


def _after_escape(line: str, index: int) -> int:
    """Where the text resumes after the ESC at `index`: past its CSI sequence when it
    opens one, else right after the ESC (a lone or foreign escape is not text either)."""
    if index + 1 >= len(line) or line[index + 1] != "[":
        return index + 1
    end = index + 2
    while end < len(line) and CSI_BODY_LOW <= line[end] <= CSI_BODY_HIGH:
        end += 1
    if end < len(line) and CSI_FINAL_LOW <= line[end] <= CSI_FINAL_HIGH:
        return end + 1
    return index + 1  # an unfinished sequence: only the ESC goes, its bytes stay text
