"""Reading what a language model wrote: the --json contract, refusals, the confidence
line and the `[source:heading]` citation markers, checked against what was retrieved.

Shared by every answerer that calls a model (Claude, an OpenAI-compatible server): the
model is told the same rules (prompting.py), so its reply is read by the same rules.
A citation survives only if it names a document that was retrieved (and so shown to the
model); its score is always retrieval's, never the model's.
"""

from __future__ import annotations

import html
import itertools
import json
import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ragd.query.types import Citation, RetrievedChunk
from ragproto.protocol import REFUSAL_SENTENCE

# --- the --json reply contract ------------------------------------------------------


class JsonCitation(BaseModel):
    model_config = ConfigDict(strict=True)
    source: str
    heading: str


class JsonReply(BaseModel):
    # Strict types (no "true" → True coercion) but extra keys are ignored: an extra
    # field is harmless, a wrong type means the model misunderstood the contract.
    model_config = ConfigDict(strict=True, extra="ignore")
    answer: str
    citations: list[JsonCitation]
    confidence: Literal["high", "medium", "low"]
    refused: bool


class InvalidReply(ValueError):
    """The model's --json reply could not be parsed or validated (the reason is the text)."""


_FENCE = re.compile(r"^```[ \t]*(?:json)?[ \t]*\n(?P<body>.*?)\n?```$", re.DOTALL | re.IGNORECASE)


def parse_json_reply(text: str) -> JsonReply:
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InvalidReply(
            f"it is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    except RecursionError:  # `[[[[…` past the reader's depth: a broken or hostile endpoint
        raise InvalidReply("it is not JSON (nested too deeply)") from None
    try:
        return JsonReply.model_validate(value)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(part) for part in error['loc']) or 'the reply'}: {error['msg']}"
            for error in exc.errors()[:5]
        ]
        raise InvalidReply("it does not match the schema (" + "; ".join(problems) + ")") from None


# --- reading the model's text ---------------------------------------------------------


def _normalize(text: str) -> str:
    text = html.unescape(text)  # the model may copy an attribute as escaped (`Q&amp;A`)
    text = text.replace("’", "'").replace("‘", "'").replace("–", "-").replace("—", "-")
    text = re.sub(r"\s*>\s*", " > ", text)
    return " ".join(text.split()).casefold()


_REFUSAL_KEY = _normalize(REFUSAL_SENTENCE).rstrip(".")


def is_refusal(text: str) -> bool:
    return _normalize(text).startswith(_REFUSAL_KEY)


# `[anything without brackets]` not followed by `(` (that would be a Markdown link); a
# bracket or backslash inside is escaped by a backslash, as `ragproto.protocol.citation`
# writes one, or is one of a pair holding no bracket, backslash or line break (a heading's
# `[2.3.9]`, written plain). Each step is one character, one escape pair or one such pair,
# told apart by their first character: no two ways to read a text.
_MARKER = re.compile(r"\[((?:[^\[\]\n\\]|\\[^\n]|\[[^\[\]\n\\]{0,400}\]){1,400})\](?!\()")
_ESCAPED = re.compile(r"\\([\\\[\]])")


_NOT_A_CITATION = re.compile(r"[\d:.,\s]+")  # a time or a ratio: "[10:30]", "[3:2]"


def is_citation_marker(content: str) -> bool:
    """Does a bracket's content (as written, escapes and all) read as a citation?"""
    return ":" in content and not _NOT_A_CITATION.fullmatch(content)


def unescape_marker(content: str) -> str:
    return _ESCAPED.sub(r"\1", content)


def find_markers(text: str, resolver: CitationResolver | None = None) -> list[str]:
    """Contents of the `[source:heading]` markers in `text`, in order, without brackets
    (not code's indexing: `rows[start:end]` is no citation, nor warned about as one; one
    glued to a word that names a source, `free[notes.md:Costs]`, is: `resolver`'s
    `names_a_source`)."""
    return [
        unescape_marker(match.group(1))
        for match in _MARKER.finditer(text)
        if is_citation_marker(match.group(1))
        and not (
            match.start()
            and follows_code(text[match.start() - 1])
            and not (resolver is not None and resolver.names_a_source(match.group(1)))
        )
    ]


def follows_code(before: str) -> bool:
    """Could a "[" after this character be code's indexing (`arr[i:j]`, `f(x)[k:v]`)? A
    model cites after a space or punctuation; an answer about code holds such slices,
    which were relabelled as forged citations and warned about. Such a bracket is a
    citation still when it names a source (`CitationResolver.names_a_source`)."""
    return before != "" and (before.isalnum() or before in "_)")  # ("" is in any string)


# What a file name in a citation never holds, and a slice's bound often does
# (`d["a:b"]`, `x[len(a):]`, `m[i][j:k]`, `s[{a}:b]`).
_NOT_IN_A_NAME = frozenset("\"'`()[]{}\\")


def _suffix(source: str) -> str:
    """A source's suffix as `names_a_source` compares it ("md" for `notes/Pets.MD`)."""
    name = source.rsplit("/", 1)[-1]
    return name.rpartition(".")[2].casefold() if "." in name.strip(".") else ""


def _file_name(source: str) -> str:
    """A source's file name as `names_a_source` compares it (`buffer.c` for `src/Buffer.C`)."""
    return source.rsplit("/", 1)[-1].casefold()


def dropped_citation_warning(marker: str) -> str:
    return f"warning: dropped citation [{marker}] — not among the retrieved documents"


class CitationResolver:
    """Maps what the model cited back to retrieved chunks; the score is always retrieval's."""

    def __init__(
        self, chunks: Sequence[RetrievedChunk], earlier: Sequence[RetrievedChunk] = ()
    ) -> None:
        """`chunks` were retrieved for this question; `earlier` for past turns of a chat.

        A document retrieved now is scored by this retrieval; one seen only in an earlier
        turn keeps that turn's score. Several chunks under one heading: the best counts.
        """
        self._known: dict[tuple[str, str], Citation] = {}
        for group in (chunks, earlier):
            found: dict[tuple[str, str], Citation] = {}
            for chunk in group:
                key = (_normalize(chunk.source), _normalize(chunk.heading))
                best = found.get(key)
                if best is None or chunk.support > best.score:
                    found[key] = Citation(chunk.source, chunk.heading, chunk.support)
            for key, citation in found.items():
                self._known.setdefault(key, citation)
        # A split point past a known source's colons can find nothing: `_normalize`
        # adds colons (`&colon;`) but never removes one. Only that many are tried, so a
        # marker of many colons (plain pairs may hold them) costs a few lookups, not one
        # per colon, each normalizing the whole marker.
        self._splits = 1 + max((source.count(":") for source, _ in self._known), default=0)
        sources = [chunk.source for chunk in (*chunks, *earlier)]
        self._suffixes = {_suffix(source) for source in sources} - {""}
        self._file_names = {_file_name(source) for source in sources}

    def names_a_source(self, content: str) -> bool:
        """Does a bracket's content (as written) begin with a file name that looks like a
        retrieved source's, `name.md:…` where a retrieved source ends in `.md`? Then a
        bracket glued to a word (`free[notes.md:Costs]`) is a citation, to be checked and,
        when forged, relabelled: the suffix is what a forgery copies to pass for real, and
        what a slice's bound has not (`rows[start:end]`, `a[self.lo:self.hi]`). A
        one-letter suffix is also a one-letter attribute's (`data[hdr.c:hdr.h]` beside
        C sources): such a name counts only when a retrieved source has it (`buffer.c`).
        Linear: one split and one look at each character of the name."""
        name = content.split(":", 1)[0]
        if name != name.strip() or any(char in _NOT_IN_A_NAME for char in name):
            return False
        suffix = _suffix(name)
        if len(suffix) == 1:  # `.c`, `.h`, `.n`: also a one-letter attribute, `buf[self.h:]`
            return _file_name(name) in self._file_names  # so only a name retrieved
        return suffix in self._suffixes

    def lookup(self, source: str, heading: str) -> Citation | None:
        return self._known.get((_normalize(source), _normalize(heading)))

    def lookup_marker(self, marker: str) -> Citation | None:
        # Either side may contain a colon ("Setup: Linux"), so try each split point a
        # known source could end at (linear in the marker: see `_splits`).
        colons = (i for i, char in enumerate(marker) if char == ":")
        for position in itertools.islice(colons, self._splits):
            found = self.lookup(marker[:position], marker[position + 1 :])
            if found is not None:
                return found
        return None

    def resolve(
        self, markers: Sequence[str], pairs: Sequence[tuple[str, str]] = ()
    ) -> tuple[list[Citation], list[str]]:
        citations: list[Citation] = []
        warnings: list[str] = []

        def keep(found: Citation | None, shown: str) -> None:
            if found is None:
                warning = dropped_citation_warning(shown)
                if warning not in warnings:
                    warnings.append(warning)
            elif found not in citations:
                citations.append(found)

        for source, heading in pairs:
            keep(self.lookup(source, heading), f"{source}:{heading}")
        for marker in markers:
            found = self.lookup_marker(marker)
            if found is None and ";" in marker:  # "[a.md:X; b.md:Y]" cites two documents
                for part in marker.split(";"):
                    if ":" in part:
                        keep(self.lookup_marker(part.strip()), part.strip())
                continue
            keep(found, marker)
        return citations, warnings
