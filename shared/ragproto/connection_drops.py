"""The words for the daemon dropping every connection near its open-file limit
(ragd's serve/connection_guard.py): `rag status`'s row, systemd's STATUS=, and the one
line a client whose request was lost in the drop prints instead of "ragd stopped"."""

from __future__ import annotations

from typing import Any

from ragproto.lock_wait import clock
from ragproto.sizes import counted

WHY = "too many connections were open at once for its open-file limit"


def drops_said(dropped: dict[str, Any], now: float | None = None) -> str:
    """ "every connection, 2 times since start (192 connections; the last at 10:02): too
    many …", from the daemon's `connections_dropped`."""
    times = "once" if dropped["times"] == 1 else f"{dropped['times']:,} times"
    return (
        f"every connection, {times} since start ({counted(dropped['connections'], 'connection')}; "
        f"the last at {clock(dropped['last'], now)}): {WHY} ({dropped['limit']:,}); "
        "raise it (LimitNOFILE=, ulimit -n) to serve that many clients at once"
    )


def dropped_yours(dropped: dict[str, Any]) -> str:
    """What a client tells its user when the drop took its request: the daemon is
    running, and asking again is the remedy."""
    return (
        f"ragd dropped every connection, this one with them, at {clock(dropped['last'])}: "
        f"{WHY} ({dropped['limit']:,}); it is still running: try again"
    )
