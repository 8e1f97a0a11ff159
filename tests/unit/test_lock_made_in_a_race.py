"""Whether a lock file was made by the start that holds it, when another start makes or
removes it at the same moment.

carried36: `made` was read from `os.path.lexists` before the file was opened (and made
if missing), so a file made or removed by another start in between was counted wrong. A
start that then was refused (`release(remove=True)`) left the lock file it had made
behind, or removed one an earlier daemon had left. The other start's move is injected
at the one seam both versions share: just before the lock's `os.open`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ragd.app.instance import InstanceLock


@pytest.fixture
def before_open(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """`before_open(path, nth, step)`: run `step` just before the `nth` os.open of `path`."""
    real_open = os.open
    moves: dict[tuple[str, int], Callable[[], None]] = {}
    calls: dict[str, int] = {}

    def racing_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        name = os.fspath(path)  # type: ignore[call-overload]
        calls[name] = calls.get(name, 0) + 1
        step = moves.pop((name, calls[name]), None)
        if step is not None:
            step()
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", racing_open)

    def arrange(path: Path, nth: int, step: Callable[[], None]) -> None:
        moves[(str(path), nth)] = step

    yield arrange


def test_a_file_removed_then_made_again_by_this_start_is_its_own(
    tmp_path: Path, before_open: Callable[..., None]
) -> None:
    """The other start held the file it made and, refused, removed it just after this
    one saw it there: this start made the file it holds, and removes it when refused.
    Before: `made` was False and the refused start left `ragd.lock` behind."""
    path = tmp_path / "ragd.lock"
    other = InstanceLock(path)
    other.acquire({"pid": 1})
    assert other.made
    before_open(path, 2, lambda: other.release(remove=True))  # 1 was the other's open
    mine = InstanceLock(path)
    mine.acquire({"pid": 2})
    assert mine.made
    mine.release(remove=True)
    assert not os.path.lexists(path)


def test_a_file_made_by_another_start_just_before_is_not_this_ones(
    tmp_path: Path, before_open: Callable[..., None]
) -> None:
    """No file when this start looked; another start made it (and stopped, leaving it)
    just before this one opened it: this start did not make it, and keeps it when refused.
    Before: `made` was True and the refused start deleted the other's lock file."""
    path = tmp_path / "ragd.lock"

    def other_start_runs_and_stops() -> None:
        other = InstanceLock(path)
        other.acquire({"pid": 1})
        other.release()  # a clean stop keeps the file

    before_open(path, 1, other_start_runs_and_stops)
    mine = InstanceLock(path)
    mine.acquire({"pid": 2})
    assert not mine.made
    mine.release(remove=True)
    assert os.path.lexists(path)


def test_a_file_removed_between_finding_it_and_opening_it_is_made_afresh(
    tmp_path: Path, before_open: Callable[..., None]
) -> None:
    """A lock file left by an earlier run is found, then removed by a refused start that
    had made it again, before this start opens it: this start makes a new one, and it is
    its own to remove."""
    path = tmp_path / "ragd.lock"
    other = InstanceLock(path)
    other.acquire({"pid": 1})
    calls_before = 1  # the other's open
    # This start's first open finds the file; the other removes it before the next one.
    before_open(path, calls_before + 2, lambda: other.release(remove=True))
    mine = InstanceLock(path)
    try:
        mine.acquire({"pid": 2})
    finally:
        other.release()
    assert mine.made and mine.held
    mine.release(remove=True)
    assert not os.path.lexists(path)


def test_a_made_lock_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "ragd.lock"
    lock = InstanceLock(path)
    os.umask(old := os.umask(0))  # read the umask without changing it
    lock.acquire({"pid": 1})
    try:
        assert lock.made and (path.stat().st_mode & 0o777) == 0o600 & ~old
    finally:
        lock.release(remove=True)
