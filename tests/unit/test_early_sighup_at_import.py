"""The `ragd` script holds SIGHUP from its first ragd code, `import ragd`, not after the
command line's imports (typer, click: 50 ms idle, up to 0.4 s on a loaded machine).

Before, the hold came in `ragd.cli.main.run`, after those imports: by hand, on a machine at
load average 8.8, `kill -HUP` 100 ms after spawning `ragd serve` still killed it 5 times of 8
(150 ms: 2 of 8); after, none from 60 ms on. The test needs no timing: a fresh interpreter
named `ragd` imports the package alone and signals itself, and it must still be alive,
with nothing heavy imported yet.
"""

from __future__ import annotations

import signal
import subprocess

from tests.support.commands import run_python

# SIGHUP's default first: a suite run under `nohup` hands every child SIG_IGN, and the
# test is about what `import ragd` changes, not what the parent passed down.
PROBE = """
import os, signal, sys
signal.signal(signal.SIGHUP, signal.SIG_DFL)
sys.argv = [{argv0!r}, *{args!r}]
import ragd
os.kill(os.getpid(), signal.SIGHUP)
heavy = sorted(m for m in ("typer", "click", "ragd.cli.main", "numpy") if m in sys.modules)
print(ragd.sighup_held(), heavy)
"""


def _import_ragd_as(argv0: str, args: list[str]) -> subprocess.CompletedProcess:
    code = PROBE.format(argv0=argv0, args=args)
    return run_python(code, timeout=60)


def test_import_ragd_holds_sighup_for_the_ragd_command_that_serves() -> None:
    for args in (["serve", "/tmp/notes"], []):
        out = _import_ragd_as("/usr/local/bin/ragd", args)
        assert out.returncode == 0, (args, out.returncode, out.stderr)
        assert out.stdout.split() == ["True", "[]"], out.stdout


def test_other_commands_and_programs_keep_the_default() -> None:
    for argv0, args in (("/usr/local/bin/ragd", ["check"]), ("/usr/bin/pytest", ["serve"])):
        out = _import_ragd_as(argv0, args)
        assert out.returncode == -signal.SIGHUP, (argv0, args, out.returncode, out.stdout)
