"""A paragraph or item too long for what is left of the quote budget, offered by its sentences.

The quote budget (extractive.QUOTE_BUDGET) is spent best unit first, and a unit of 300–800
characters ranked second or third often no longer fits once the first two are in: git's
"How long does git keep old reflog entries …?" quoted `--expire-unreachable` (445
characters) and then `--rewrite` and `--all`, which fit, while `--expire`, whose "…
defaults to 90 days." is the answer, did not (keyless45). A careful reader quoting the
same passages would quote that one sentence. So once the units are chosen whole, each
such unit left out stands in by each of its sentences (units.sentences) for what is left
of the budget and of the five quotes: one of them is taken only where the whole unit does
not fit (extractive.choose), in the whole unit's place. Nothing chosen whole gives way:
letting the sentences compete from the second pick on displaced whole units that held the
answer (replay: pooled half-facts 721 -> 713 of 891, keyless45), and git's answer above
stays a miss: 90 characters are left after `--rewrite` and `--all`.

A sentence after the first of a definition ("--expire=<time> Prune entries … If this
option is not specified, …") carries the definition's term, as a long item's sentences
do (units.definition_term): quoted alone it would not say what it is about.
"""

from __future__ import annotations

from dataclasses import replace

from ragd.query.units import Unit, definition_term, long_enough, names_term, sentences

# Shorter units are quoted whole or not at all: their sentences save little of the budget.
FITTED_FROM = 200
# How many long units, best first, offer their sentences: each offer is embedded per ask.
FITTED_UNITS = 5
_SPLIT_KINDS = ("prose", "item")


def splits(unit: Unit) -> bool:
    """A whole paragraph or item long enough to be offered by its sentences (a sentence
    of a long paragraph is one already; code is cut into runs, not sentences)."""
    return unit.kind in _SPLIT_KINDS and unit.sentence_of < 0 and len(unit.text) >= FITTED_FROM


def sentences_of(unit: Unit) -> list[Unit]:
    """Each sentence of `unit` that would be a unit of its own, with the unit's context;
    none when the unit is one sentence. A later sentence of a definition carries its term
    unless it names it."""
    parts = sentences(unit.text)
    if len(parts) < 2:
        return []
    term = definition_term(unit.text, unit.kind)
    out = []
    for number, part in enumerate(parts):
        if not long_enough(part):
            continue
        carried = term if number and term and not names_term(part, term) else ""
        out.append(replace(unit, text=part, term=carried))
    return out
