"""The look for another user's link on a socket's or data dir's path (`ragproto.paths.
others_link`, read by `rag` before every connect and by `ragd serve`) follows links as the
kernel does: each link once, at most SYMLINK_HOPS of them in all (review76)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragproto.paths import SYMLINK_HOPS, others_link
from tests.support.growth import GROWTH_LIMIT, growth_ratio
from tests.support.users import PLANTER_UID, planted_link


def _through_loops(folder: Path, n: int) -> Path:
    """`folder/l/l/…/l/ragd.sock`, n links of ours, each `l` -> `.`: one folder."""
    loop = folder / "l"
    if not loop.is_symlink():
        loop.symlink_to(".")
    return folder.joinpath(*["l"] * n, "ragd.sock")


def test_links_of_our_own_cost_time_linear_in_their_number(tmp_path: Path) -> None:
    """review76: each link of ours was followed by walking its target's path afresh from
    the root, and a relative target holds the links above it, so each was followed again:
    a path through n of them cost 2^n looks (14 links 0.2 s, 20 links 13 s of CPU), and
    `rag` hung before it connected on a socket path a user may well own. Linear now."""
    small, large = _through_loops(tmp_path, 3), _through_loops(tmp_path, 12)
    assert others_link(small) is None and others_link(large) is None
    ratio = growth_ratio(others_link, small, large, loops=100)
    assert ratio < GROWTH_LIMIT, ratio


def test_another_users_link_past_many_of_ours_is_still_found(tmp_path: Path) -> None:
    """However many links of ours come first, one of another user's past them is found;
    a path needing more links than the kernel follows reaches nothing (ELOOP), so it
    names no link of theirs either."""
    if os.geteuid() != 0:
        pytest.skip("giving a link to another uid needs root")
    ours, link = planted_link(tmp_path, "rund")
    through = _through_loops(link.parent, SYMLINK_HOPS - 1).parent / "rund" / "s.sock"
    assert others_link(through) == (link, PLANTER_UID)
    assert os.stat(through.parent).st_ino == ours.stat().st_ino  # the kernel gets there
    too_deep = _through_loops(link.parent, SYMLINK_HOPS + 1).parent / "rund" / "s.sock"
    with pytest.raises(OSError):
        too_deep.parent.stat()  # ELOOP: the kernel reaches nothing there
    assert others_link(too_deep) is None
    mine = tmp_path / "mine"
    mine.symlink_to(ours)  # a link of ours into a folder of ours
    assert others_link(mine / "run" / "s.sock") is None
