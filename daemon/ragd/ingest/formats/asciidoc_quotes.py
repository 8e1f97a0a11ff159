"""AsciiDoc's escaped quotes: `\\*not bold*` is shown as "*not bold*".

The reader leaves emphasis marks as written (they cost no words), so `*bold*` stays
`*bold*`; a backslash before a mark tells Asciidoctor the pair is no emphasis, and the
page shows the pair without the backslash. As in Asciidoctor, the backslash goes only
where the marks would have made a pair: `\\*open` with no closing `*` keeps it, and so does
`C:\\Users`. One pass per mark, as Asciidoctor makes one per kind of quote; what one
escaped pair spans is not looked at again by that pass.

Each pass scans forward once and finds each closing mark once (`_Closers`, a `Partner`
passing over marks that close nothing), or looks no further than the next escaped mark
(`^`, `~`): linear on a line of 10 MB of `\\*`.
"""

from __future__ import annotations

from ragd.ingest.formats.asciidoc_inline import Partner

# Marks that pair around words: the closing one after a non-blank and before no word
# character (`*bold*`, `_italic_`, `` `code` ``, `#mark#`, `+passthrough+`).
CONSTRAINED = "*_`#+"
SPANNING = "^~"  # `^super^`, `~sub~`: the next mark closes, with no blank between


def unescaped_quotes(text: str) -> str:
    """`text` with the backslash taken from before each mark that opens a pair."""
    if "\\" not in text:
        return text
    for mark in CONSTRAINED + SPANNING:
        if "\\" + mark in text:
            text = _unescaped(text, mark)
    return text


def _unescaped(text: str, mark: str) -> str:
    out: list[str] = []
    done = 0
    closers = _Closers(text, mark)
    escape = "\\" + mark
    opening = text.find(escape)
    while opening >= 0:
        inside = opening + 2
        close = -1
        if inside < len(text) and not text[inside].isspace():
            if mark in SPANNING:
                # the next mark: never past the next escaped one, so each character is
                # looked at by one opening at most
                close = text.find(mark, inside + 1)
                if close >= 0 and any(c.isspace() for c in text[inside:close]):
                    close = -1
            else:
                close = closers.after(inside + 1)
        if close < 0:
            opening = text.find(escape, opening + 1)
            continue
        out += [text[done:opening], text[opening + 1 : close + 1]]
        done = close + 1
        opening = text.find(escape, done)
    out.append(text[done:])
    return "".join(out)


class _Closers(Partner):
    """The next mark at or after a position that can close a constrained pair: after a
    non-blank, before no word character. Asked with growing positions, each mark is looked
    at once in all."""

    def first(self, position: int) -> int:
        found = self.text.find(self.mark, position)
        while found >= 0 and not self._closes(found):
            found = self.text.find(self.mark, found + 1)
        return found

    def _closes(self, at: int) -> bool:
        following = self.text[at + 1 : at + 2]
        word = following.isalnum() or following == "_"
        return not self.text[at - 1].isspace() and not word
