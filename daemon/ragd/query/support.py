"""The gate's support statistic: how well does a chunk support an answer to the question?

Measured on the eval questions (bench/questions.jsonl, docs/calibration.md), the plain
best cosine separates answerable from unanswerable questions badly in both directions:
exact-token look-ups ("What is form LP-3 for?") score low because MiniLM has no idea
what "LP-3" is, and off-topic questions sit only a little below them.

Support is therefore the mean of two views of the same chunk:

* **semantic** — the chunk's best window cosine to the question;
* **lexical coverage** — the IDF-weighted share of the question's content terms
  (stop words dropped, English-stemmed exactly like the BM25 index: question.py) that the
  chunk's heading path, text and path words (root, folders, file stem: `chunk_paths`)
  contain. A term that occurs nowhere in the corpus carries the highest weight, so "What
  is the capital of Mongolia?" is mostly *uncovered*, while a code the question and the
  chunk share counts fully even when the encoder shrugs.

An **identifier check** then scales that mean: a question that names an exact identifier —
a code or version (`KSF-E417`, `v3.2.1`, `R7-ESK`, a bare `2.8.1` or `3.3`), a `--flag`, a
`snake_case` name or a year — asks about that very thing, so a chunk that does not contain
it cannot support the answer, however close its neighbourhood. Support is multiplied by
the share of the question's identifiers the chunk (heading path, text or file path)
contains, spelled as the chunk spells them (`identifier_share`: "GPLv3" is in the file
`GPL-3`). "What does error KSF-E999 mean?" retrieves the error-code table, which lists
other codes: support 0.

The gate passes when the best candidate's support reaches the floor (learned for each
index, see calibration.py) and the other signals in gate.py agree.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from ragd.index.chunk_paths import path_words
from ragd.index.lexical import TantivyIndex, analyze
from ragd.index.manifest import ChunkRow
from ragd.query.question import is_constant, name_number

SEMANTIC_WEIGHT = 0.5


class SupportScorer:
    def __init__(self, lexical: TantivyIndex) -> None:
        self.lexical = lexical

    def coverage(self, weights: dict[str, float], texts: Iterable[str]) -> float:
        if not weights:
            return 0.0
        present: set[str] = set()
        for text in texts:
            present.update(_terms(text))
        covered = sum(w for term, w in weights.items() if term in present)
        return covered / sum(weights.values())

    @staticmethod
    def combine(cosine: float, coverage: float, identifiers: float = 1.0) -> float:
        mean = SEMANTIC_WEIGHT * max(0.0, cosine) + (1 - SEMANTIC_WEIGHT) * coverage
        return mean * identifiers


@functools.lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    """A chunk's analysed terms. The gate scores every candidate of every question (and
    the floor's 288 bank questions) and the same chunks come back again and again."""
    return frozenset(analyze(text))


def chunk_texts(row: ChunkRow) -> tuple[str, ...]:
    """Where coverage and identifiers look for a chunk's terms: heading path, text, file
    path (verbatim, for identifiers like "2023" in a file name) and its path words, so a
    question naming a project or folder is covered by the chunks under it."""
    return (row.heading, row.text, row.relpath, path_words(row.root, row.relpath))


def identifier_share(wanted: Sequence[str], texts: Iterable[str]) -> float:
    """Share of `wanted` identifiers that occur (whole, case-insensitive) in `texts`,
    spelled as the documents spell them.

    A user names a thing in their own spelling: "GPLv3" where the licence is the file
    "GPL-3" and says "version 3", "utf8" for "UTF-8", "snake_case" for "snake case", "3.3"
    for release "3.3.0". So separators (-, _, ., space) between a name's parts are
    optional, a "v" or "version" may stand between a name and its number, and trailing
    ".0"s are the same release. What stays exact is what tells two things apart: the
    letters and digits themselves, and the whole token — "v3.2" does not match inside
    "v3.2.1", nor "--force" inside "--forced", nor "KSF-E41" inside "KSF-E417". A
    sentence's closing full stop after an identifier is allowed, and so is a hyphen before
    it ("2023" in "safety-summary-2023.pdf", "E417" in "KSF-E417").
    """
    return held_share(identifiers_held(wanted, texts))


def identifiers_held(wanted: Sequence[str], texts: Iterable[str]) -> list[bool]:
    """For each of `wanted`, in order: does it occur in `texts` (identifier_share's
    matching)? One search per identifier, whatever share is taken of them after."""
    if not wanted:
        return []
    haystack = "\n".join(texts).lower()
    return [_pattern(token).search(haystack) is not None for token in wanted]


def held_share(held: Sequence[bool]) -> float:
    """The share of True in `held`; 1.0 when nothing was wanted (nothing is missing)."""
    return sum(held) / len(held) if held else 1.0


_SEPARATOR = "[-_. ]?"  # how a name's parts may be joined in the text
_VERSION_MARK = rf"{_SEPARATOR}(?:v|version)?{_SEPARATOR}"
_LEADING_V = re.compile(r"v(?=\d)")
# The parts of a name (a dotted run stays one part: "3.2.1") and what joins them.
_PIECES = re.compile(r"[^\W_]+(?:\.[^\W_]+)*|[-_ ]+")


@functools.lru_cache(maxsize=1024)
def _pattern(token: str) -> re.Pattern[str]:
    """The pattern of `token` standing whole in lower-cased text, in any of the spellings
    `identifier_share` accepts. Built from the token's own pieces: linear (optional
    single separators between literal runs)."""
    if token.startswith("--"):
        body, before, after = re.escape(token), r"(?<!\w)", r"(?![\w-])"
    elif is_constant(token):
        # A constant as the question wrote it (question.identifiers keeps its capitals):
        # the name itself, underscores and all, not prose made of its words.
        return re.compile(r"(?<!\w)" + re.escape(token.lower()) + r"(?!\w)")
    elif "_" in token and all(word.isalpha() for word in token.split("_")):
        # A snake_case name of plain words: the words in that order, also inside a longer
        # name ("snake_case" in "snake_case_email", "snake case" in prose).
        words = token.split("_")
        return re.compile(r"(?<![^\W_])" + _SEPARATOR.join(words) + r"(?![^\W_])")
    else:
        body = _spellings(token)
        before = r"(?<![\w.])" if token[0].isdigit() or _LEADING_V.match(token) else r"(?<!\w)"
        after = r"(?![\w-]|\.\d)"
    trailing = r"(?:\.0)*" if token[-1].isdigit() else ""
    return re.compile(before + body + trailing + after)


def _spellings(token: str) -> str:
    """`token` with optional separators where its pieces join and an optional version
    mark between a name and its number ("gplv3": gpl-3, gpl 3, gpl version 3)."""
    out = []
    for piece in _PIECES.findall(token):
        if not piece.strip("-_ "):
            out.append(_SEPARATOR)
            continue
        lead = _LEADING_V.match(piece) is not None and piece[1:].replace(".", "").isdigit()
        named = name_number(piece)
        if lead:  # "v3.2.1": also "3.2.1" and "version 3.2.1"
            out.append(r"(?:v|version )?" + re.escape(piece[1:]))
        elif named:
            out.append(re.escape(named[0]) + _VERSION_MARK + re.escape(named[1]))
        else:
            out.append(re.escape(piece))
    # A bare number keeps an optional leading "v" ("3.3" in "v3.3").
    body = "".join(out)
    return ("v?" + body) if token[0].isdigit() else body
