"""Perl (`.pm`, `.pl`, `.pod`): the POD read as documentation, the code split at its
`package` and `sub` lines.

A Perl module's documentation is POD inside the module (after `__END__`, or between the
subs it documents). Before this reader `.pm` was not indexed, and a `FAQ.pm` that the
`faq.*` pattern let through was one `(untitled)` block of code with its `=head2` and
`C<…>` markup quoted as written (newuser42, Log::Log4perl).

The file is cut as perl reads it: a line starting with `=` and a letter opens POD, a
line starting with `=cut` closes it (`formats.pod` writes each block). The code between
is kept verbatim at its own lines, a section from each `package Name` (level 1) and
`sub name` at the margin (level 2 once a package was declared, else 1) to the next, with
the comment lines right above it; after `__END__` or `__DATA__` no line is a definition.
Once the file has declared its package, POD's `=head1` is level 2, under it: a module's
DESCRIPTION is `package Log::Log4perl::Appender::Limit > DESCRIPTION`, as the man page's
is `Appender::Limit(3pm) > DESCRIPTION` (a bare DESCRIPTION, embedded with each window,
said nothing of whose), and never under its last sub. POD before any package (FAQ.pm has
none) starts at level 1. Each line is looked at once; no regular expression.
"""

from __future__ import annotations

from ragd.ingest.document import Document, decode_text, split_lines
from ragd.ingest.formats.line_reader import markdown_document
from ragd.ingest.formats.markdown import MarkdownWriter
from ragd.ingest.formats.pod import PodWriter, is_command

FORMAT = "Perl"
ENDS = ("__END__", "__DATA__")
NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:'")


def parse(name: str, data: bytes) -> Document:
    text, notes = decode_text(data)
    lines = split_lines(text)
    writer = MarkdownWriter()
    pod = PodWriter(writer)
    code = _CodeWriter(writer, lines, pod)
    start, in_pod = 0, False
    for number, line in enumerate(lines):
        if not in_pod and is_command(line):
            code.write(start, number)
            start, in_pod = number, True
        elif in_pod and line.startswith("=cut") and not line[4:5].isalnum():
            pod.block(lines, start, number)
            start, in_pod = number + 1, False
    if in_pod:
        pod.block(lines, start, len(lines))
    else:
        code.write(start, len(lines))
    return markdown_document(name, notes, writer)


def definition(line: str) -> tuple[str, str] | None:
    """`sub log_it {` → ("sub", "log_it"); `package Log::Log4perl::Level;` → ("package",
    "Log::Log4perl::Level"); None for any other line (an indented or anonymous sub)."""
    keyword, _, rest = line.partition(" ")
    if keyword not in ("sub", "package"):
        return None
    rest = rest.lstrip()
    end = 0
    while end < len(rest) and rest[end] in NAME_CHARS:
        end += 1
    return (keyword, rest[:end]) if end else None


class _CodeWriter:
    """The code between POD blocks, in sections at its definitions."""

    def __init__(self, writer: MarkdownWriter, lines: list[str], pod: PodWriter) -> None:
        self.writer = writer
        self.lines = lines
        self.pod = pod
        self.has_package = False
        self.ended = False  # past `__END__`/`__DATA__`: data, not code

    def write(self, start: int, end: int) -> None:
        first = start
        for number in range(start, end):
            line = self.lines[number]
            if self.ended:
                break
            if line.rstrip() in ENDS:
                self.ended = True
                continue
            found = definition(line)
            if found is None:
                continue
            top = _with_comments(self.lines, number, first)
            self._code(first, top)
            keyword, name = found
            if keyword == "package":
                self.has_package = True
                self.pod.under = 1  # the module's NAME, DESCRIPTION … under its name
            level = 2 if keyword == "sub" and self.has_package else 1
            self.writer.heading(level, f"{keyword} {name}")
            first = top
        self._code(first, end)

    def _code(self, start: int, end: int) -> None:
        if start < end:
            self.writer.code("\n".join(self.lines[start:end]), "perl", first_line=start + 1)


def _with_comments(lines: list[str], number: int, floor: int) -> int:
    """Line `number` (0-based), moved up over the `#` comment lines right above it (they
    document the sub), never above `floor`."""
    first = number
    while first > floor and lines[first - 1].lstrip().startswith("#"):
        first -= 1
    return first
