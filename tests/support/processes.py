"""Processes a daemon started, read from /proc: do they outlive it?"""

from __future__ import annotations

import os
from pathlib import Path


def is_live(pid: int, module: str, parent: int | None = None) -> bool:
    """`pid` runs `module` (its command line names it) and is alive — a zombie counts as
    gone —, as a child of `parent` if given."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    state, ppid = stat.rpartition(")")[2].split()[:2]
    if state in ("Z", "X") or module.encode() not in command:
        return False
    return parent is None or int(ppid) == parent


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
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        name = stat[stat.find("(") + 1 : stat.rfind(")")]
        state, ppid = stat.rpartition(")")[2].split()[:2]
        if state == "Z" and int(ppid) == parent:
            out[int(entry)] = name
    return out
