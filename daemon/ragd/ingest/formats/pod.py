"""One block of POD (Perl's documentation, from a `=head1`/`=pod` line to `=cut`) into
Markdown, as perldoc shows it.

POD is paragraphs apart by blank lines, of three kinds:

- a command, `=name text`: `=head1`…`=head6` a heading of that level; `=item` a list
  entry, its text (unless a bare `*` or number) followed by " — " and the paragraph under
  it, as the man reader writes an option and its description; `=over`, `=back`, `=pod`,
  `=cut`, `=encoding` nothing. `=for comment …` and a `=begin X` … `=end X` region are
  left out unless X is `text` or starts with `:` (POD itself), as perldoc leaves out what
  is meant for another formatter (HTML, roff);
- verbatim, a paragraph whose first line is indented: code, at its own lines;
- ordinary: text, its formatting codes read by `pod_inline`.

Each paragraph is looked at once; its lines are joined once.
"""

from __future__ import annotations

from ragd.ingest.formats.markdown import MarkdownWriter, clean
from ragd.ingest.formats.pod_inline import shown

HEADINGS = {f"head{n}": n for n in range(1, 7)}
SILENT = frozenset(("over", "back", "pod", "cut", "encoding"))
BULLETS = frozenset(("*", "-", "o", "+"))


def is_command(line: str) -> bool:
    """A POD command line: `=` then a letter at the margin (`=head1`, `=cut`)."""
    return len(line) > 1 and line[0] == "=" and line[1].isalpha()


def command_of(line: str) -> tuple[str, str]:
    """`=head2 Log Levels` → ("head2", "Log Levels")."""
    name, _, text = line[1:].partition(" ")
    name, tab, rest = name.partition("\t")
    return name.strip(), (rest + " " + text if tab else text).strip()


class PodWriter:
    """Writes the POD blocks of one file to `writer`; `=item` text waits here for the
    paragraph it heads, and a `=begin` region's format for its `=end`."""

    def __init__(self, writer: MarkdownWriter) -> None:
        self.writer = writer
        self.item: tuple[str, int] | None = None  # an item's text and its line, unwritten
        self.region: str | None = None  # the format of a `=begin` region left out
        self.verbatim: tuple[int, int] | None = None  # indented paragraphs in a row, unwritten
        self.under = 0  # levels above `=head1`: 1 once the file declared its package

    def block(self, lines: list[str], start: int, end: int) -> None:
        """The POD of `lines[start:end]` (0-based; a block opens with a command)."""
        first = None
        for number in range(start, end + 1):
            if number < end and lines[number].strip():
                if first is None:
                    first = number
                continue
            if first is not None:
                self._paragraph(lines, first, number)
                first = None
        self._flush_verbatim(lines)
        self._flush_item()

    def _paragraph(self, lines: list[str], first: int, end: int) -> None:
        head = lines[first]
        if head[:1].isspace() and self.region is None:
            # Indented paragraphs in a row are one example (the blank lines in it kept):
            # a block each made a SYNOPSIS five code fences of two lines.
            start = first if self.verbatim is None else self.verbatim[0]
            self.verbatim = (start, end)
            return
        self._flush_verbatim(lines)
        if is_command(head):
            name, text = command_of(head)
            rest = " ".join(line.strip() for line in lines[first + 1 : end])
            self._command(name, f"{text} {rest}".strip(), first, end)
        elif self.region is None:
            text = clean(shown(" ".join(line.strip() for line in lines[first:end])))
            self._text(text, first, end)

    def _command(self, name: str, text: str, first: int, end: int) -> None:
        if name == "begin":
            self.region = None if _shown_format(text) else text.split(" ", 1)[0]
            return
        if name == "end":
            self.region = None
            return
        if self.region is not None or name in SILENT:
            return
        if name == "for":
            form, _, body = text.partition(" ")
            if _shown_format(form):
                self._text(clean(shown(body)), first, end)
            return
        self._flush_item()
        if name in HEADINGS:
            self.writer.at, self.writer.until = first + 1, end
            self.writer.heading(self.under + HEADINGS[name], shown(text))
        elif name == "item":
            label = clean(shown(text))
            if label in BULLETS or label.rstrip(".").isdigit():
                label = ""
            self.item = (label, first)
        else:  # a command this reader does not know: its words are still the author's
            self._text(clean(shown(text)), first, end)

    def _flush_verbatim(self, lines: list[str]) -> None:
        if self.verbatim is not None:
            self._flush_item()
            first, end = self.verbatim
            self.writer.code("\n".join(lines[first:end]), first_line=first + 1)
            self.verbatim = None

    def _text(self, text: str, first: int, end: int) -> None:
        if self.item is not None:
            label, first = self.item[0], min(first, self.item[1])
            text = f"{label} — {text}" if label else text
            self.item = None
        self.writer.at, self.writer.until = first + 1, end
        self.writer.paragraph(text)

    def _flush_item(self) -> None:
        """An item with nothing under it (`=item new()` then code): its text alone."""
        if self.item is not None and self.item[0]:
            self.writer.at, self.writer.until = self.item[1] + 1, None
            self.writer.paragraph(self.item[0])
        self.item = None


def _shown_format(name: str) -> bool:
    """`=for text`, `=begin :pod-formatted`: meant for every reader; others (`html`,
    `man`, `comment`) for one formatter, or none."""
    name = name.strip()
    return name == "text" or name.startswith(":")
