from ragd.query.fusion import fuse, rrf


def test_rrf_sums_reciprocal_ranks() -> None:
    scores = rrf([["a", "b"], ["b", "c"]])
    assert scores["b"] == 1 / 62 + 1 / 61
    assert scores["a"] == 1 / 61
    assert scores["c"] == 1 / 62


def test_fuse_orders_by_fused_score() -> None:
    fused = fuse([["a", "b", "c"], ["b", "a", "d"]], top_k=3)
    assert [d for d, _ in fused][:2] in (["a", "b"], ["b", "a"])


def test_each_retrievers_top_hit_is_anchored() -> None:
    dense = [f"d{i}" for i in range(10)]
    lexical = ["only-bm25", *dense[:9]]  # BM25's top hit appears nowhere else
    chosen = [d for d, _ in fuse([dense, lexical], top_k=3)]
    assert "only-bm25" in chosen and "d0" in chosen


def test_empty_lists() -> None:
    assert fuse([[], []], top_k=5) == []
    assert [d for d, _ in fuse([["x"], []], top_k=5)] == ["x"]


def test_keep_ties_returns_every_item_tied_at_the_cut() -> None:
    # Both retrievers' #1 score 1/61: with top_k=1 the tie must reach the caller, which
    # breaks it by support, instead of being decided here by id.
    assert [d for d, _ in fuse([["a"], ["b"]], top_k=1)] == ["a"]
    assert sorted(d for d, _ in fuse([["a"], ["b"]], top_k=1, keep_ties=True)) == ["a", "b"]
    untied = fuse([["a", "b"], ["a", "c"]], top_k=1, keep_ties=True)
    assert [d for d, _ in untied] == ["a"]
