"""systemd's notify protocol in a few lines of stdlib (no dependency).

`READY=1`, `STATUS=…`, `WATCHDOG=1` and `STOPPING=1` are datagrams sent to the socket
named by $NOTIFY_SOCKET (a path, or an abstract socket when it starts with "@"). Outside
systemd the variable is unset and every call is a no-op.

The watchdog is pinged from the main loop at half of $WATCHDOG_USEC (as sd_watchdog_enabled
recommends), so a wedged loop stops the pings and systemd restarts the service.
`StatusReporter` keeps `STATUS=` honest without making the loop pay for it: the text is
recomputed at most once per interval and sent only when it changed.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping

from ragd.core.names import shown


class Notifier:
    def __init__(
        self, address: str | None = None, environ: Mapping[str, str] | None = None
    ) -> None:
        env = os.environ if environ is None else environ
        self.address = address if address is not None else env.get("NOTIFY_SOCKET", "")
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        enabled = usec.isdigit() and int(usec) > 0 and (not pid or pid == str(os.getpid()))
        self.watchdog_interval_s = int(usec) / 2_000_000 if enabled else 0.0
        self._last_ping: float | None = None

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, *fields: str) -> bool:
        if self._sock is None:
            return False
        # One field per line is the protocol: a newline inside a value would add a field.
        # STATUS= carries text from outside (a vector server's error message), and a
        # hostile server answering "…\nWATCHDOG=trigger" or "\nMAINPID=…" would have made
        # systemd restart ragd or track another process. Control characters are escaped.
        fields = tuple(shown(field) for field in fields)
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            self._sock.sendto("\n".join(fields).encode("utf-8"), target)
            return True
        except OSError:
            return False  # systemd gone (or never there): nothing useful to do

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def keepalive(self, now: float | None = None) -> bool:
        """Ping the watchdog if half its interval has passed; True when a ping went out."""
        if not self.watchdog_interval_s:
            return False
        now = time.monotonic() if now is None else now
        if self._last_ping is not None and now - self._last_ping < self.watchdog_interval_s:
            return False
        self._last_ping = now
        self.watchdog()
        return True

    def stopping(self, status: str = "stopping") -> None:
        self.send("STOPPING=1", f"STATUS={status}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class StatusReporter:
    """Send `STATUS=<compute()>` when it changes, computing it at most once per interval."""

    def __init__(
        self,
        notifier: Notifier,
        compute: Callable[[], str],
        interval_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.notifier = notifier
        self.compute = compute
        self.interval_s = interval_s
        self.clock = clock
        self.last_text = ""
        self._last_check: float | None = None

    def tick(self) -> None:
        if not self.notifier.enabled:
            return
        now = self.clock()
        if self._last_check is not None and now - self._last_check < self.interval_s:
            return
        self._last_check = now
        self.report(self.compute())

    def report(self, text: str) -> None:
        """Send `text` now if it differs from the last status sent."""
        if text != self.last_text:
            self.last_text = text
            self.notifier.status(text)
