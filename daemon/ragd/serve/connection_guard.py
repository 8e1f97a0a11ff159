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
RESERVE are left, the server unbinds its ipc endpoint — libzmq then closes the
listener and every connection accepted through it — and binds it again at once, saying so
in one line. The daemon lives; clients that were waiting lose their request. The drop is
kept (core/connection_drops.py) for an hour: `rag status`, `ping` and systemd's STATUS=
say it, and `rag`, finding its connection closed, asks `ping` and says the daemon dropped
it and to try again (client/ragcli/transport.py) instead of "ragd stopped".

Binding again touches the socket's folder (its checks, the stale name's unlink, the bind,
a chmod): on a stalled mount any of these waits, so they run on a thread of their own
(`Rebind`) while the loop goes on with every other socket; the router is not touched by
the loop until the thread is done (a ZeroMQ socket is one thread's at a time).

What remains: a burst of more than RESERVE connections arriving faster than the loop
reads the monitor (one poll turn) can still reach the limit first.
"""

from __future__ import annotations

import os
import resource
import threading
from collections.abc import Callable

import zmq
from zmq.utils.monitor import recv_monitor_message

# Descriptors kept free for the daemon's own work (files being read, the databases, the
# parse workers' pipes) and for connections accepted before the loop sees the events.
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
                event = recv_monitor_message(self.socket, zmq.NOBLOCK)
            except zmq.Again:
                break
            if event["event"] == zmq.EVENT_ACCEPTED:
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


class Rebind:
    """`listen()` on a thread of its own; the loop asks `done()` each turn."""

    def __init__(self, listen: Callable[[], None], dropped: int) -> None:
        self.dropped = dropped
        self.failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(listen,), name="ragd-rebind")
        self._thread.daemon = True
        self._thread.start()

    def _run(self, listen: Callable[[], None]) -> None:
        try:
            listen()
        except BaseException as exc:  # handed to the loop, which says it and stops
            self.failure = exc

    def done(self, timeout_s: float = 0.0) -> bool:
        self._thread.join(timeout_s)
        return not self._thread.is_alive()
