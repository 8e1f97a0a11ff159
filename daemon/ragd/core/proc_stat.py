"""A process's line of /proc/PID/stat, read the one way it can be read safely.

The second field is the command name in parentheses, and a name may hold spaces and ")"
itself (a thread or a program can name itself anything): the fields are split after the
*last* ")". Read by the door (is the daemon stopped?), the instance check (whose door is
this listener?), the store worker's watch (its CPU time) and start-up's debug lines (how
long ago the process started). Light: the door imports it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")  # utime, stime and start_ticks count these


@dataclass(frozen=True)
class ProcStat:
    state: str  # R, S, D, T (stopped), t (stopped by a debugger), Z, …
    ppid: int
    utime: int  # clock ticks of user CPU time, all threads
    stime: int  # ...and of system CPU time
    children_ticks: int  # cutime + cstime: of the children it has waited for
    start_ticks: int  # when it started, in clock ticks since boot

    @property
    def cpu_ticks(self) -> int:
        return self.utime + self.stime


def proc_stat(pid: int | str = "self") -> ProcStat | None:
    """The process's stat line (None: it is gone, or there is no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            line = stat_file.read(4096)
        # fields 3 onwards (state first): field n is fields[n - 3]
        fields = line.rpartition(b")")[2].split()
        return ProcStat(
            fields[0].decode("ascii", "replace"),
            int(fields[1]),
            int(fields[11]),
            int(fields[12]),
            int(fields[13]) + int(fields[14]),
            int(fields[19]),
        )
    except (OSError, IndexError, ValueError):
        return None
