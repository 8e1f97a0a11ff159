"""Reloading a running test daemon: write its config file, send SIGHUP, wait for the log."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from tests.support.daemon import Daemon


def toml(values: dict[str, Any]) -> str:
    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list | tuple):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return repr(v)

    return "".join(f"{key} = {value(v)}\n" for key, v in values.items())


class Reloader:
    """Writes the config file (the base values plus changes) and sends SIGHUP."""

    def __init__(self, daemon: Daemon, config: Path, base: dict[str, Any]) -> None:
        self.daemon, self.config, self.base = daemon, config, base

    def __call__(self, **changes: Any) -> str:
        """Reload with these changes; returns what the daemon logged for the reload."""
        self.config.write_text(toml(self.base | changes))
        mark = len(self.daemon.log())
        self.daemon.signal(signal.SIGHUP)
        end = self.daemon.wait_log("configuration reloaded", after=mark)
        log = self.daemon.log()
        return log[mark : log.find("\n", end) + 1 or len(log)]
