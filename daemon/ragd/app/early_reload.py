"""A SIGHUP before the daemon's own handlers are in place: a reload asked early.

Python leaves SIGHUP at the system's default, which ends the process. `ragd serve` imports
its command line, parses its arguments (typer stats the roots), reads its settings and
claims its locks before `Daemon.start` installs the handlers, and a `systemctl reload` (or
`kill -HUP`) in that time ended the daemon with status 129 and no line in the log. The
signal is held (noted, not fatal) from the first ragd code the `ragd` script runs, the
package's `__init__` (the layer below everything, so the state lives there); the entry
point calls `hold()` again for `python -m ragd`, which imports the package before it sets
its arguments. `Daemon` asks `asked()` once its handler is installed and reloads then
(the settings read at start may predate the edit the signal announced). Only the
interpreter's own start, before any ragd code, still comes first.
"""

from __future__ import annotations

import ragd

_note = ragd._note_sighup  # the handler `hold` installs (the tests compare with it)


def hold() -> None:
    """From now on until `Daemon.start` replaces it, a SIGHUP is noted, not fatal."""
    ragd.hold_sighup()


def serves(argv: list[str]) -> bool:
    """Whether `ragd ARGV` serves: `serve`, or nothing (a bare `ragd`)."""
    return ragd.serves(argv)


def asked() -> bool:
    """Did a SIGHUP come while `hold` was in place?"""
    return ragd.sighup_held()
