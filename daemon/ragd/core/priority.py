"""Background threads that must never slow searches or the writer run at the lowest priority."""

from __future__ import annotations

import contextlib
import os
import threading


def lowest_priority() -> None:
    """Nice the calling thread (Linux schedules threads separately) so searches and the
    writer win the CPU; elsewhere it simply runs at normal priority."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
