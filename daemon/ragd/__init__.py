"""ragd — the daemon: watches folders, keeps a dense and a lexical index warm, answers."""

from __future__ import annotations

import signal
import sys

__version__ = "0.1.0"

# A SIGHUP while `ragd serve` starts is a reload asked early, not the end of the daemon
# (app/early_reload.py, which `Daemon` asks once its own handler is in place). It is held
# here because this is the first ragd code the `ragd` script runs: the script imports
# ragd.cli.main, whose imports (typer, click) took 50 ms idle and up to 0.4 s on a loaded
# machine, and Python's default for SIGHUP ended the process meanwhile (status 129, not a
# line in the log: systemd's `reload` right after `start`). Stdlib only, and only for
# the `ragd` command when it serves: every other process that imports ragd (the parse
# workers, `ragd check`, the tests) keeps the default.
_early_sighup = False


def _note_sighup(_signum: int, _frame: object) -> None:
    global _early_sighup
    _early_sighup = True


def hold_sighup() -> None:
    """From now on until `Daemon.start` replaces it, a SIGHUP is noted, not fatal."""
    signal.signal(signal.SIGHUP, _note_sighup)


def sighup_held() -> bool:
    """Did a SIGHUP come while `hold_sighup` was in place?"""
    return _early_sighup


def serves(argv: list[str]) -> bool:
    """Whether the arguments after the command's name make it serve: `serve`, or nothing
    (a bare `ragd` serves the remembered roots)."""
    return argv[:1] in (["serve"], [])


def _the_ragd_command_serving() -> bool:
    argv = getattr(sys, "argv", None) or []
    return bool(argv) and argv[0].rpartition("/")[2] == "ragd" and serves(argv[1:])


if _the_ragd_command_serving():
    hold_sighup()
