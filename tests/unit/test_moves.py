"""The renames the watcher remembers, followed to where a vanished name's content went."""

from __future__ import annotations

import time

from ragd.ingest.moves import Moves


def test_a_chain_of_renames_ends_at_its_last_name() -> None:
    moves = Moves()
    for a, b in [("a", "b"), ("b", "c"), ("c", "d")]:
        moves.moved(("r", a), ("r", b))
    assert moves.final(("r", "a"), 10) == ("r", "d")
    assert moves.final(("r", "c"), 10) == ("r", "d")
    assert moves.final(("r", "d"), 10) is None  # not renamed


def test_a_cycle_stops_and_old_renames_are_not_followed() -> None:
    moves = Moves()
    moves.moved(("r", "a"), ("r", "b"))
    moves.moved(("r", "b"), ("r", "a"))  # renamed back: the chain never loops
    assert moves.final(("r", "a"), 10) == ("r", "b")
    time.sleep(0.02)  # (a hint older than the window is ignored)
    assert moves.final(("r", "a"), 0.01) is None
