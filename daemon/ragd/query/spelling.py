"""A question's misspelt words read as the index's words (pure but for the lexicon's counts).

People type "fromat" and "langauge". The dense retriever shrugs (MiniLM's word pieces
still land near "format"), but the question's analysis did not: a term no chunk holds
carries the highest IDF, so one typo made most of the question's weight *unseen* and
*uncovered*, and the gate turned a right answer into "the documents may not answer this"
(a held-out run on Babel's docs: "How do I fromat a timedelta in the usre's langauge?" p
0.09, spelled right p 0.79).

A term the index does not hold is read as the index term one slip away that the most
chunks hold, when the slip is what fingers do and rarely turns one real word into another:
two neighbouring letters swapped (stems of SWAP_FROM letters or more: "fromat", "jounral",
"tiemout"), or one letter left out of a long stem (MISSING_FROM letters or more:
"certifcate", "verfication"), never the first letter. A changed or an extra letter is not
read: in the eval questions those turned real words into other real words ("protect" →
"project", "systemd" → "system", "UseRoaming" → "username"), and an in-domain question
about something the documents lack would then pass the gate as a question about a word
they hold. A word nothing is that close to stays unseen: the hard negatives' "XLIFF",
"Hijri" and "Transifex" and the off-topic "Mongolia" have no such neighbour. Candidates
are at most ≈ 27·n for a stem of n letters, for at most MAX_TERMS absent terms, counted in
one read of the index's term dictionary (`doc_freqs`): a bounded cost per question, whatever
it holds.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Iterable

SWAP_FROM = 4  # shortest stem read through a swap of two neighbouring letters
MISSING_FROM = 7  # shortest stem read as missing one letter
MAX_CHARS = 24  # longest: a longer "word" is a code or a hash, not a typo
MAX_TERMS = 16  # absent terms looked at per question: a pasted page costs one page's worth
_LETTERS = string.ascii_lowercase

DocFreqs = Callable[[Iterable[str]], tuple[int, dict[str, int]]]


def near_spellings(term: str) -> set[str]:
    """The spellings `term` (lower-case ASCII letters) may be a typo of, first letter kept."""
    if not (SWAP_FROM <= len(term) <= MAX_CHARS and term.isascii() and term.isalpha()):
        return set()
    splits = [(term[:i], term[i:]) for i in range(1, len(term) + 1)]
    near = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    if len(term) >= MISSING_FROM:
        near |= {a + c + b for a, b in splits for c in _LETTERS}
    return near - {term}


def respell(absent: Iterable[str], doc_freqs: DocFreqs) -> dict[str, tuple[str, int]]:
    """Each of the first MAX_TERMS `absent` terms that is one edit from an indexed term →
    that term and the chunks holding it (the one most chunks hold; ties by spelling, so the
    answer does not depend on set order)."""
    options = {term: near for term in list(absent)[:MAX_TERMS] if (near := near_spellings(term))}
    if not options:
        return {}
    _, freqs = doc_freqs({c for near in options.values() for c in near})
    out: dict[str, tuple[str, int]] = {}
    for term, near in options.items():
        known = [(freqs.get(c, 0), c) for c in near if freqs.get(c, 0) > 0]
        if known:
            df, meant = min(known, key=lambda fc: (-fc[0], fc[1]))
            out[term] = (meant, df)
    return out
