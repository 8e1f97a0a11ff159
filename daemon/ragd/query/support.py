"""The gate's support statistic: how well does a chunk support an answer to the question?

Measured on the eval questions (bench/questions.jsonl, README "Calibration"), the plain
best cosine separates answerable from unanswerable questions badly in both directions:
exact-token look-ups ("What is form LP-3 for?") score low because MiniLM has no idea
what "LP-3" is, and off-topic questions sit only a little below them.

Support is therefore the mean of two views of the same chunk:

* **semantic** — the chunk's best window cosine to the question;
* **lexical coverage** — the IDF-weighted share of the question's content terms
  (stop words dropped, English-stemmed exactly like the BM25 index) that the chunk's
  heading path and text contain. A term that occurs nowhere in the corpus carries the
  highest weight, so "What is the capital of Mongolia?" is mostly *uncovered*, while a
  code the question and the chunk share counts fully even when the encoder shrugs.

The gate passes when the best candidate's support reaches the floor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from ragd.index.lexical import TantivyIndex

SEMANTIC_WEIGHT = 0.5

# Question scaffolding that says nothing about the topic.
STOP_WORDS = frozenset(
    """a an the is are was were be been being do does did doing done i my me we our us you
    your it its of to in on at for from by with about into over under and or but if then than
    so as what which who whom whose when where why how much many can could should would will
    shall may might must there this that these those any some all each every no not have has
    had get got take make please tell know s""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class SupportScorer:
    def __init__(self, lexical: TantivyIndex) -> None:
        self.lexical = lexical

    def question_terms(self, question: str) -> dict[str, float]:
        """Analysed content terms of the question → IDF weight."""
        total = max(1, self.lexical.num_docs())
        weights: dict[str, float] = {}
        for word in _WORD.findall(question):
            if word.lower() in STOP_WORDS:
                continue
            for term in self.lexical.analyze(word):
                if term not in weights:
                    df = self.lexical.doc_freq(term)
                    weights[term] = math.log(1 + (total - df + 0.5) / (df + 0.5))
        return weights

    def coverage(self, weights: dict[str, float], texts: Iterable[str]) -> float:
        if not weights:
            return 0.0
        present = set()
        for text in texts:
            present.update(self.lexical.analyze(text))
        covered = sum(w for term, w in weights.items() if term in present)
        return covered / sum(weights.values())

    @staticmethod
    def combine(cosine: float, coverage: float) -> float:
        return SEMANTIC_WEIGHT * max(0.0, cosine) + (1 - SEMANTIC_WEIGHT) * coverage
