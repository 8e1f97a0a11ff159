"""The learned gate floor is logged when it moves, not each time it is measured again the
same (attack48b: the same `gate floor 0.395 (…)` INFO line after every save of a file
being edited, about every 2 s)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.support.floor_keeper import one_note_keeper


def test_the_same_floor_measured_again_is_not_logged_again(
    tmp_path: Path,
    embedder,  # type: ignore[no-untyped-def]
    caplog: pytest.LogCaptureFixture,
) -> None:
    index, keeper = one_note_keeper(tmp_path, embedder)
    try:
        caplog.set_level(logging.DEBUG, logger="ragd")
        first = keeper.measure_once()
        again = keeper.measure_once()
        assert first is not None and again is not None and again.value == first.value
        said = [r for r in caplog.records if r.getMessage().startswith("gate floor 0")]
        assert [r.levelno for r in said] == [logging.INFO, logging.DEBUG]
    finally:
        index.close()
