"""Which failures to set a folder's watch `rag status` reports as refusals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from watchdog.observers.inotify_c import InotifyConstants

from ragd.ingest.watch_refusals import Refusals, _NotingInotifyFD


class _Group:
    """What `_NotingInotifyFD` reads of a watch group: the root it was scheduled for."""

    def __init__(self, path: bytes) -> None:
        self.path = path

    def on_event(self, event: object) -> None:
        pass


def test_a_folder_gone_before_its_watch_is_no_refusal(tmp_path: Path) -> None:
    """A folder moved or deleted between watchdog's listing and its watch: before, the
    root read "partly watched (No such file or directory)" and was re-watched and
    walked 30 s later, though nothing was refused (found by bench/staleness_fuzz.py)."""
    refusals = Refusals()
    inotify = _NotingInotifyFD(refusals)
    try:
        root = bytes(tmp_path)
        (tmp_path / "file").write_text("not a folder")
        group: Any = _Group(root)  # (duck-typed: watchdog's callback protocol)
        for gone in (b"moved-away", b"file/below"):
            with pytest.raises(OSError):
                inotify.add_callback(root + b"/" + gone, InotifyConstants.IN_CREATE, group, 1)
        assert refusals.of(str(tmp_path)) is None
    finally:
        inotify.close()
