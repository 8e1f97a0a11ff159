"""The `ragd` entry point holds SIGHUP (a reload asked early, app/early_reload.py) for
every invocation that serves: `ragd serve …` and a bare `ragd`, which serves the
remembered roots. Only `serve` was held, so a SIGHUP while a bare `ragd` started ended
it with Python's default (status 129, no log line). Other commands keep the default."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator

import pytest

from ragd.app import early_reload
from ragd.cli import main


@pytest.fixture
def sighup_restored() -> Iterator[None]:
    """SIGHUP's handler and the umask (run() sets 077) as they were."""
    before = signal.getsignal(signal.SIGHUP)
    umask = os.umask(0o077)
    yield
    os.umask(umask)
    signal.signal(signal.SIGHUP, before)


def handler_while_running(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> object:
    """The SIGHUP handler in place when `ragd ARGV` hands over to its command."""
    seen: list[object] = []
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    monkeypatch.setattr(sys, "argv", ["ragd", *argv])
    # The command itself is not run: only what the entry point set up before it.
    monkeypatch.setattr(main, "app", lambda: seen.append(signal.getsignal(signal.SIGHUP)))
    main.run()
    return seen[0]


@pytest.mark.usefixtures("sighup_restored")
def test_every_invocation_that_serves_holds_sighup(monkeypatch: pytest.MonkeyPatch) -> None:
    held = early_reload._note  # the handler hold() installs
    assert handler_while_running([], monkeypatch) == held
    assert handler_while_running(["serve", "/tmp/notes"], monkeypatch) == held
    assert handler_while_running(["reset"], monkeypatch) == signal.SIG_DFL
