"""What the connection guard dropped (serve/connection_guard.py), kept for `rag status`,
`ping` and systemd's STATUS=: the log alone said it, and a client whose request was lost
in the drop was told the daemon had stopped. Written and read on the server loop only."""

from __future__ import annotations

import time
from typing import Any

# How long after the last drop it is still said: long enough for whoever runs `rag status`
# after a script's failures to see why, short enough not to alarm for good.
SHOWN_FOR_S = 3600.0


class ConnectionDrops:
    def __init__(self) -> None:
        self.times = 0  # drops since start
        self.connections = 0  # connections closed by them, in all
        self.last: float | None = None  # wall clock: a client compares it with its own
        self.limit = 0  # the open-file limit they were made under

    def note(self, connections: int, limit: int) -> None:
        self.times += 1
        self.connections += connections
        self.last = time.time()
        self.limit = limit

    def recent(self, now: float | None = None) -> dict[str, Any] | None:
        """The drops as a reply field, or None when none happened within SHOWN_FOR_S."""
        if self.last is None or (now or time.time()) - self.last > SHOWN_FOR_S:
            return None
        return {
            "times": self.times,
            "connections": self.connections,
            "last": self.last,
            "limit": self.limit,
        }
