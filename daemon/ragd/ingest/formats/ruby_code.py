"""Ruby, cut at its classes, modules and methods at every depth.

A gem's file is one `module Rack` at the margin with everything inside it (`class
Deflater`, its `def call`), so the column-0 pattern the code reader uses for other
languages found one definition a file: all of Rack 2.2's 66 files were single sections
headed `module Rack`, a 2,000-line `sinatra/base.rb` one `module Sinatra` (newuser41).
Here every `class`, `module` and `def` line heads a section, nested by its indent under
the definitions it is in: `module Rack > class Deflater > def call`. A definition whose
own lines before the next one are only its opening line (the `module Rack` around a
class) gives no section of its own: its line starts the next one's, its heading stays
in the path; `require` lines above the first definition go with it too. Code after a
method's `end` in a class body is headed by the class again.

A line inside a heredoc (`<<~EOS`, `<<-EOS`, `<<EOS`, quoted identifiers too), an
`=begin`/`=end` comment, or after `__END__` is no definition: a heredoc of generated
code (`class_eval <<-RUBY` with its `def` lines) or a commented-out method would head a
section. Strings are read on their line only (a `"` in a regular expression cannot hide
the rest of the file); heredoc openers inside one-line strings and comments are skipped.
One pass over the lines, each line scanned once by `_TOKEN` searches from where the last
ended.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from ragd.ingest.formats.markdown import MarkdownWriter

# `def self.call`, `def ==(other)`, `def name=(value)`, `class Foo < Bar`, `module A::B`.
DEFINITION = re.compile(
    r"^(?P<indent>[ \t]*)(?P<kind>class|module|def)[ \t]+(?P<name>[^\s(;]{1,200})"
)
# Crystal's the same, and its `struct`, `enum`, `lib`, `annotation` and `macro`, with the
# modifiers before them (`private def`, `abstract class`, `protected def`). Its standard
# library is one `class HTTP::Server` or `module HTTP` a file, like a gem's (newuser71:
# Crystal 1.6's `http/`, 29 `.cr` files, had not been read at all).
CRYSTAL_DEFINITION = re.compile(
    r"^(?P<indent>[ \t]*)(?P<modifiers>(?:(?:private|protected|abstract)[ \t]+){0,3})"
    r"(?P<kind>class|module|struct|enum|lib|annotation|def|macro)[ \t]+(?P<name>[^\s(;]{1,200})"
)
# What hides a heredoc opener on its line: a comment, a one-line string.
_TOKEN = re.compile(
    r"""#|["'`]|<<(?P<squiggle>[~-]?)(?:(?P<quote>["'`])(?P<quoted>[A-Za-z_]\w{0,63})(?P=quote)"""
    r"""|(?P<bare>[A-Za-z_]\w{0,63}))"""
)
_LINE_STRING = {
    '"': re.compile(r'(?:[^"\\]|\\.)*'),
    "'": re.compile(r"(?:[^'\\]|\\.)*"),
    "`": re.compile(r"(?:[^`\\]|\\.)*"),
}
# What closes a definition: `end` (`end.freeze`, `end # of Base`), and on the line of one
# that holds nothing: `def get?; method == GET end`, `class Error < StandardError; end`,
# the endless `def ok? = true`.
_END = re.compile(r"[ \t]*end\b")
_CLOSED_ON_LINE = re.compile(r"[;\s]end[ \t]*$")
_ENDLESS = re.compile(r"(?:\([^)\n]{0,200}\))?[ \t]*=[ \t]")  # after the name
_NO_CODE = frozenset(("", "end", "private", "protected", "public", "module_function"))
_REQUIRES = frozenset(("require", "require_relative", "load"))
MAX_LEVEL = 6  # Markdown's deepest heading


@dataclass
class _Start:
    """Where a section starts: `line` is the definition's (`first`, the comments above
    it included), or for the code after a closed definition (`tail`), that code's first
    line; `heading`: the definition's, or for a tail the enclosing one's, at `depth`."""

    first: int
    line: int
    depth: int
    heading: str
    tail: bool = False
    own: bool = True  # has lines of its own (an enclosing definition's may all go below)


def write_ruby(
    lines: list[str], writer: MarkdownWriter, language: str = "ruby", title: str | None = None
) -> None:
    """`lines` as sections, one per definition (the comments right above it included),
    headed by its path of enclosing definitions; the code before the first as it is,
    headed by `title` when given (a Crystal file's name). `language`: "ruby", or
    "crystal" (its definitions: CRYSTAL_DEFINITION)."""
    starts: list[_Start] = []
    path: list[str] = []  # the headings of the definitions at each depth, so far
    comments: set[int] = set()  # the lines of `=begin` … `=end` comments
    for number, depth, heading in _definitions(lines, comments, language):
        floor = starts[-1].first + 1 if starts else 0
        if heading is None:  # code after a closed definition, in the one enclosing it
            _drop_empty_tail(starts, lines, comments, number)
            starts.append(_Start(number, number, depth, path[depth - 1], tail=True))
            continue
        del path[depth - 1 :]
        path.append(heading)
        first = _with_comments(lines, number, floor)
        _drop_empty_tail(starts, lines, comments, first)
        above = starts[-1] if starts else None
        if (
            above is not None
            and above.depth == depth - 1
            and not above.tail
            and _holds_nothing(lines, above.line + 1, first)
        ):
            # The enclosing definition holds nothing of its own before this one: its
            # heading stays (the path), its lines go with this section.
            above.own = False
            first = above.first
        starts.append(_Start(first, number, depth, heading))
    _drop_empty_tail(starts, lines, comments, len(lines))
    if starts and _only_requires(lines[: starts[0].first], language == "crystal"):
        # A gem file's `require "zlib"` lines before its module: kept with the first
        # section, not a chunk of their own headed `(untitled)` in every file.
        lead = starts[0].first
        for start in starts:
            if start.first == lead:
                start.first = 0
    bounds = [start.first for start in starts if start.own] + [len(lines)]
    preamble = lines[: starts[0].first if starts else len(lines)]
    if title is not None and any(line.strip() for line in preamble):
        writer.heading(2, title)  # a Crystal file's requires and macros: `pthread.cr`
    writer.code("\n".join(preamble), language, 1)
    after_index = 1
    for start in starts:
        writer.heading(min(1 + start.depth, MAX_LEVEL), start.heading)
        if start.own:
            after = bounds[after_index]
            after_index += 1
            writer.code("\n".join(lines[start.first : after]), language, start.first + 1)


def _drop_empty_tail(starts: list[_Start], lines: list[str], comments: set[int], stop: int) -> None:
    """The last section dropped if it is code after a closed definition that holds
    nothing up to line `stop` but `end`s, `private` and blank lines: those stay with the
    definition above."""
    if starts and starts[-1].tail and not _holds_code(lines, comments, starts[-1].line, stop):
        starts.pop()


def _only_requires(lines: list[str], macros: bool = False) -> bool:
    """Whether `lines` hold nothing but blank lines, comments and `require`s (with
    `macros`, Crystal's, lines of macro code too: `{% if flag?(:win32) %}`, `{% end %}`)."""
    return all(
        _is_blank_or_comment(line)
        or line.split(None, 1)[0] in _REQUIRES
        or (macros and _is_macro_line(line))
        for line in lines
    )


def _is_macro_line(line: str) -> bool:
    """A line of Crystal macro code alone: `{% … %}` (a `{{ … }}` writes code: no)."""
    bare = line.strip()
    return bare.startswith("{%") and bare.endswith("%}")


def _holds_nothing(lines: list[str], start: int, stop: int) -> bool:
    return all(_is_blank_or_comment(lines[n]) for n in range(start, stop))


def _holds_code(lines: list[str], comments: set[int], start: int, stop: int) -> bool:
    """Whether lines `start` to `stop` hold more than blank lines, comments, `end`s and
    visibility keywords (`private`): what follows a method's `end` is filed under the
    method unless it does (a class body's `set :sessions, true` is the class's)."""
    return any(
        n not in comments
        and not _is_blank_or_comment(lines[n])
        and lines[n].split("#", 1)[0].strip() not in _NO_CODE
        for n in range(start, stop)
    )


def _is_blank_or_comment(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _with_comments(lines: list[str], number: int, floor: int) -> int:
    """Line `number`, moved up over the comment lines right above it, never above `floor`."""
    first = number
    while first > floor and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    return first


def _definitions(
    lines: list[str], comments: set[int], language: str = "ruby"
) -> list[tuple[int, int, str | None]]:
    """(0-based line, depth, heading) of each definition line outside heredocs, `=begin`
    comments (their lines added to `comments`) and what follows `__END__`; heading None:
    the code after a closed definition, at the depth of the one enclosing it. Depth: 1 +
    the definitions it is inside, read from indents: one opened at an indent is closed
    by the `end` at that indent or by the next definition at it or left of it; a
    one-line `def x; end` or endless `def x = 1` holds nothing, nor Crystal's `abstract
    def` (it has no body, no `end`)."""
    crystal = language == "crystal"
    definition = CRYSTAL_DEFINITION if crystal else DEFINITION
    found: list[tuple[int, int, str | None]] = []
    # The heredocs awaited, in order: identifier, whether an indented end counts (a deque:
    # a line can open thousands).
    heredocs: deque[tuple[str, bool]] = deque()
    open_indents: list[int] = []  # of the definitions the current line is inside
    in_comment = False
    for number, line in enumerate(lines):
        if heredocs:
            identifier, indented = heredocs[0]
            if (line.strip() if indented else line.rstrip("\r")) == identifier:
                heredocs.popleft()
            continue
        if in_comment:
            comments.add(number)
            in_comment = not _opens(line, "=end")
            continue
        if _opens(line, "=begin"):
            comments.add(number)
            in_comment = True
            continue
        if line.rstrip("\r") == "__END__":
            break
        match = definition.match(line)
        indent = len(line[: len(line) - len(line.lstrip())].expandtabs(8))
        if match is not None and not (match["kind"] == "class" and match["name"] == "<<"):
            while open_indents and open_indents[-1] >= indent:
                open_indents.pop()
            found.append((number, len(open_indents) + 1, f"{match['kind']} {match['name']}"))
            rest = match.end()
            bodiless = crystal and match["kind"] == "def" and "abstract" in match["modifiers"]
            if not (bodiless or _CLOSED_ON_LINE.search(line, rest) or _ENDLESS.match(line, rest)):
                open_indents.append(indent)
        elif open_indents and open_indents[-1] == indent and _END.match(line, indent):
            open_indents.pop()
            if open_indents:  # what follows is the enclosing definition's (None: a tail)
                found.append((number + 1, len(open_indents), None))
        heredocs.extend(_heredocs_opened(line))
    return found


def _opens(line: str, marker: str) -> bool:
    """`=begin`/`=end` at the margin, alone or before a blank."""
    return line.startswith(marker) and (len(line) == len(marker) or line[len(marker)].isspace())


def _heredocs_opened(line: str) -> list[tuple[str, bool]]:
    """The heredocs `line` opens, in order: each identifier and whether its closing line
    may be indented (`<<~`, `<<-`). A bare `<<name` only with a capital (`<<EOS`): `x <<y`
    shifts."""
    opened: list[tuple[str, bool]] = []
    position = 0
    while (token := _TOKEN.search(line, position)) is not None:
        kind = token.group()
        if kind == "#":
            break
        if kind in _LINE_STRING:
            body = _LINE_STRING[kind].match(line, token.end())
            position = (body.end() if body else token.end()) + 1
            continue
        position = token.end()
        identifier = token["quoted"] or token["bare"]
        if token["quoted"] or token["squiggle"] or identifier[0].isupper():
            opened.append((identifier, bool(token["squiggle"])))
    return opened


def written_in_another_alphabet(text: str) -> bool:
    """Is this `.ru` file prose in another alphabet (a Russian `manual.ru`, `README.ru`),
    not Rack's `config.ru`? Ruby is written in ASCII, but for its strings and comments:
    here most letters are not (a legacy encoding's, decoded as U+FFFD, count as such).
    Comment lines are not counted: a three-line `config.ru` under one Russian or Japanese
    comment had more of its letters there than in `require './app'` and `run App`."""
    foreign = latin = 0
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for c in line:
            if c.isascii():
                latin += c.isalpha()
            else:
                foreign += c.isalpha() or c == "\ufffd"
    return foreign > latin
