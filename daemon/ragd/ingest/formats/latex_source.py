"""A LaTeX file's text as `formats.latex` reads it: a position moving forward, and the
ways of taking what is at it unread (a command's name, an argument that is a key or a
file name, the body of a verbatim block).

Everything here moves forward only, so a file costs time linear in its length: a
search for a closing string remembers where it found one, or that there is none (the
next `$` after a line of 100,000 unclosed `$`s is looked for once, not once per `$`);
an optional argument `[…]` that is not closed before the paragraph ends makes every
later `[` in that paragraph no argument either, without looking again.
"""

from __future__ import annotations

import re

_LETTERS = re.compile(r"[A-Za-z]+")  # a control word's name (applied with `match`)
# What a raw group's scan stops at: a brace, an escape, a comment, a paragraph's end.
_GROUP_STOP = re.compile(r"[{}\\%]|\n\n")
# The same for an address (`\\url`, `\\href`), where `%` is a character (`a%20b`), as
# hyperref reads it: taken for a comment, it hid the closing brace and the rest of the
# file became the address.
_ADDRESS_STOP = re.compile(r"[{}\\]|\n\n")
# What an `\\iffalse` block is skipped through: control words (a nested `\\if…`, its
# `\\fi`, an `\\else`), control symbols (`\\%`) and comments, as TeX skips them.
_SKIPPED_TOKEN = re.compile(r"\\([A-Za-z]+)|\\.|%[^\n]*", re.DOTALL)
# Control words starting "if" that are no conditionals TeX counts while skipping.
_NOT_CONDITIONALS = frozenset({"iff", "ifthenelse"})
_BRACKET_STOP = re.compile(r"[\]{}\\%]|\n\n")


class Source:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.end = len(text)
        self._found: dict[str, int] = {}  # string → where it was last found (-1: nowhere)
        self._line, self._line_pos = 1, 0
        self._no_bracket_before = -1  # no `]` closes an optional argument before here
        self.unclosed = False  # the last `required` group ran to the end of the file
        self._given_back = False  # an unclosed group was read again as text (once a file)

    def line(self) -> int:
        """The 1-based line of the current position (asked with positions that only grow)."""
        self._line += self.text.count("\n", self._line_pos, self.pos)
        self._line_pos = self.pos
        return self._line

    def find(self, string: str, start: int) -> int:
        """The first `string` at or after `start`, or -1; `start`s asked only grow."""
        found = self._found.get(string)
        if found is None or (found != -1 and found < start):
            found = self.text.find(string, start)
            self._found[string] = found
        return found

    def find_unescaped(self, string: str, start: int) -> int:
        """The first `string` at or after `start` not escaped by a backslash (`\\$`)."""
        found = self.find(string, start)
        while found > 0 and _escaped(self.text, found):
            found = self.find(string, found + 1)
        return found

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < self.end else ""

    def control_word(self) -> str:
        """The letters of a command's name at the position (after its backslash), or ""."""
        match = _LETTERS.match(self.text, self.pos)
        if match is None:
            return ""
        self.pos = match.end()
        return match.group()

    def skip_space(self) -> None:
        """Blanks before an argument, and one line break, never a paragraph's end."""
        text, pos = self.text, self.pos
        while pos < self.end and text[pos] in " \t":
            pos += 1
        if pos < self.end and text[pos] == "\n" and not text.startswith("\n\n", pos):
            pos += 1
            while pos < self.end and text[pos] in " \t":
                pos += 1
        self.pos = pos

    def star(self) -> bool:
        if self.peek() == "*":
            self.pos += 1
            return True
        return False

    def skip(self, spec: str) -> list[str | None]:
        """Arguments by spec (``o`` optional, ``r`` required), taken unread. A required
        group never closed is no argument: the position goes back to it, so what follows
        is read as text (a stray `{` in a `\\label` or a definition had taken the rest of
        the file with it), and the arguments after it are None."""
        taken: list[str | None] = []
        for kind in spec:
            start = self.pos
            taken.append(self.optional() if kind == "o" else self.required())
            if kind == "r" and self.give_back(start):
                return taken[:-1] + [None] * (len(spec) - len(taken) + 1)
        return taken

    def give_back(self, start: int) -> bool:
        """After a `required` group that ran to the end of the file: back to `start`, to
        read it as text; once a file, since each give-back costs a scan to the end (a line
        of `\\label{` given back at every one was n²). Whether it went back."""
        if not self.unclosed or self._given_back:
            return False
        self._given_back = True
        self.pos = start
        return True

    def required(self, long: bool = True, address: bool = False) -> str:
        """A required argument as written: a balanced `{…}` group's inside (to the end of
        the file when it is not closed; to the paragraph's end when not `long`), else one
        token (`\\name` or a character). An `address` has no comments: `%` is itself."""
        self.skip_space()
        text, pos = self.text, self.pos
        self.unclosed = False
        if pos >= self.end:
            return ""
        if text[pos] == "\\":
            self.pos = pos + 1
            name = self.control_word()
            if not name and self.pos < self.end:
                self.pos += 1
            return text[pos : self.pos]
        if text[pos] != "{":
            self.pos = pos + 1
            return text[pos]
        depth, scan = 1, pos + 1
        stops = _ADDRESS_STOP if address else _GROUP_STOP
        while depth:
            match = stops.search(text, scan)
            if match is None:
                scan = self.end
                break
            mark, scan = match.group(), match.end()
            if mark == "{":
                depth += 1
            elif mark == "}":
                depth -= 1
            elif mark == "\\":
                scan += 1
            elif mark == "%":
                newline = text.find("\n", scan)
                scan = self.end if newline < 0 else newline
            elif not long:
                scan = match.start()
                break
        self.pos = min(scan, self.end)
        self.unclosed = depth > 0 and self.pos >= self.end
        return text[pos + 1 : self.pos - (depth == 0)]

    def optional(self) -> str | None:
        """An optional `[…]` argument's inside as written, or None when there is none
        (nothing closes it before the paragraph ends: LaTeX stops there too)."""
        self.skip_space()
        text, start = self.text, self.pos
        if start >= self.end or text[start] != "[" or start < self._no_bracket_before:
            return None
        depth, scan = 0, start + 1
        while True:
            match = _BRACKET_STOP.search(text, scan)
            if match is None or match.group() == "\n\n":
                self._no_bracket_before = self.end if match is None else match.start()
                return None
            mark, scan = match.group(), match.end()
            if mark == "]" and depth == 0:
                self.pos = scan
                return text[start + 1 : scan - 1]
            if mark == "{":
                depth += 1
            elif mark == "}":
                depth = max(0, depth - 1)
            elif mark == "\\":
                scan += 1
            elif mark == "%":
                newline = text.find("\n", scan)
                scan = self.end if newline < 0 else newline

    def past_false_branch(self) -> None:
        """Past an `\\iffalse` branch, as TeX skips it: to its `\\fi` (nested
        conditionals counted: `\\ifx … \\fi` inside is skipped whole), or just past an
        `\\else` of its own, whose branch is read; to the end of the file when neither
        comes. Each character is passed once."""
        depth = 0
        for match in _SKIPPED_TOKEN.finditer(self.text, self.pos):
            name = match.group(1)
            if name is None:
                continue
            if name.startswith("if") and name not in _NOT_CONDITIONALS:
                depth += 1
            elif name == "fi" and depth:
                depth -= 1
            elif name in ("fi", "else") and not depth:
                self.pos = match.end()
                return
        self.pos = self.end

    def until(self, closing: str) -> str | None:
        """The text up to `closing` (the position moved past it), or None when it never
        comes (the position unmoved)."""
        found = self.find(closing, self.pos)
        if found < 0:
            return None
        body = self.text[self.pos : found]
        self.pos = found + len(closing)
        return body


def _escaped(text: str, at: int) -> bool:
    """Whether an odd number of backslashes stands right before `at`."""
    count = 0
    while at - count > 0 and text[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
