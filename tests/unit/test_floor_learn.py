"""The floor learned from the off-subject bank: the support's level and the topicality's."""

from __future__ import annotations

import numpy as np

from ragd.query.calibration import DEFAULT_TOPICAL, MARGIN, Floor, configured, learn


def test_the_floor_keeps_the_banks_topicality_on_this_index() -> None:
    supports = [i / 1000 for i in range(288)]
    topicals = [0.1 + i / 2880 for i in range(288)]
    floor = learn(supports, 91, topicals=topicals)
    assert abs(floor.value - (float(np.quantile(supports, 0.95)) + MARGIN)) < 1e-4
    assert abs(floor.topical - float(np.quantile(topicals, 0.95))) < 1e-4
    assert floor.as_json()["topical"] == floor.topical  # kept in the manifest with the floor
    # measured without it (or a floor kept by an older version): the cautious default
    assert learn(supports, 91).topical == DEFAULT_TOPICAL
    assert Floor(0.4, "default", "not yet learned").topical == DEFAULT_TOPICAL
    # a floor the user sets still reads topicality against the bank's level on the index
    assert configured(0.5, floor.topical).topical == floor.topical
