"""bench/retrieval_variants.py replays the page offline from kept rankings; its verdicts on
fusion variants mean something only if its replay of the shipped settings is the page
`query/fusion.py` and `query/page.py` build. Random rankings (release-note headings and
BM25-only top hits, and the anchored section of a release the question names, included) are
put through both and must give the same five chunks."""

from __future__ import annotations

import random

from bench.retrieval_variants import Kept, Variant, facts_held, half_facts, page_of

from ragd.query import releases
from ragd.query.fusion import fuse
from ragd.query.page import choose_page
from ragd.query.question import identifiers
from ragd.query.types import RetrievedChunk

HEADINGS = ("Guide > Install", "Guide > Usage", "Changelog > 3.0.0 (2019-08-18)", "FAQ")


def random_kept(rng: random.Random, question: str) -> Kept:
    ids = [f"c{i}" for i in range(60)]
    dense_ids = rng.sample(ids, 30)
    lexical_ids = rng.sample(ids, 25)
    kept = Kept(
        question,
        {rng.choice(ids)},
        # (chunk, rank of its best window: several windows per chunk, cosine)
        [(c, 2 * i + rng.randint(0, 1), 0.9 - i / 100) for i, c in enumerate(dense_ids)],
        [(c, 30.0 - i) for i, c in enumerate(lexical_ids)],
        [],
    )
    for c in sorted(set(dense_ids) | set(lexical_ids)):  # not set order: PYTHONHASHSEED varies
        kept.chunks[c] = {
            "source": rng.choice((f"{c[:2]}.md", f"tests/test_{c[:2]}.py")),
            "heading": rng.choice(HEADINGS),
            "cosine": rng.random(),
            "coverage": rng.random(),
            "identifiers": 1.0,
            "support": round(rng.random(), 4),
        }
    return kept


def shipped_page(kept: Kept) -> list[str]:
    """The page as the retriever builds it, from the same rankings."""
    dense = [c for c, window, _ in kept.dense if window < 60][:20]
    lexical = [c for c, _ in kept.lexical][:20]
    fused = fuse([dense, lexical], len(set(dense) | set(lexical)), keep_ties=True)
    candidates = [
        RetrievedChunk(
            chunk_id=c,
            source=kept.chunks[c]["source"],
            heading=kept.chunks[c]["heading"],
            text="",
            support=kept.chunks[c]["support"],
            fused=score,
            vector_rank=None,
            bm25_rank=None,
        )
        for c, score in fused
    ]
    candidates.sort(key=lambda c: (-c.fused, -c.support))
    anchors = {ranking[0] for ranking in (dense, lexical) if ranking}
    asked = releases.asked(identifiers(kept.question))
    anchors |= releases.section_of(asked, [(c.chunk_id, c.heading) for c in candidates])
    return [c.chunk_id for c in choose_page(kept.question, candidates, 5, anchors)]


def test_the_replay_of_the_shipped_settings_is_the_retrievers_page() -> None:
    rng = random.Random(19)
    for n in range(200):
        # Some questions ask about releases or tests, so those are not weighed down.
        question = ("how do I install it?", "what changed in 3.0?", "which test covers it?")[n % 3]
        kept = random_kept(rng, question)
        assert page_of(kept, Variant()) == shipped_page(kept)


def test_a_variant_changes_the_page() -> None:
    """The replay is not blind to its settings: heavier support reorders some pages."""
    rng = random.Random(7)
    kept = [random_kept(rng, "how do I install it?") for _ in range(50)]
    changed = sum(page_of(k, Variant()) != page_of(k, Variant(support_weight=1.0)) for k in kept)
    assert changed > 0


def test_half_the_facts_count_across_the_pages_chunks() -> None:
    """A page holds half the facts when its chunks do between them, each chunk's facts read
    as the eval reads an answer's (case and runs of white space aside)."""
    rng = random.Random(3)
    kept = random_kept(rng, "how do I install it?")
    facts = ("pip install  Foo", "--user", "a virtual environment", "Python 3.9")
    kept.facts = len(facts)
    page = page_of(kept, Variant())
    for c in kept.chunks:
        kept.chunks[c]["facts"] = frozenset()
    kept.chunks[page[0]]["facts"] = facts_held("Run PIP INSTALL foo\nas root", facts)
    assert kept.chunks[page[0]]["facts"] == {0}
    assert half_facts(kept, page) is False
    kept.chunks[page[3]]["facts"] = facts_held("Needs python 3.9 or later.", facts)
    assert half_facts(kept, page) is True
    off_page = next(c for c in kept.chunks if c not in page)
    kept.chunks[page[3]]["facts"] = frozenset()
    kept.chunks[off_page]["facts"] = frozenset({1, 2, 3})
    assert half_facts(kept, page) is False


def test_bm25_under_other_boosts_is_the_list_a_variant_fuses() -> None:
    """`lexical_form` fuses the BM25 ranking kept under those boosts, anchor included."""
    rng = random.Random(5)
    kept = random_kept(rng, "how do I install it?")
    reversed_lexical = list(reversed(kept.lexical))
    kept.lexical_alt["no path"] = reversed_lexical
    page = page_of(kept, Variant(lexical_form="no path"))
    assert reversed_lexical[0][0] in page
    assert page == page_of(
        Kept(kept.question, kept.expected, kept.dense, reversed_lexical, [], kept.chunks),
        Variant(),
    )
