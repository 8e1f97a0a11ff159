"""A long unit offered by its sentences for what is left of the quote budget (fitting.py)."""

from __future__ import annotations

from ragd.query.fitting import FITTED_FROM, sentences_of, splits
from ragd.query.units import Unit

EXPIRE = Unit(
    "--expire=<time>: Prune entries older than the specified time. If this option is not "
    "specified, the expiration time is taken from the configuration setting "
    "gc.reflogExpire, which in turn defaults to 90 days. --expire=all prunes entries "
    "regardless of their age; --expire=never turns off pruning of reachable entries.",
    "item",
    "Options for expire",
)


def test_a_long_paragraph_or_item_splits_and_code_or_a_short_one_does_not() -> None:
    assert splits(EXPIRE)
    assert not splits(Unit("Prune entries older than the specified time.", "prose"))
    assert not splits(Unit("x = 1\n" * (FITTED_FROM // 6 + 1), "code"))
    # a sentence of a paragraph over 800 characters is a unit already
    assert not splits(Unit(EXPIRE.text, "prose", sentence_of=3))


def test_each_sentence_keeps_the_context_and_a_later_one_carries_the_term() -> None:
    """git's "How long does git keep old reflog entries …?": the sentence saying "defaults
    to 90 days" is quoted as `--expire=<time>: … If this option …`, not alone."""
    parts = sentences_of(EXPIRE)
    # (a sentence ends before a capital: "--expire=all …" stays with the one before it)
    assert [p.text.split()[0] for p in parts] == ["--expire=<time>:", "If"]
    assert all(p.context == "Options for expire" and p.kind == "item" for p in parts)
    assert parts[0].term == ""  # the first sentence says the term itself
    assert parts[1].term == "--expire=<time>:"
    assert "90 days" in parts[1].text


def test_a_unit_of_one_sentence_offers_nothing() -> None:
    one = Unit("A single sentence that runs on " + "and on " * 40 + "to its end.", "prose")
    assert splits(one) and sentences_of(one) == []
