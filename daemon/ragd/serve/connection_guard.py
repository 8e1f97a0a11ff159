"""Keeps libzmq's ipc:// listener from meeting a full descriptor table.

libzmq (4.3.5, and its master) ends the whole process when accept() on an ipc:// socket
fails with EMFILE: src/ipc_listener.cpp lists the errors it tolerates there and EMFILE is
not among them (its tcp:// listener does tolerate it and drops the connection). The soft
limit is raised to the hard one at start (core/open_files.py) and a hard limit under 256
is refused, but under a hard limit of a few hundred or thousand (a container's, a unit's
`LimitNOFILE=`) that many connections held open at once — a script running `rag` in
parallel, a program of the user's that leaks them — still aborted the daemon.

No libzmq option caps the connections a listener accepts, so the guard watches them: the
router's monitor reports every connection accepted, and once the connections could
account for half the limit the guard counts the descriptors really open. When only
RESERVE are left, the door (serve/door.py), the process holding the listener, exits,
which closes every connection at once, and the daemon starts another door, saying so in
one line. Clients that were waiting lose their request. The drop is kept
(core/connection_drops.py) for an hour: `rag status`, `ping` and systemd's STATUS= say
it, and `rag`, finding its connection closed, asks `ping` and says the daemon dropped it
and to try again (client/ragcli/transport.py) instead of "ragd stopped".

The guard reads the monitor from Python, and libzmq's I/O thread accepts without waiting
for it: a burst of more than RESERVE connections within one turn of the door's loop still
reaches the limit first. That ends the door only (door.py says why it is a process of
its own), and the daemon starts another just the same.
"""

from __future__ import annotations

import os
import resource
import struct

import zmq

# Descriptors kept free for connections accepted before the door's loop sees the events
# (the door itself holds about 14).
MIN_RESERVE = 64


def reserve_for(limit: int) -> int:
    return max(MIN_RESERVE, limit // 8)


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


class ConnectionGuard:
    """Counts a router's connections; says when the descriptors left are down to the
    reserve."""

    def __init__(self, router: zmq.Socket[bytes], limit: int) -> None:
        self._router = router
        self.limit = limit
        self.reserve = reserve_for(limit)
        self.socket = router.get_monitor_socket(zmq.EVENT_ACCEPTED | zmq.EVENT_DISCONNECTED)
        self._connections = 0

    @classmethod
    def for_limit(cls, router: zmq.Socket[bytes]) -> ConnectionGuard | None:
        """A guard for the open-file limit in force, or None when there is none."""
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return None if soft == resource.RLIM_INFINITY else cls(router, soft)

    def full(self) -> bool:
        """Read the monitor's events; True when accepting more could exhaust the limit."""
        while True:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            # The first frame starts with the event's number (16 bits, native order).
            if struct.unpack_from("=H", frames[0])[0] == zmq.EVENT_ACCEPTED:
                self._connections += 1
            else:
                self._connections = max(0, self._connections - 1)
        # Counting /proc/self/fd costs one entry per descriptor: only near the limit.
        if self._connections < (self.limit - self.reserve) // 2:
            return False
        return open_descriptors() >= self.limit - self.reserve

    def dropped(self) -> int:
        """The server dropped every connection; returns how many there were."""
        count, self._connections = self._connections, 0
        return count

    def close(self) -> None:
        self._router.disable_monitor()
        self.socket.close(linger=0)
