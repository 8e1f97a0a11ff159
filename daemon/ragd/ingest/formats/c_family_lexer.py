"""The statements of a Java, C#, C or C++ file that can define something: those at its
top (namespaces and `extern "C"` blocks see through) and those in a type's body.

The code reader splits these files at their types and functions (`formats.c_family`),
which are told apart from prototypes, calls and initializers by the statement's code up
to its `{` or `;`: what a line holds is not enough (`static int` on one line, `parse(…)`
on the next, the `{` on a third). This module reads the file once, token by token, and
hands each such statement (its code with strings as `""` and comments as a blank, capped
at CODE_CAP characters) to a classifier, whose answer says whether a `{` opens a type
body (whose statements are read too), a namespace (read as the top), or anything else (a
function's body, an initializer), which is skipped to its closing `}` counting braces
only. It notes where each comment between statements at the top opens: the only places
a C banner (`formats.c_banners`) is looked for.

What it knows of the tokens: `//` and `/* … */` comments, one-line `"…"` strings and
`'…'` character literals (`\\` escapes; C++'s digit separator `1'000` is no literal),
Java's text block and C#'s raw string (`\"\"\"`, C#'s with any longer run of quotes), C#'s
verbatim `@"…"` (a quote doubled inside), C++'s raw string `R"x(…)x"`, and the
preprocessor's lines (C, C++, C#: a `#` opening a line, through its `\\`-continued lines).
Of a conditional, the first branch is read and the others skipped (`#else`, `#elif`, the
way ctags reads them: each branch of `#ifdef _WIN32 … {` `#else … {` `#endif` opening its
own brace would leave the file one brace deep), but of `#if 0` the branch after it.

Linear by construction: one pass, each token found by a search from where the last one
ended, each string, comment, directive and skipped branch scanned once. A comment or
multi-line string never closed is read as none (its opener skipped, so it hides no
definition after it), and once one kind is found unclosed no later opener of that kind is
scanned for its end. Frames are only kept for the top, namespaces and types; a body's
braces are a count, so a file of 400,000 `{` costs a counter, not a stack.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

C_LANGUAGES = frozenset(("c", "cpp"))  # read with their own rules: prototypes, banners, `1'000`
LANGUAGES = frozenset(("java", "csharp")) | C_LANGUAGES
CODE_CAP = 1000  # characters of a statement's code kept for its classifier

_DIRECTIVE = r"(?m:^[ \t]*#)"  # a preprocessor line: `#` first on its line
# Tokens where statements are read (the top, a type's body), and inside a body, where
# only braces, strings, comments and directives matter.
_STATEMENT_TOKENS = {
    "java": re.compile(r'//|/\*|"""|["\'{}();]'),
    "csharp": re.compile(_DIRECTIVE + r'|//|/\*|\$@"|@\$?"|"{3,}|["\'{}();]'),
    "c": re.compile(_DIRECTIVE + r'|//|/\*|["\'{}();]'),
}
_BODY_TOKENS = {
    "java": re.compile(r'//|/\*|"""|["\'{}]'),
    "csharp": re.compile(_DIRECTIVE + r'|//|/\*|\$@"|@\$?"|"{3,}|["\'{}]'),
    "c": re.compile(_DIRECTIVE + r'|//|/\*|["\'{}]'),
}
_STATEMENT_TOKENS["cpp"] = _STATEMENT_TOKENS["c"]
_BODY_TOKENS["cpp"] = _BODY_TOKENS["c"]
_QUOTED = {  # a one-line literal's body, up to (not with) its closing quote
    '"': re.compile(r'(?:[^"\\\n]|\\[\s\S])*'),
    "'": re.compile(r"(?:[^'\\\n]|\\[\s\S])*"),
}
_DIRECTIVE_NAME = re.compile(r"[ \t]*#[ \t]*(\w*)[ \t]*(\w*)")
_FIRST_COLUMN_COMMENT = re.compile(r"(?m:^/[/*])")
_CONDITIONAL = re.compile(r"(?m:^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b)")
_RAW_PREFIXES = frozenset(("R", "LR", "uR", "UR", "u8R"))  # C++'s raw string: R"x(…)x"
_RAW_DELIMITER = re.compile(r'[^()\\\s"]{0,16}\(')
_NUMBER_CHARS = 64  # looked back from a `'` for a number it separates the digits of

TYPE = "type"  # a `{` opening a type's body: its statements are read as members
NAMESPACE = "namespace"  # a `{` opening a namespace: read as the top is
# anything else a classifier answers (or None): a body, skipped to its `}`


@dataclass
class Statement:
    """One statement the classifier took for a definition."""

    start: int  # position of its first code character
    end: int  # position of its `{` or `;`
    role: str  # the classifier's answer
    found: object  # what the classifier made of it (a heading, for formats.c_family)
    member: bool  # in a type's body (else at the top)
    close: int | None = None  # a `{`'s closing `}`, when found


# The classifier: (code, terminator "{" or ";", owner: the Statement of the type whose body
# holds it, or None at the top) -> (role, what it found), or None for no definition.
Classifier = Callable[[str, str, Statement | None], tuple[str, object] | None]


class _Frame:
    """The top, a namespace or a type's body: the statement being read in it."""

    def __init__(self, owner: Statement | None, opener: Statement | None) -> None:
        self.owner = owner  # the type whose members this frame holds (None: the top)
        self.opener = opener  # the statement whose `{` opened this frame
        self.parens = 0
        self.parts: list[str] = []
        self.size = 0
        self.start = -1  # first code character of the statement (-1: none yet)

    def add(self, text: str, start: int, end: int) -> None:
        if self.size >= CODE_CAP or start >= end:
            return
        piece = text[start : min(end, start + CODE_CAP - self.size)]
        if self.start < 0:
            stripped = piece.lstrip()
            if not stripped:
                return
            self.start = start + len(piece) - len(stripped)
            piece = stripped
        self.parts.append(piece)
        self.size += len(piece)

    def add_literal(self, text: str, start: int, end: int, placeholder: str) -> None:
        """A string, comment or directive from `start` to `end` in the statement: as
        `placeholder` and the line breaks it spans (the classifier tells which line a
        word is on by them); a comment or directive starts no statement."""
        if self.start < 0 and placeholder == " ":
            return
        if self.start < 0:
            self.start = start
        if self.size < CODE_CAP:
            piece = placeholder + "\n" * text.count("\n", start, end)
            self.parts.append(piece)
            self.size += len(piece)

    def take(self) -> tuple[int, str]:
        start, code = self.start, "".join(self.parts)
        self.parts, self.size, self.start = [], 0, -1
        return start, code


class _Lexer:
    def __init__(self, text: str, language: str, classify: Classifier) -> None:
        self.text = text
        self.language = language
        self.classify = classify
        self.found: list[Statement] = []
        self.frames = [_Frame(None, None)]
        self.body = 0  # braces open inside a body (not read) below the innermost frame
        self.unclosed: set[str] = set()  # kinds of opener found never closed
        # where each comment between statements at the top (or in a namespace) opens: the
        # only places a banner (formats.c_banners) may be, not one in a body, a string,
        # an `#if 0` branch or inside another comment
        self.comments: list[int] = []

    def run(self) -> list[Statement]:
        text, position = self.text, 0
        while True:
            frame = self.frames[-1]
            tokens = (_BODY_TOKENS if self.body else _STATEMENT_TOKENS)[self.language]
            token = tokens.search(text, position)
            end = len(text) if token is None else token.start()
            if not self.body:
                frame.add(text, position, end)
            if token is None:
                return self.found
            position = self._token(token.group(), end, frame)

    def _token(self, kind: str, start: int, frame: _Frame) -> int:
        """Reads the token `kind` at `start`; where reading goes on."""
        text, reading = self.text, not self.body
        if kind == "{":
            self._open(start, frame)
        elif kind == "}":
            self._close(start)
        elif kind == "(":
            frame.parens += 1
            frame.add(text, start, start + 1)
        elif kind == ")":
            frame.parens = max(0, frame.parens - 1)
            frame.add(text, start, start + 1)
        elif kind == ";":
            if frame.parens:
                frame.add(text, start, start + 1)
            else:
                self._ended(start, ";", frame)
        elif kind == "//":
            self._note_comment(start, frame)
            return _line_end(text, start)
        elif kind == "/*" or kind.endswith("#"):
            end = self._past_comment(start) if kind == "/*" else self._directive(start)
            if kind == "/*" and end > start + 2:
                self._note_comment(start, frame)
            if reading and end > start + 2:
                frame.add_literal(text, start, end, " ")
            return end
        else:
            past = self._past_literal(start, kind)
            if past is None:
                return start + 1  # an apostrophe that opens nothing, a digit separator
            if reading:
                frame.add_literal(text, start, past, '""' if kind != "'" else "''")
            return past
        return start + len(kind)

    def _note_comment(self, start: int, frame: _Frame) -> None:
        # A statement may be open: a directive's comment over two lines (X.h's `#define
        # ParentRelative 1L /* … */`) leaves its second half read as code, to the next `;`
        if not self.body and frame.owner is None and not frame.parens:
            self.comments.append(start)

    def _open(self, start: int, frame: _Frame) -> None:
        if self.body or frame.parens:
            self.body += 1  # a body's braces, or a lambda's inside a statement's parentheses
            return
        statement = self._ended(start, "{", frame)
        if statement is not None and statement.role == TYPE and frame.owner is None:
            self.frames.append(_Frame(statement, statement))
        elif statement is not None and statement.role == NAMESPACE:
            self.frames.append(_Frame(frame.owner, statement))
        else:
            self.body = 1

    def _close(self, start: int) -> None:
        if self.body:
            self.body -= 1
            return
        if len(self.frames) == 1:
            self.frames[0].take()  # a stray `}` at the top ends what came before it
            return
        frame = self.frames.pop()
        if frame.opener is not None:
            frame.opener.close = start

    def _ended(self, end: int, terminator: str, frame: _Frame) -> Statement | None:
        """The statement of `frame` ended at `end`, recorded when it defines something."""
        start, code = frame.take()
        if start < 0:
            return None
        answer = self.classify(code, terminator, frame.owner)
        if answer is None:
            return None
        statement = Statement(start, end, answer[0], answer[1], frame.owner is not None)
        self.found.append(statement)
        return statement

    def _past_comment(self, start: int) -> int:
        close = -1 if "/*" in self.unclosed else self.text.find("*/", start + 2)
        if close == -1:
            self.unclosed.add("/*")
            return start + 2  # never closed: read as no comment
        return close + 2

    def _past_literal(self, start: int, kind: str) -> int | None:
        """Past the string or character literal opened by `kind` at `start`, or None."""
        text = self.text
        if kind == "'":
            if self._separates_digits(start):
                return None
            body = _QUOTED["'"].match(text, start + 1)
            end = body.end() if body else start + 1
            return end + 1 if end < len(text) and text[end] == "'" else None
        if kind.endswith('"') and "@" in kind:
            return self._past_verbatim(start + len(kind))
        if kind.startswith('"""'):
            return self._past_many_quotes(start, kind)
        if self.language != "java" and self._raw_prefix(start):
            raw = self._past_raw(start)
            if raw is not None:
                return raw
        body = _QUOTED['"'].match(text, start + 1)
        end = body.end() if body else start + 1
        return end + 1 if end < len(text) and text[end] == '"' else end

    def _separates_digits(self, start: int) -> bool:
        """A `'` inside a number (`1'000'000`, C++14 and C23), not a literal's quote."""
        if self.language not in C_LANGUAGES:
            return False
        first = start
        while first > max(0, start - _NUMBER_CHARS) and (
            self.text[first - 1].isalnum() or self.text[first - 1] == "_"
        ):
            first -= 1
        return first < start and self.text[first].isdigit()

    def _raw_prefix(self, start: int) -> bool:
        first = start
        while first > max(0, start - 4) and self.text[first - 1].isalnum():
            first -= 1
        before = self.text[first - 1] if first else " "
        return self.text[first:start] in _RAW_PREFIXES and not (before.isalnum() or before == "_")

    def _past_raw(self, start: int) -> int | None:
        delimiter = _RAW_DELIMITER.match(self.text, start + 1)
        if delimiter is None or "raw" in self.unclosed:
            return None
        closing = ")" + delimiter.group()[:-1] + '"'
        close = self.text.find(closing, delimiter.end())
        if close == -1:
            self.unclosed.add("raw")
            return None
        return close + len(closing)

    def _past_verbatim(self, position: int) -> int | None:
        """Past C#'s verbatim string whose text starts at `position` (`""` is a quote)."""
        if "@" in self.unclosed:
            return None
        text = self.text
        while (close := text.find('"', position)) != -1:
            if text.startswith('""', close):
                position = close + 2
                continue
            return close + 1
        self.unclosed.add("@")
        return None

    def _past_many_quotes(self, start: int, kind: str) -> int | None:
        """Past Java's text block or C#'s raw string, closed by as many quotes."""
        if kind in self.unclosed:
            return None
        close = self.text.find(kind, start + len(kind))
        if close == -1:
            self.unclosed.add(kind)
            return None
        return close + len(kind)

    def _directive(self, start: int) -> int:
        """Past the preprocessor line that opens at `start`, and past the branches of a
        conditional it leaves unread."""
        text = self.text
        hash_at = text.index("#", start)
        end = _line_end(text, hash_at)
        while self.language != "csharp" and end > hash_at and text[end - 1] == "\\":
            end = _line_end(text, end + 1)
        name = _DIRECTIVE_NAME.match(text, hash_at)
        word, argument = (name.group(1), name.group(2)) if name else ("", "")
        if word == "if" and argument in ("0", "false"):
            return self._skip_branch(end, to_else=True)
        if word in ("else", "elif"):
            branch_end = self._skip_branch(end, to_else=False)
            self._note_branch_comments(end, branch_end)
            return branch_end
        return end

    def _note_branch_comments(self, start: int, end: int) -> None:
        """The comments opening a line at its first column in a branch left unread (an
        `#else`'s: code, not `#if 0`'s) at the top: valgrind.h's 900 lines under `#else /*
        ! NVALGRIND */` hold its `/* --- amd64-linux --- */` banners. Not lexed, so not
        told from a comment or a body's; an indented one is taken for a body's."""
        frame = self.frames[-1]
        if self.body or frame.owner is not None or frame.parens:
            return
        self.comments.extend(
            found.start() for found in _FIRST_COLUMN_COMMENT.finditer(self.text, start, end)
        )

    def _skip_branch(self, position: int, to_else: bool) -> int:
        """Past the `#endif` closing this conditional (or, `to_else`, past its next
        `#else`/`#elif` line, whose branch is read); nested ones counted."""
        depth = 0
        while (directive := _CONDITIONAL.search(self.text, position)) is not None:
            position = _line_end(self.text, directive.end())
            word = directive.group(1)
            if word.startswith("if"):
                depth += 1
            elif word == "endif":
                if depth == 0:
                    return position
                depth -= 1
            elif depth == 0 and to_else:
                return position
        return len(self.text)


def statements(
    text: str, language: str, classify: Classifier, comments: list[int] | None = None
) -> list[Statement]:
    """The statements of `text` (a file in `language`, one of LANGUAGES) at its top and
    in its types' bodies that `classify` took for definitions, in file order. `comments`,
    if given, is extended by where each comment between statements at the top opens."""
    lexer = _Lexer(text, language, classify)
    found = lexer.run()
    if comments is not None:
        comments.extend(lexer.comments)
    return found


def line_of(starts: list[int], position: int) -> int:
    """The 0-based line holding `position`, given each line's first position."""
    return bisect.bisect_right(starts, position) - 1


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end == -1 else end
