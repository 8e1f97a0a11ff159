"""Processes a daemon started, read from /proc: do they outlive it?"""

from __future__ import annotations

import os
from pathlib import Path

from ragd.core.proc_stat import proc_stat


def is_live(pid: int, module: str, parent: int | None = None) -> bool:
    """`pid` runs `module` (its command line names it) and is alive — a zombie counts as
    gone —, as a child of `parent` if given."""
    stat = proc_stat(pid)
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    if stat is None or stat.state in ("Z", "X") or module.encode() not in command:
        return False
    return parent is None or stat.ppid == parent


def live_children(parent: int, module: str) -> set[int]:
    """The live processes running `module` whose parent is `parent`."""
    return {
        int(entry)
        for entry in os.listdir("/proc")
        if entry.isdigit() and is_live(int(entry), module, parent)
    }


def zombie_children(parent: int) -> dict[int, str]:
    """The children of `parent` that ended and were never reaped (state Z), with the
    name the kernel keeps for each."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = proc_stat(entry)
        if stat is not None and stat.state == "Z" and stat.ppid == parent:
            try:
                out[int(entry)] = Path(f"/proc/{entry}/comm").read_text().strip()
            except OSError:
                continue
    return out
