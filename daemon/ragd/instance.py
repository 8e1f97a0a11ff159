"""One daemon per data dir and per socket.

An `fcntl` lock on `<data dir>/ragd.lock` (released by the kernel when the process dies,
so a crash never leaves a stale lock) guards the data dir; the lock file records who
holds it so a second daemon can name the running one. A socket file that nobody answers
on is a leftover of a crashed daemon and is removed; one that answers belongs to a live
daemon and stops start-up.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path

from ragproto.errors import RagError
from ragproto.paths import ipc_path


class AlreadyRunning(RagError):
    type_name = "already_running"


class InstanceLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "ragd.lock"
        self._fd: int | None = None

    def acquire(self, socket_address: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise AlreadyRunning(
                f"another ragd (pid {holder.get('pid', '?')}, socket "
                f"{holder.get('socket', '?')}) is already using this data dir; "
                "stop it first (systemctl --user stop ragd, or kill that pid)"
            ) from None
        os.ftruncate(fd, 0)
        os.write(
            fd,
            json.dumps(
                {"pid": os.getpid(), "socket": socket_address, "started": time.time()}
            ).encode(),
        )
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_holder(fd: int) -> dict[str, object]:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        value = json.loads(os.read(fd, 4096).decode() or "{}")
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def socket_in_use(address: str) -> bool:
    """Is a live process accepting connections on this ipc socket?"""
    path = ipc_path(address)
    if path is None or not path.exists():
        return False
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False  # ECONNREFUSED: a stale file from a crashed daemon
    finally:
        probe.close()
