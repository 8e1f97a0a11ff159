"""The keyless answerer's candidates: each retrieved chunk cut into its units, and the
stemmed words by which a unit and a question are compared.

A candidate is one unit (units.py: a paragraph, a list item, a table row with its header, a
code block with the line introducing it) with the retrieved chunk it comes from, which says
where it sits (file, heading path) and how well that chunk was supported. extractive.py
scores candidates; companions.py finds what a chosen one brings with it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePath

from ragd.index.lexical import analyze
from ragd.ingest.formats.code import LANGUAGES
from ragd.query.question import STOP_WORDS
from ragd.query.types import RetrievedChunk
from ragd.query.units import Unit, as_fenced_code, definition_term, leads_in, units_of

MAX_CANDIDATES = 200  # bounds the embedding work (chunks come best-first)
PROGRAM_SUFFIXES = frozenset(LANGUAGES)  # a program's source, not a document about it
# …all of it fenced by the code reader but Rust's, whose doc comments it reads as Markdown.
FENCED_SUFFIXES = PROGRAM_SUFFIXES - {".rs"}
STEM_CHARS = 5  # after stemming: "configur"/"configuration" → "confi", "secur"/"security"
WORD = re.compile(r"[^\W_]+")
# A hyphen joining two word characters ("sub-classing", "time-out"): one character on
# each side looked at, so linear.
_HYPHEN_INSIDE = re.compile(r"(?<=[^\W_])-(?=[^\W_])")


@dataclass(frozen=True)
class Candidate:
    """One unit of a retrieved chunk, with the chunk (its file, heading path and support)."""

    unit: Unit
    chunk: RetrievedChunk

    @property
    def haystack(self) -> str:
        # The file's path words count: a question naming a project, folder or file
        # ("Flask's config") prefers units from there.
        return self.cased.lower()

    @property
    def cased(self) -> str:
        """The haystack as written, for what must match in its own case (`-F`)."""
        return f"{self.chunk.source}\n{self.chunk.heading}\n{self.unit.search_text}"

    @property
    def place(self) -> str:
        """Where the unit sits: its file's path, its chunk's heading path, its context."""
        return f"{self.chunk.source}\n{self.chunk.heading}\n{self.unit.context}".lower()

    @property
    def leads_in(self) -> bool:
        """A sentence that introduces what follows ("The options are:", "… execute the
        following command.")."""
        return self.unit.kind in ("prose", "item") and leads_in(self.unit.text)


# Words that say how something is asked, not what about (on top of the gate's list).
FUNCTION_WORDS = STOP_WORDS | frozenset(
    "without another other others instead also just only like via using way ways".split()
)
# A definition's own line: in a code repository the function is what "how do I …?" calls.
_SIGNATURE = re.compile(r"^[^\S\n]*(?:async[^\S\n]+)?(?:def|class)[^\S\n]+\w+", re.MULTILINE)


@functools.lru_cache(maxsize=4096)
def stems(text: str) -> frozenset[str]:
    """The content words of `text` as the lexical index stems them ("dogs" → "dog",
    "ferries" and "ferry" → "ferri"), cut to a common prefix for derived forms. Cached: a
    unit's text is stemmed for the key terms' weights, for its coverage and for echoes,
    and the same chunks come back question after question."""
    words = WORD.findall(text)
    if "-" in text:
        # "sub-classing" is also "subclassing": a question asking why it need not
        # "subclass Process" matched every unit but the one under "No More Sub-classing
        # of Process" (simpy's design notes). Only added: "sub" and "classing" stay.
        words += WORD.findall(_HYPHEN_INSIDE.sub("", text))
    return frozenset(stemmed(w.lower() for w in words))


def stemmed(words: Iterable[str]) -> set[str]:
    kept = (w for w in words if w not in FUNCTION_WORDS)
    return {term[:STEM_CHARS] for term in analyze(" ".join(kept))}


def candidates_of(chunks: list[RetrievedChunk]) -> list[Candidate]:
    """The chunks' units in reading order, chunk by chunk best-first, each text once (the
    first chunk's copy), at most MAX_CANDIDATES; a program's source read as fenced code."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for chunk in chunks:
        text = as_fenced_code(chunk.text) if fences_its_code(chunk.source) else chunk.text
        for unit in units_of(text, chunk.heading):
            if unit.text in seen:  # overlapping chunks repeat units; keep the better-ranked
                continue
            seen.add(unit.text)
            out.append(Candidate(unit, chunk))
            if len(out) >= MAX_CANDIDATES:
                return out
    return out


def release_place(candidate: Candidate) -> str:
    """Where a release's heading would show, for a unit: its heading path and context."""
    return f"{candidate.chunk.heading}\n{candidate.unit.context}"


def fences_its_code(source: str) -> bool:
    return PurePath(source).suffix.lower() in FENCED_SUFFIXES


def of_a_program(candidate: Candidate) -> bool:
    """The unit comes from a program's source file, not from a document about it."""
    return PurePath(candidate.chunk.source).suffix.lower() in PROGRAM_SUFFIXES


def defines(candidate: Candidate) -> bool:
    """A program's own definition (`def between(self, after, before)`): in a code
    repository the function is what "how do I …?" calls. A document's example that
    defines a class shows how to extend, not what to call."""
    return of_a_program(candidate) and bool(_SIGNATURE.search(candidate.unit.text))


def term_of(candidate: Candidate) -> str:
    """The term of the definition the unit belongs to: carried from its item when it is a
    later sentence of one, else the one it opens with ("" for none)."""
    unit = candidate.unit
    return unit.term or definition_term(unit.text, unit.kind)
