"""The `ragd` command's exit codes, named once.

`ragd serve` (and `reset`, `config`, `install-service`) exit with `ServeExit`; the
systemd unit's RestartPreventExitStatus is rendered from `NOT_FIXED_BY_RESTART`, so a
configuration error or a damaged store does not become a restart loop. `ragd check` has
its own scale (`CheckExit`), whose 2 means the same as serve's: damaged, the line
printed names the fix.

`rag`'s exit codes are another table (`ragproto.errors.ExitCode`): the client never sees
these.
"""

from __future__ import annotations

import enum


class ServeExit(enum.IntEnum):
    """How `ragd serve` ended."""

    OK = 0
    FAILED = 1  # start-up or the daemon failed: restarting may help
    NEEDS_FIX = 2  # bad configuration or arguments, or a damaged store: the line says the fix
    HELD = 3  # another ragd (or process) holds this data dir or socket


# Restarting cannot help these: systemd must not retry them (RestartPreventExitStatus).
NOT_FIXED_BY_RESTART = (ServeExit.NEEDS_FIX, ServeExit.HELD)


class CheckExit(enum.IntEnum):
    """`ragd check`'s verdict on a data dir."""

    CONSISTENT = 0
    REPAIRABLE = 1  # the next `ragd serve` repairs what was found
    DAMAGED = 2  # beyond that: the one line printed names the file and the fixing command
    UNANSWERED = 3  # the daemon holding the data dir did not answer
