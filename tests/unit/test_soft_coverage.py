"""query/soft_coverage.py on hand-made piece vectors: which pieces count, and the minimum."""

from __future__ import annotations

import numpy as np

from ragd.index.embedder import PieceVectors
from ragd.query.soft_coverage import content_rows, soft_coverage


def unit_rows(*rows: list[float]) -> np.ndarray:
    vectors = np.array(rows, dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_content_rows_keep_every_piece_of_a_content_word_and_drop_stop_words() -> None:
    pieces = ("can", "an", "am", "-", "300", "survive", "freez", "##ing", "?")
    # "can"/"an" are stop words, "-" and "?" are not words; "freez ##ing" is one word
    assert content_rows(pieces) == [2, 4, 5, 6, 7]


def test_a_question_of_stop_words_only_is_read_whole() -> None:
    assert content_rows(("what", "is", "it")) == [0, 1, 2]


def test_the_score_is_the_worst_covered_content_piece() -> None:
    question = PieceVectors(("ferry", "dogs"), unit_rows([1, 0, 0], [0, 1, 0]))
    # one unit says "ferry" exactly, the other something half-way to "dogs"
    ferry = PieceVectors(("ferry",), unit_rows([1, 0, 0]))
    pets = PieceVectors(("pets",), unit_rows([0, 1, 1]))
    assert soft_coverage(question, [ferry]) == 0.0  # nothing near "dogs"
    assert abs(soft_coverage(question, [ferry, pets]) - np.sqrt(0.5)) < 1e-6  # type: ignore[operator]


def test_no_units_or_no_pieces_give_no_score() -> None:
    question = PieceVectors(("ferry",), unit_rows([1, 0, 0]))
    empty = PieceVectors((), np.zeros((0, 3), np.float32))
    assert soft_coverage(question, []) is None
    assert soft_coverage(question, [empty]) is None
    assert soft_coverage(empty, [question]) is None
