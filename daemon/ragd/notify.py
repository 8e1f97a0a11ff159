"""systemd's notify protocol in a few lines of stdlib (no dependency).

`READY=1`, `STATUS=…`, `WATCHDOG=1` and `STOPPING=1` are datagrams sent to the socket
named by $NOTIFY_SOCKET (a path, or an abstract socket when it starts with "@"). Outside
systemd the variable is unset and every call is a no-op.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    def __init__(self, address: str | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        usec = os.environ.get("WATCHDOG_USEC", "")
        pid = os.environ.get("WATCHDOG_PID", "")
        enabled = usec.isdigit() and (not pid or pid == str(os.getpid()))
        # Ping at half the interval, as systemd recommends.
        self.watchdog_interval_s = int(usec) / 2_000_000 if enabled else 0.0

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def send(self, *fields: str) -> None:
        if self._sock is None:
            return
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            self._sock.sendto("\n".join(fields).encode("utf-8"), target)
        except OSError:
            pass  # systemd gone (or never there): nothing useful to do

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.send(f"STATUS={status}")

    def watchdog(self) -> None:
        self.send("WATCHDOG=1")

    def stopping(self) -> None:
        self.send("STOPPING=1", "STATUS=stopping")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
