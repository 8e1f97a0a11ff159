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


def test_a_folder_rename_moves_the_paths_under_it_in_the_order_made() -> None:
    """Two folders swapped through a third name: `d1/x` went to `d2/x` (with d1 → tmp,
    then tmp → d2); `d2 → d1` was made before `tmp → d2`, so it is not followed back."""
    moves = Moves()
    for a, b in [("d1", "tmp"), ("d2", "d1"), ("tmp", "d2")]:
        moves.moved(("r", a), ("r", b))
    assert moves.final(("r", "d1/sub/x.md"), 10) == ("r", "d2/sub/x.md")
    assert moves.final(("r", "d2/y.md"), 10) == ("r", "d1/y.md")
    moves.moved(("r", "d2/sub/x.md"), ("r", "d2/sub/z.md"))  # then the file itself
    assert moves.final(("r", "d1/sub/x.md"), 10) == ("r", "d2/sub/z.md")
