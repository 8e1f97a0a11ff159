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
it verbatim cannot support the answer, however close its neighbourhood. Support is
multiplied by the share of the question's identifiers the chunk (heading path, text or file
path) contains. "What does error KSF-E999 mean?" retrieves the error-code table, which
lists other codes: support 0.

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
    """Share of `wanted` identifiers that occur verbatim (whole, case-insensitive) in `texts`.

    "v3.2" does not match inside "v3.2.1", nor "--force" inside "--forced"; a sentence's
    closing full stop after an identifier is allowed, and so is a hyphen before it
    ("2023" in "safety-summary-2023.pdf", "E417" in "KSF-E417").
    """
    if not wanted:
        return 1.0
    haystack = "\n".join(texts).lower()
    present = sum(re.search(_verbatim(token), haystack) is not None for token in wanted)
    return present / len(wanted)


def _verbatim(token: str) -> str:
    """The pattern of `token` standing whole; a bare version may carry a "v" ("3.3" in
    "v3.3") but not sit inside a longer one ("3.3" in "3.3.1" or "13.3")."""
    if token[0].isdigit():
        return rf"(?<![\w.])v?{re.escape(token)}(?![\w-]|\.\d)"
    return rf"(?<!\w){re.escape(token)}(?![\w-]|\.\d)"
