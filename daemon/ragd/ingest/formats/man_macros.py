"""The man(7) macro package (pure): `.TH .SH .TP .IP .B .BR …` → blocks.

The page title `.TH TAR 1` heads the page as `tar(1)` (`roff_reader.page_title`); `.SH`
sections and `.SS` subsections are headings under it. `.TP` takes its tag from the next
line (often a font macro, `.B \\-l, \\-\\-listening`) and `.IP` from its argument; both
open a tagged item whose body runs to the next paragraph macro. Font macros print their
words (alternating ones, `.BR ls (1)`, without spaces between); `.UR`/`.MT` links print
their text and address.
Pages made by pod2man define `.Vb`/`.Ve` (verbatim) and `.Sp` (a space) themselves; they are
read as what those definitions do.
"""

from __future__ import annotations

from ragd.ingest.formats.roff_reader import RoffReader
from ragd.ingest.formats.troff import render_all

MAX_DEPTH = 64  # `.RS` levels counted
SPACED_FONTS = frozenset({"B", "I", "SM", "SB", "R"})
ALTERNATING_FONTS = frozenset({"BR", "BI", "IB", "IR", "RB", "RI"})
PARAGRAPHS = frozenset({"PP", "LP", "P", "HP", "Sp", "YS", "ns"})
BULLETS = frozenset({"•", "*", "-", "o", "·", "+", "–", "—"})


class ManReader(RoffReader):
    def __init__(self, page: str = "") -> None:
        super().__init__(page)
        self.link: str | None = None  # the address of an open `.UR`/`.MT`

    def macro(self, name: str, args: list[str], number: int) -> None:
        blocks = self.blocks
        words = render_all(args, self.strings)
        if name == "TH":
            blocks.heading(1, self.title(words), number)
        elif name in ("SH", "SS"):
            level = 2 if name == "SH" else 3
            if words:
                blocks.heading(level, " ".join(words), number)
            else:
                blocks.end_code()
                blocks.flush()
                self.pending_heading = level
        elif name in SPACED_FONTS or name in ALTERNATING_FONTS:
            if words:
                blocks.text(("" if name in ALTERNATING_FONTS else " ").join(words), number)
        elif name in PARAGRAPHS:
            self.paragraph_break(number)
        elif name in ("TP", "TQ", "IP", "RS", "RE"):
            self.indented(name, words, number)
        else:
            self.other(name, args, words, number)

    def indented(self, name: str, words: list[str], number: int) -> None:
        blocks = self.blocks
        if name == "TP":
            blocks.item(None, number)
        elif name == "TQ":
            blocks.another_tag()
        elif name == "IP":
            tag = words[0].strip() if words else ""
            if tag:
                blocks.item("" if tag in BULLETS else tag, number)
            else:
                blocks.flush()
        else:  # RS / RE: an indented run ends the paragraph before it, or is its body
            if name != "RS" or not blocks.paragraph_as_tag():
                blocks.flush()
            self.depth = min(MAX_DEPTH, max(0, self.depth + (1 if name == "RS" else -1)))

    def other(self, name: str, args: list[str], words: list[str], number: int) -> None:
        blocks = self.blocks
        if name in ("UR", "MT"):
            self.link = words[0] if words else None
        elif name in ("UE", "ME"):
            if self.link:
                blocks.text(f"<{self.link}>" + "".join(words), number)
            self.link = None
        elif name == "OP" and words:
            blocks.text(f"[{' '.join(words)}]", number)
        elif name == "SY":
            blocks.flush()
            blocks.text(" ".join(words), number)
        elif name == "Vb":
            blocks.start_code()
        elif name == "Ve":
            blocks.end_code()
        else:
            super().macro(name, args, number)
