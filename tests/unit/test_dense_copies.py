"""A dense ranking takes a few of one window text's copies, BM25's first (retrieval.py's
COPIES_RANKED): 20 copies of a licence header took every candidate place before."""

from __future__ import annotations

from ragd.index.shared_vectors import text_groups
from ragd.query.retrieval import COPIES_RANKED, DenseHits


def test_a_texts_copies_past_the_cap_leave_room_for_the_next_texts() -> None:
    copies = [f"copy{i}" for i in range(10)]
    hits = DenseHits([("licence", copies), ("fog", ["fog"]), ("tide", ["tide"])], {})
    assert hits.ranking(20) == [*copies[:COPIES_RANKED], "fog", "tide"]
    assert hits.ranking(2) == copies[:2]


def test_the_copies_bm25_found_come_first_in_its_order() -> None:
    copies = [f"copy{i}" for i in range(10)]
    hits = DenseHits([("licence", copies), ("fog", ["fog"])], {})
    found = {c: ("licence",) for c in ("copy7", "copy8", "copy9", "copy6")}
    assert hits.ranking(20, found) == ["copy7", "copy8", "copy9", "fog"]
    assert hits.ranking(20, {"copy9": ("licence",)}) == ["copy9", "copy0", "copy1", "fog"]


def test_a_copy_bm25_found_ranks_with_its_text_though_not_read_as_a_holder() -> None:
    """A search reads at most `candidates` holders of a text (a licence in 10,000 files);
    the copy in the folder a question names is ranked with the text all the same."""
    hits = DenseHits([("licence", ["copy0", "copy1", "copy2"]), ("fog", ["fog"])], {})
    found = {"copy5000": ("intro", "licence"), "tide": ("tide",)}
    assert hits.ranking(20, found) == ["copy5000", "copy0", "copy1", "fog"]
    assert COPIES_RANKED == 3


def test_a_chunk_is_ranked_once_at_its_nearest_text() -> None:
    hits = DenseHits([("a", ["x", "y"]), ("b", ["z"])], {})
    assert hits.ranking(20, {"x": ("a", "b"), "z": ("b",)}) == ["x", "y", "z"]


def test_a_holder_a_nearer_text_left_out_is_ranked_at_its_own_text() -> None:
    """Three chunks hold a passage 12 copies share and one of their own: the shared text
    takes COPIES_RANKED of its holders, and the three are ranked at their own texts
    (they were marked ranked by the shared text and never ranked at all, attack50)."""
    shared = [f"copy{i:02}" for i in range(12)] + ["x-alpha", "x-beta", "x-gamma"]
    holders = {"P1": [(c, 0, "/r", f"{c}.md") for c in shared]}
    holders |= {f"radar-{c}": [(c, 1, "/r", f"{c}.md")] for c in shared[12:]}
    hits = [("P1", 0.9), ("radar-x-alpha", 0.8), ("radar-x-beta", 0.7), ("radar-x-gamma", 0.6)]
    ranking = DenseHits(text_groups(hits, holders), {}).ranking(20)
    assert ranking == [*shared[:COPIES_RANKED], "x-alpha", "x-beta", "x-gamma"]
