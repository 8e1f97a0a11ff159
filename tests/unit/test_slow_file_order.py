"""Which set-aside file gets the next slice (`SlowFiles.advance`): the one with fewest
windows left, and the one set aside longest at least once every PASSED_OVER + 1 slices.
The slices are counted, not embedded: `_embed_slice` is replaced by a counter."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from ragd.ingest import slow_files
from ragd.ingest.slow_files import Deferred, SlowFiles


def staged(name: str, windows: int) -> Deferred:
    """A file planned and waiting for its `windows` to be embedded."""
    file: Any = SimpleNamespace(label=name, ticket=None, planning=None)
    return Deferred(file, staged=object(), missing=[f"{name}{i}" for i in range(windows)])  # type: ignore[arg-type]


def test_a_large_file_is_not_starved_by_small_ones_that_keep_coming(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new one-slice file set aside before each step (a folder whose files keep
    changing): the large file set aside first still gets its slices. With fewest windows
    left alone it got none."""
    slow: Any = SlowFiles(None, None, None)  # type: ignore[arg-type]
    slices: list[str] = []

    def embed_slice(item: Deferred) -> None:
        slices.append(item.file.label)
        item.embedded += slow_files.EMBED_SLICE
        if item.embedded >= len(item.missing):
            slow._items.remove(item)

    monkeypatch.setattr(slow, "_embed_slice", embed_slice)
    large = staged("large", 100 * slow_files.EMBED_SLICE)
    slow._items.append(large)
    steps = 10 * (slow_files.PASSED_OVER + 1)
    for number in range(steps):
        slow._items.append(staged(f"small{number}", 1))
        slow.advance()
    assert slices.count("large") == steps // (slow_files.PASSED_OVER + 1)
    # and small files still go first, PASSED_OVER of them before each of its slices
    passed = slow_files.PASSED_OVER
    assert slices[: passed + 1] == [*(f"small{n}" for n in range(passed)), "large"]
