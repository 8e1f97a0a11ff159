"""The blocks a man page is made of, collected as its macros arrive (both packages).

Text lines of a page are filled: troff joins them into paragraphs, so a paragraph here
is its lines joined, placed at the source lines it spans (`MarkdownWriter.at`/`until`).
A tagged paragraph (`.TP`, `.IP tag`, mdoc's `.It` in a tag list) is written as one list
item, `- -l, --listening — Display only listening sockets.`, so an option and what it
does are one unit for the keyless answerer and one piece of one chunk for retrieval.
The tag is plain text, not `**bold**`: the keyless answer quotes units as they are, and
bold tags answered the held-out man questions no better (docs/formats.md). DocBook's pages
write an option as a short paragraph with its description indented under it
(`paragraph_as_tag`); that is one item too.
No-fill text (`.nf`, `.EX`, `.Bd -literal`) is a code block, line for line.
"""

from __future__ import annotations

from ragd.ingest.formats.markdown import MarkdownWriter, clean

MAX_TAG_CHARS = 100  # a longer paragraph before an indented block is prose, not an option
# One piece of text (a line, a word run, a tag) as the fragments `\c` joins onto it,
# joined once when its block is written: adding each fragment to a string copied the
# whole piece, n² for a page of n lines ending in `\c` (400,000 of them: 17 s).
Piece = list[str]


def _joined(pieces: list[Piece]) -> list[str]:
    return ["".join(piece) for piece in pieces]


class Blocks:
    """Paragraph, item and code buffers in front of a `MarkdownWriter`."""

    def __init__(self) -> None:
        self.writer = MarkdownWriter()
        self.words: list[Piece] = []  # the current paragraph's (or item body's) text
        self.tag: list[Piece] | None = None  # the current item's tag(s); None: no item open
        self.tag_pending = False  # the next text is (another) tag, not body
        self.tag_open = False  # all text is tag until closed (mdoc's `.It … Xo` to `.Xc`)
        self.tag_from_paragraph = False  # the tag was a paragraph (`paragraph_as_tag`)
        self.code: list[Piece] | None = None  # no-fill lines; None: filling
        self.joined = False  # the last text ended in `\c`: the next one follows unspaced
        self.first: int | None = None  # the source lines the open block spans
        self.last: int | None = None

    def _span(self, line: int) -> None:
        if self.first is None:
            self.first = line
        self.last = line

    def text(self, text: str, line: int, joins_next: bool = False, until: int = 0) -> None:
        """One line of the page's text (escapes already resolved), read from `line` (to
        `until`, for a table row of several lines)."""
        self._span(line)
        if until:
            self._span(until)
        if self.code is not None:
            if self.joined and self.code:
                self.code[-1].append(text)
            else:
                self.code.append([text])
        elif self.tag_open and self.tag:
            self.tag[-1].append(text if self.joined else " " + text)
        elif self.tag_pending and self.tag is not None:
            self._add(self.tag, text)
            self.tag_pending = joins_next
        else:
            self._add(self.words, text)
        self.joined = joins_next

    def _add(self, pieces: list[Piece], text: str) -> None:
        if self.joined and pieces:
            pieces[-1].append(text)
        elif text.strip() or text == "":
            pieces.append([text])

    def line_break(self) -> None:
        """`.br`: the paragraph goes on from a new line."""
        if self.code is None and self.words and not self.tag_pending:
            self.words.append(["\n"])

    def flush(self) -> None:
        """End the open paragraph or item (not a code block: `.nf` lasts past `.PP`)."""
        writer = self.writer
        writer.at, writer.until = self.first, self.last
        body = " ".join(_joined(self.words)).replace(" \n ", "\n").strip()
        if self.tag is not None:
            tag = ", ".join(t for t in (clean(t) for t in _joined(self.tag)) if t)
            item = f"{tag} — {body}" if tag and body else tag or body
            writer.line(f"- {item}" if item.strip() else "")
        else:
            writer.end_lines()
            if body:
                writer.paragraph("\n".join(clean(part) for part in body.split("\n")))
        self.words, self.tag, self.tag_pending, self.joined = [], None, False, False
        self.tag_open = self.tag_from_paragraph = False
        if self.code is None:
            self.first = self.last = None

    def heading(self, level: int, text: str, line: int) -> None:
        self.end_code()
        self.flush()
        self.writer.at = self.writer.until = line
        self.writer.heading(level, text)

    def item(self, tag: str | None, line: int) -> None:
        """Open a tagged paragraph; `tag` None: the tag is the next line of text."""
        self.flush()
        self._span(line)
        self.tag = [] if tag is None else [[tag]]
        self.tag_pending = tag is None

    def paragraph_as_tag(self) -> bool:
        """DocBook's pages (systemd's, git's) write an option as a paragraph of its own,
        `\\fB\\-f\\fR, \\fB\\-\\-follow\\fR`, and its description indented under it (`.RS`):
        a short open paragraph that does not end as a sentence or a lead-in does becomes
        the tag of an item whose body is what follows. True when it did."""
        text = " ".join(_joined(self.words)).strip()
        if self.tag is not None or self.code is not None or "\n" in text:
            return False
        if not text or len(text) > MAX_TAG_CHARS or text[-1] in ".:;,!?":
            return False
        self.tag, self.words = [[text]], []
        self.tag_from_paragraph = True
        return True

    def another_tag(self) -> None:
        """`.TQ`: one more tag for the same body."""
        if self.tag is not None:
            self.tag_pending = True

    def start_code(self) -> None:
        if self.code is None:
            if self.tag_from_paragraph and not self.words:  # "Produces output like" + code
                self.words, self.tag = self.tag or [], None
            self.flush()
            self.code = []

    def end_code(self) -> None:
        if self.code is None:
            return
        lines, self.code = self.code, None
        self.writer.at, self.writer.until = self.first, self.last
        self.writer.end_lines()
        self.writer.code("\n".join(_joined(lines)))
        self.first = self.last = None
        self.joined = False

    def finish(self) -> MarkdownWriter:
        self.end_code()
        self.flush()
        return self.writer
