"""A SIGHUP before the daemon's own handlers are in place: a reload asked early.

Python leaves SIGHUP at the system's default, which ends the process. `ragd serve` parses
its arguments (typer stats the roots), reads its settings and claims its locks before
`Daemon.start` installs the handlers, and a `systemctl reload` (or `kill -HUP`) in that
time ended the daemon with status 129 and no line in the log. `hold()`, called by the
`ragd` entry point for `serve` (and a bare `ragd`, which serves) before the arguments are
parsed, notes such a signal instead; `Daemon` asks `asked()` once its handler is
installed and reloads then (the settings read at start may predate the edit the signal
announced). Stdlib only. The
interpreter's own start and the CLI's import, tens of milliseconds, still come first.
"""

from __future__ import annotations

import signal

_asked = False


def hold() -> None:
    """From now on until `Daemon.start` replaces it, a SIGHUP is noted, not fatal."""
    signal.signal(signal.SIGHUP, _note)


def _note(_signum: int, _frame: object) -> None:
    global _asked
    _asked = True


def asked() -> bool:
    """Did a SIGHUP come while `hold` was in place?"""
    return _asked
