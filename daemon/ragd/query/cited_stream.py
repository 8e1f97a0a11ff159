"""A model's citation markers checked before the user sees them, even as the text streams.

The model is asked to cite `[source:heading]`; one that names nothing retrieved (a file
the model made up, or one a document told it to cite) used to reach the terminal exactly
as a real citation looks, its only trace a warning after the answer. Here every piece of
streamed text passes a `CitationGuard`, which holds back a possible marker (from `[` to
its `]` and the character after it, which tells a Markdown link) and lets it through
unchanged when it names a retrieved chunk, or relabelled in parentheses when it does not:
`(pets.md:Cats — not a retrieved source)`. A marker glued to a word is code's indexing
(`rows[start:end]`), let through as written, unless it names a file that looks like a
retrieved source (`free[notes.md:Costs]`: `CitationResolver.names_a_source`). What is
held is bounded by the marker's own limits (model_replies._MARKER: one line, at most
MAX_STEPS characters, escape pairs or plain pairs like a heading's `[2.3.9]`, each of at
most MAX_STEPS), so the text is delayed by at most one marker; what is held and turns out
no marker is read again after its "[" (where `_MARKER` would look next), so the scan
reads each character a bounded number of times.
"""

from __future__ import annotations

from ragd.query.model_replies import (
    CitationResolver,
    follows_code,
    is_citation_marker,
    unescape_marker,
)
from ragproto.protocol import citation

MAX_STEPS = 400  # what `_MARKER` allows between the brackets
NOT_RETRIEVED = " — not a retrieved source"


class CitationGuard:
    """Feed the model's text piece by piece; what comes back is safe to show."""

    def __init__(self, resolver: CitationResolver) -> None:
        self._resolver = resolver
        self._held: list[str] = []  # "[" and what followed, while it may be a marker
        self._steps = 0  # characters or escape pairs after the "["
        self._escaped = False  # the last held character was a backslash
        self._closed = False  # the "]" came: the next character decides (a link or not)
        self._inner: int | None = None  # characters of a plain pair held, while in one
        self._before = ""  # the character before the one being read
        self._glued = False  # the held "[" came right after a word (`free[`, `rows[`)
        self._names_a_source = resolver.names_a_source

    def feed(self, piece: str) -> str:
        out: list[str] = []
        for char in piece:
            self._take(char, out)
            self._before = char
        return "".join(out)

    def flush(self) -> str:
        """The end of the text: a closed marker is decided, anything else let through."""
        out: list[str] = []
        while self._held and not self._closed:  # no marker from its "[": read on after it
            self._give_up(out, "")
        if self._closed:
            out.append(self._decided())
        self._reset()
        return "".join(out)

    def _take(self, char: str, out: list[str]) -> None:
        if not self._held:
            if char == "[":  # (after a word: a citation only if it names a source)
                self._held.append(char)
                self._glued = follows_code(self._before)
            else:
                out.append(char)
            return
        if self._closed:  # a "(" after "]" makes it a Markdown link, not a marker
            if char == "(":  # but a marker may start inside its text, `[[x.md:Y]](url)`
                self._give_up(out, char)
                return
            out.append(self._decided())
            self._reset()
            self._take(char, out)
            return
        if self._inner is not None:  # inside a plain pair (a heading's `[2.3.9]`)
            if char in "[\\\n" or (self._inner >= MAX_STEPS and char != "]"):
                self._give_up(out, char)
            else:
                self._held.append(char)
                self._inner = None if char == "]" else self._inner + 1
            return
        if self._escaped:
            self._escaped = False
            if char == "\n":
                self._give_up(out, char)
            else:
                self._held.append(char)
            return
        full = self._steps >= MAX_STEPS and char != "]"  # (its "]" may follow the last step)
        if char == "\n" or (char == "]" and self._steps == 0) or full:
            self._give_up(out, char)
            return
        self._held.append(char)
        if char == "]":
            self._closed = True
            return
        self._steps += 1
        self._escaped = char == "\\"
        if char == "[":
            self._inner = 0

    def _give_up(self, out: list[str], char: str) -> None:
        """What is held cannot be a marker from its "[": that is let through, and what
        followed it is read again (a marker may start at a "[" within it, as `_MARKER`
        would find it), then `char`. Held at most MAX_STEPS steps, a plain pair's up to
        MAX_STEPS characters each; each read again at most twice (a plain pair may hold
        no "[")."""
        again = self._held[1:]
        out.append(self._held[0])
        self._reset()
        self._before = "["
        for held in [*again, char] if char else again:
            self._take(held, out)
            self._before = held

    def _decided(self) -> str:
        """A whole marker: as written when it names what was retrieved, else relabelled;
        `[a.md:X; b.md:Y]` part by part (each real part as its own citation). A relabel
        keeps the marker's escapes and escapes its other brackets, so `\\[real.md:Y\\]` or
        `[real.md:Y]` inside a forged one is no citation. A real one written with escapes
        (`… > \\[2.3.9\\] - …`) is shown as `rag search` shows its heading (`citation`)."""
        raw = "".join(self._held)[1:-1]  # between the brackets, as written
        if not is_citation_marker(raw) or (self._glued and not self._names_a_source(raw)):
            return f"[{raw}]"  # (a slice of code: `rows[start:end]`)
        if (whole := self._resolver.lookup_marker(unescape_marker(raw))) is not None:
            return citation(whole.source, whole.heading) if "\\" in raw else f"[{raw}]"
        shown = []
        for part in (part.strip() for part in raw.split(";")):
            found = self._resolver.lookup_marker(unescape_marker(part)) if ":" in part else None
            if found is not None:
                shown.append(citation(found.source, found.heading))
            elif part:
                shown.append(f"({escaped_brackets(part)}{NOT_RETRIEVED})")
        return " ".join(shown)

    def _reset(self) -> None:
        self._held, self._steps, self._escaped, self._closed = [], 0, False, False
        self._glued = False
        self._inner = None


def escaped_brackets(text: str) -> str:
    """`text` as written, with a backslash before each bracket it did not escape."""
    out: list[str] = []
    escaping = False
    for char in text:
        out.append("\\" + char if char in "[]" and not escaping else char)
        escaping = char == "\\" and not escaping
    return "".join(out)
