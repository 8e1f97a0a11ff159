"""The words for another process's lock on the manifest, said by `rag status` (its
`waiting` row) and by the daemon's systemd `STATUS=` while the lock lasts."""

from __future__ import annotations

import time
from typing import Any

from ragproto.sizes import counted


def clock(epoch_s: float, now: float | None = None) -> str:
    """A moment in local time: "10:02" today, "2026-12-03 10:02" another day."""
    moment = time.localtime(epoch_s)
    today = time.localtime(time.time() if now is None else now)
    same_day = moment[:3] == today[:3]
    return time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", moment)


def manifest_wait(locked: dict[str, Any]) -> str:
    """ "for another process's lock on manifest.sqlite3 in the data dir (since 10:02; …):
    1 change waits, written once it is let go", from the daemon's `manifest_locked`."""
    changes = counted(locked.get("changes", 0), "change")
    wait = "waits" if locked.get("changes") == 1 else "wait"
    return (
        f"for another process's lock on {locked['file']} in {locked['where']} "
        f"(since {clock(locked['since'])}; an sqlite3 shell or a backup?): {changes} {wait}, "
        "written once it is let go"
    )
