"""The door: a small process of its own that accepts connections on the ipc:// socket and
relays their frames to the daemon.

libzmq ends the process whose ipc:// listener meets EMFILE in accept() (connection_guard.py
says why no option avoids it). The guard drops every connection before that, but it
reads the monitor from Python, and libzmq's I/O thread accepts without it: 350 idle
connections opened in a tight loop under a limit of 300 were accepted at about 12 a
millisecond, and a loop turn late by 5 ms (the GIL, a busy core) let them reach the
limit first — the daemon died with SIGABRT in 1 of 3 runs. No reaction time closes that
race. So the listener lives here, in a process that holds nothing else: if it dies, the
daemon loses only the connections (which the drop would have closed anyway), says so in
one line and starts another door (serve/door_keeper.py), with its indexes, its model and
every request under way on the daemon's side intact. Here the guard still drops the
connections first in all but a flood, by exiting; and with nothing else in this process
it reads the monitor sooner.

What goes through: a client's frames arrive on the public ROUTER and go to the daemon on
a DEALER connected to the daemon's private ipc:// ROUTER, as [client id, owner, frames…],
where owner is b"1" when libzmq read the client's uid (SO_PEERCRED, in Peer-Address) as
this process's own. A request the daemon's side has no room for is held, and no other
is read until it goes: a client sending without end waits in its own queue while libzmq
reads the others in turn. Replies come back as [client id, frame] and go out on the
ROUTER, dropped when the client does not read them (SNDHWM); one for a client whose
connection is gone (ROUTER_MANDATORY: EHOSTUNREACH) is answered to the daemon with
[client id, GONE], and the daemon cancels that client's asks (serve/running_asks.py).
Frames larger than the daemon's limit are refused here (ZMQ_MAXMSGSIZE), and
the handshake tells clients the limit, as before.

A daemon stopped by a signal (SIGSTOP, a debugger; its state in /proc) answers nothing,
while this process, running on, completes every client's handshake: each request is then
answered here, at once, with `stopped` (exit 3) and how to let it go on. Before the door
a stopped daemon's silence showed as a handshake that never completed.

It talks to the daemon on its stdin and stdout: one line, `listening <descriptors>` once
bound, `cannot-listen <why>` when the bind fails, `dropped <connections> <reserve>
<limit>` as it exits to drop them; stdin's end (the daemon closed it, or died) ends it.
SIGINT, SIGTERM and SIGHUP are ignored: a terminal's Ctrl-C or systemd's stop reaches the
whole group, and the daemon, which may still be answering, says when the door closes.

It imports pyzmq and a few small ragd modules, none of the daemon's: it starts in about
0.2 s.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import sys
from typing import Any

import zmq

from ragd.core.proc_stat import proc_stat
from ragd.serve.connection_guard import ConnectionGuard, open_descriptors
from ragd.serve.socket_dir import secure_socket_dir
from ragproto import protocol
from ragproto.errors import RagError, Stopped
from ragproto.paths import ipc_path

CANNOT_LISTEN = 3
DROPPED = 4
BATCH = 256  # frames relayed each way per turn, so neither side waits on the other
GONE = b"gone"  # [client id, GONE] to the daemon: a reply found that client's connection gone


def main(argv: list[str]) -> int:
    public, inner, routing_id, max_bytes, metadata, send_hwm = argv
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    # libzmq's abort is how a flood may end this process: a core file of it says nothing.
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.MAXMSGSIZE, int(max_bytes))
    router.setsockopt(zmq.METADATA, metadata.encode())
    router.setsockopt(zmq.ROUTER_MANDATORY, 1)  # a gone client is said (`Relay.out`)
    router.setsockopt(zmq.SNDHWM, int(send_hwm))
    guard = ConnectionGuard.for_limit(router)
    try:
        bind_owner_only(router, public)
    except (RagError, zmq.ZMQError, OSError) as exc:
        say(f"cannot-listen {exc}")
        return CANNOT_LISTEN
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.ROUTING_ID, bytes.fromhex(routing_id))
    # No size limit from the daemon: the limit is on requests, and a reply may be larger.
    dealer.connect(inner)
    say(f"listening {open_descriptors()}")
    relay = Relay(router, dealer)
    stdin = sys.stdin.fileno()
    poller = zmq.Poller()
    poller.register(stdin, zmq.POLLIN)
    if guard is not None:
        poller.register(guard.socket, zmq.POLLIN)
    while True:
        # Requests are read only while the daemon's side takes them: a client sending
        # without end then waits in its own queue, and the others are read in turn.
        poller.register(router, 0 if relay.held else zmq.POLLIN)
        poller.register(dealer, zmq.POLLIN | (zmq.POLLOUT if relay.held else 0))
        events = dict(poller.poll())
        if stdin in events and not os.read(stdin, 512):
            os._exit(0)  # the daemon closed the door, or is gone; it removes the name
        if guard is not None and guard.socket in events and guard.full():
            say(f"dropped {guard.dropped()} {guard.reserve} {guard.limit}")
            # Exiting closes every descriptor at once; nothing here is worth a cleanup.
            os._exit(DROPPED)
        if events.get(dealer, 0) & zmq.POLLIN:
            relay.out()
        if events.get(router, 0) & zmq.POLLIN or events.get(dealer, 0) & zmq.POLLOUT:
            relay.into()


class Relay:
    """Frames both ways between the clients (the public ROUTER) and the daemon (a DEALER
    on its private ROUTER)."""

    def __init__(self, router: zmq.Socket[bytes], dealer: zmq.Socket[bytes]) -> None:
        self.router = router
        self.dealer = dealer
        self.held: list[Any] | None = None  # a request the daemon's side has no room for
        self._uid = str(os.geteuid())
        self._daemon = os.getppid()

    def into(self) -> None:
        for _ in range(BATCH):
            if self.held is not None:
                try:
                    self.dealer.send_multipart(self.held, zmq.NOBLOCK)
                except zmq.Again:
                    return  # (polled for room; the router is not read meanwhile)
                self.held = None
            try:
                frames = self.router.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            stopped = daemon_stopped(self._daemon)
            if stopped:
                self.answer_stopped(frames, stopped)
                continue
            owner = b"1" if peer_credentials(frames[-1])[0] == self._uid else b"0"
            self.held = [frames[0], owner, *frames[1:]]

    def out(self) -> None:
        for _ in range(BATCH):
            try:
                frames = self.dealer.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            if not send_or_gone(self.router, frames):
                with contextlib.suppress(zmq.Again):  # (the daemon's queue full: said later)
                    self.dealer.send_multipart([frames[0], GONE], zmq.NOBLOCK)

    def answer_stopped(self, frames: list[zmq.Frame], state: str) -> None:
        """A daemon stopped by a signal (SIGSTOP, a debugger) would leave the request
        unanswered for as long as it stays stopped: say so now, for it."""
        try:
            request_id = str(protocol.decode(frames[-1].bytes).get("id") or "")[:128]
        except (ValueError, RecursionError):
            request_id = ""
        message = (
            f"ragd (pid {self._daemon}) is {state} and cannot answer; "
            f"`kill -CONT {self._daemon}` lets it go on"
        )
        reply = protocol.error_reply(request_id, Stopped.type_name, message, 0)
        send_or_gone(self.router, [frames[0], protocol.encode(dict(reply))])


def send_or_gone(router: zmq.Socket[bytes], frames: list[Any]) -> bool:
    """Send on a ROUTER_MANDATORY socket, never blocking: dropped past the peer's
    high-water mark (it does not read); False when the peer's connection is gone. (The
    door's, to a client; the daemon's, to the door or a tcp:// client.)"""
    try:
        router.send_multipart(frames, zmq.NOBLOCK)
    except zmq.Again:
        pass
    except zmq.ZMQError as exc:
        if exc.errno != zmq.EHOSTUNREACH:
            raise
        return False
    return True


def daemon_stopped(pid: int) -> str:
    """ "stopped" or "traced" when the daemon's process is (its state in /proc), else ""."""
    stat = proc_stat(pid)
    state = stat.state if stat is not None else ""
    return {"T": "stopped", "t": "stopped by a debugger"}.get(state, "")


def bind_owner_only(router: zmq.Socket[bytes], address: str) -> None:
    """In a folder only we can reach (checked again: it may have been replaced since the
    daemon started), born 0600, never briefly wider (the umask), and set so after."""
    path = ipc_path(address)
    assert path is not None
    secure_socket_dir(path.parent)  # (the bind replaces the old door's name itself)
    previous = os.umask(0o077)
    try:
        router.bind(address)
    finally:
        os.umask(previous)
    os.chmod(path, 0o600)


def peer_credentials(frame: zmq.Frame) -> tuple[str, str]:
    """(uid, pid) of the process that sent `frame` over ipc://, as libzmq read them with
    SO_PEERCRED (Peer-Address ends in ":uid:gid:pid"); ("", "") when it did not."""
    try:
        fields = str(frame.get("Peer-Address")).rsplit(":", 3)
    except zmq.ZMQError:
        return "", ""
    return (fields[1], fields[3]) if len(fields) == 4 else ("", "")


def say(line: str) -> None:
    os.write(sys.stdout.fileno(), (line.replace("\n", " ") + "\n").encode())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
