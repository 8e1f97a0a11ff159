"""The client's standard-library ZMTP peer against real libzmq sockets (pyzmq here)."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import closing
from pathlib import Path

import pytest
import zmq

from ragcli.transport import Connection
from ragcli.zmtp import DealerPeer, ZmtpError, open_stream
from ragproto.errors import Busy


def make_router(**options: int) -> zmq.Socket:  # type: ignore[type-arg]
    sock = zmq.Context.instance().socket(zmq.ROUTER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.RCVTIMEO, 5000)
    for name, value in options.items():
        sock.setsockopt(getattr(zmq, name), value)
    return sock


def round_trip(sock: zmq.Socket, peer: DealerPeer, request: bytes, reply: bytes) -> bytes:  # type: ignore[type-arg]
    """One request in, one reply out; returns the ROUTER's identity for the peer."""
    peer.send(request)
    identity, payload = sock.recv_multipart()
    assert payload == request
    sock.send_multipart([identity, reply])
    assert peer.recv(2) == reply
    return identity


@pytest.fixture
def router(tmp_path: Path):  # type: ignore[no-untyped-def]
    sock = make_router()
    address = f"ipc://{tmp_path / 'r.sock'}"
    sock.bind(address)
    yield sock, address
    sock.close(linger=0)


def test_a_request_reaches_the_router_and_replies_come_back(router) -> None:  # type: ignore[no-untyped-def]
    sock, address = router
    peer = DealerPeer(open_stream(address, 2), 2)
    try:
        identity = round_trip(sock, peer, b'{"op": "ping"}', b"short")
        long_reply = b"x" * 70_000  # past the one-byte length: an 8-byte length frame
        for reply in (long_reply, b""):
            sock.send_multipart([identity, reply])
            assert peer.recv(2) == reply
        sock.send_multipart([identity, b"first part", b"last part"])
        assert peer.recv(2) == b"last part"  # one message; its last frame is the payload
    finally:
        peer.close()


def test_tcp_addresses_work_too() -> None:
    sock = make_router()
    port = sock.bind_to_random_port("tcp://127.0.0.1")
    peer = DealerPeer(open_stream(f"tcp://127.0.0.1:{port}", 2), 2)
    try:
        round_trip(sock, peer, b"hello", b"world")
    finally:
        peer.close()
        sock.close(linger=0)


def test_heartbeats_from_the_router_are_answered(tmp_path: Path) -> None:
    # PING every 50 ms, and drop us if no PONG comes within 400 ms
    sock = make_router(HEARTBEAT_IVL=50, HEARTBEAT_TIMEOUT=400)
    address = f"ipc://{tmp_path / 'hb.sock'}"
    sock.bind(address)
    peer = DealerPeer(open_stream(address, 2), 2)
    try:
        identity = round_trip(sock, peer, b"first", b"a")
        with pytest.raises(TimeoutError):
            peer.recv(1.0)  # a second of PINGs, each answered while we wait
        sock.send_multipart([identity, b"still connected"])
        assert peer.recv(2) == b"still connected"
    finally:
        peer.close()
        sock.close(linger=0)


def test_a_peer_that_closes_or_is_not_zmtp_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "plain.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    try:
        client = open_stream(f"ipc://{path}", 2)
        conn, _ = server.accept()
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(64))
        with pytest.raises(ZmtpError, match="ZMTP 3"):
            DealerPeer(client, 2)
        client.close()
        conn.close()
        client = open_stream(f"ipc://{path}", 2)
        conn, _ = server.accept()
        conn.close()
        with pytest.raises(ZmtpError, match="closed the connection"):
            DealerPeer(client, 2)
        client.close()
    finally:
        server.close()


def test_unsupported_addresses_are_named() -> None:
    with pytest.raises(ZmtpError, match="unsupported address"):
        open_stream("inproc://ragd", 1)


def test_a_daemon_that_stops_before_answering_is_not_running_not_a_rejection(
    tmp_path: Path,
) -> None:
    """ragd stopping (or re-executing itself) with a request on its way, or during the
    handshake: exit 3, "not running", as when it is down, so a script tries again. It was
    exit 5, "request rejected", with "lost the connection" or "Connection reset by peer"."""
    from ragcli.transport import Connection
    from ragproto.errors import DaemonNotRunning, ExitCode

    sock = make_router()
    address = f"ipc://{tmp_path / 'r.sock'}"
    sock.bind(address)
    connection = Connection(address)  # the handshake is done by libzmq's I/O thread
    sock.close(linger=0)  # then the daemon goes away
    try:
        # The send meets the closed connection and is tried once on a fresh one (a daemon
        # that restarted is back; transport.Connection._send): nothing listens there now.
        # Or the kernel takes the send and the close shows on the read: "stopped before
        # answering" (which comes first is a race; both are exit 3, not a rejection).
        with pytest.raises(
            DaemonNotRunning, match=r"ragd is not running|ragd stopped before answering"
        ) as raised:
            connection.call("status", {}, 5)
        assert raised.value.exit_code == ExitCode.NOT_RUNNING
    finally:
        connection.close()
    path = tmp_path / "plain.sock"  # a listener that closes during the handshake
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    closer = threading.Thread(target=lambda: server.accept()[0].close())
    closer.start()
    try:
        with pytest.raises(DaemonNotRunning, match="stopped before answering"):
            Connection(f"ipc://{path}")
    finally:
        closer.join(5)
        server.close()


@pytest.mark.parametrize(
    "told",
    [b"0", b"00", b"-1", b"", b"lots", b"1e6", b"\xd9\xa3", b" 64", b"9" * 5000],
)
def test_a_frame_limit_that_is_no_positive_number_refuses_nothing(
    tmp_path: Path, told: bytes
) -> None:
    """A peer on the socket path whose handshake tells a frame limit of 0, a negative or
    no number, or a number of 5,000 digits: every request is sent as when no limit is
    told. A limit of 0 refused every request ("over its max_message_bytes = 0", exit 5)
    and 5,000 digits raised ValueError out of int() (Python's 4,300-digit limit): a
    traceback on every command."""
    from ragcli.transport import Connection
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    with FakeZmtpServer(tmp_path / "f.sock", ready(X_Max_Message_Bytes=told)) as server:
        with closing(Connection(server.address)) as connection:
            assert connection.call("status", {}, 5)["state"] == "idle"
        assert len(server.requests) == 1


def test_a_positive_frame_limit_still_refuses_a_larger_request(tmp_path: Path) -> None:
    from ragcli.transport import Connection
    from ragproto.errors import RequestTooLarge
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    with FakeZmtpServer(tmp_path / "f.sock", ready(X_Max_Message_Bytes=b"100")) as server:
        with closing(Connection(server.address)) as connection:
            assert connection.call("status", {}, 5)["state"] == "idle"  # ≈ 70 bytes
            with pytest.raises(RequestTooLarge, match="max_message_bytes = 100"):
                connection.call("search", {"query": "x" * 200}, 5)
        assert len(server.requests) == 1


# A command frame with the long flag announcing 2^63 - 1 bytes, then a READY name.
HUGE_READY = bytes([0x04 | 0x02]) + (2**63 - 1).to_bytes(8, "big") + b"\x05READY"


@pytest.mark.parametrize(
    "handshake",
    [
        HUGE_READY,
        bytes([0x04 | 0x02]) + (1 << 33).to_bytes(8, "big") + b"\x05READY",  # 8 GiB
        bytes([0x04, 0]),  # an empty command
    ],
    ids=["2^63 bytes", "8 GiB", "empty command"],
)
def test_a_hostile_handshake_frame_is_one_protocol_error(tmp_path: Path, handshake: bytes) -> None:
    """A peer on the socket path announcing a READY of 2^63 bytes raised OverflowError out
    of socket.recv (a traceback from every `rag` command); 8 GiB was a recv buffer of
    that size asked for; neither is read now: one ProtocolError naming the handshake."""
    from ragcli.transport import Connection
    from ragproto.errors import ProtocolError
    from tests.support.fake_zmtp import FakeZmtpServer

    with (
        FakeZmtpServer(tmp_path / "f.sock", handshake, answer=False) as server,
        pytest.raises(ProtocolError, match="cannot talk to ragd at"),
    ):
        Connection(server.address)


def test_a_hostile_reply_frame_is_a_clear_error(tmp_path: Path) -> None:
    """After a good handshake, a reply frame announcing 2^63 bytes, or an empty command
    frame: the request ends in one RagError, never OverflowError or IndexError."""
    from ragcli.transport import Connection
    from ragproto.errors import RagError
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    for after in (HUGE_READY[:9], bytes([0x04, 0])):
        with (
            FakeZmtpServer(tmp_path / "f.sock", ready() + after, answer=False) as server,
            closing(Connection(server.address)) as connection,
            pytest.raises(RagError),
        ):
            connection.call("status", {}, 2)
        (tmp_path / "f.sock").unlink()


def test_a_handshake_trickled_a_byte_at_a_time_is_a_timeout_not_a_wait(tmp_path: Path) -> None:
    """Each byte of the greeting and READY arrives 0.1 s after the last: every read was
    within the 2 s connect timeout, so the client waited as long as the peer liked (a
    READY of 1 MB, a day). The handshake as a whole now has the timeout."""
    from ragcli.transport import Connection
    from ragproto.errors import DaemonTimeout
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    with (
        FakeZmtpServer(tmp_path / "f.sock", ready(), answer=False, trickle_s=0.1) as server,
        pytest.raises(DaemonTimeout, match="did not complete the handshake"),
    ):
        Connection(server.address)


def test_a_receive_leaves_the_socket_its_sending_timeout(tmp_path: Path) -> None:
    """A receive bounds each read by what is left of its wait; the next send must not
    inherit that remainder (a large request on a full socket buffer would time out)."""
    from ragcli.transport import Connection
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    with (
        FakeZmtpServer(tmp_path / "f.sock", ready()) as server,
        closing(Connection(server.address)) as connection,
    ):
        sock = connection._peer._sock  # type: ignore[attr-defined]
        sending = sock.gettimeout()
        assert connection.call("status", {}, 0.5)["state"] == "idle"
        assert sock.gettimeout() == sending


def test_a_socket_whose_queue_is_full_is_busy_not_a_daemon_not_running(tmp_path: Path) -> None:
    """A flood of connections fills the socket's listen queue, and a connect then fails
    with EAGAIN: `rag` said "ragd is not running (… Resource temporarily unavailable)"
    and exit 3 while the daemon served, dropping the flood every second."""
    path = tmp_path / "s.sock"
    with closing(socket.socket(socket.AF_UNIX)) as listener:
        listener.bind(str(path))
        listener.listen(0)  # never accepted: a listener busy with a flood
        queued = _fill_queue(path)
        try:
            with pytest.raises(Busy) as raised:
                Connection(f"ipc://{path}")
        finally:
            for peer in queued:
                peer.close()
    said = str(raised.value)
    assert "not running" not in said and "try again" in said and str(path) in said


def _fill_queue(path: Path) -> list[socket.socket]:
    """Connections never accepted, until the listener's queue takes no more (EAGAIN)."""
    queued: list[socket.socket] = []
    while len(queued) < 1000:
        peer = socket.socket(socket.AF_UNIX)
        peer.setblocking(False)
        try:
            peer.connect(str(path))
        except BlockingIOError:
            peer.close()
            break
        queued.append(peer)
    return queued


def _stale(path: Path) -> None:
    """A socket file nobody listens on (a crash's leftover, or a listener being replaced)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.close()


def test_a_listener_restarting_slowly_is_waited_for_while_the_daemon_listens_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review46: a door (the process holding the public socket) that took longer than
    REFUSED_RETRY_S to start again read as "not running (stale socket)". While the daemon's
    own private socket beside it accepts, the client waits longer for the public one."""
    from ragcli import zmtp
    from ragproto.paths import private_socket

    monkeypatch.setattr(zmtp, "REFUSED_RETRY_S", 0.2)  # the daemon's door is slower
    public = tmp_path / "ragd.sock"
    _stale(public)
    inner = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    inner.bind(str(private_socket(public)))
    inner.listen(8)
    replaced = threading.Event()
    door: list[socket.socket] = []

    def restart() -> None:
        # the public name refuses until the probe has looked beside it more than once
        time.sleep(0.7)
        public.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(public))
        listener.listen(8)
        door.append(listener)
        replaced.set()

    thread = threading.Thread(target=restart)
    thread.start()
    try:
        beside = str(private_socket(public))
        stream = zmtp.open_stream_again(f"ipc://{public}", 1.0, beside=beside)
        assert replaced.is_set()  # it connected to the new listener, not gave up before it
        stream.close()
    finally:
        thread.join(5)
        inner.close()
        for listener in door:
            listener.close()


def test_a_stale_socket_with_no_daemon_beside_it_is_not_running_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ragcli import zmtp
    from ragproto.paths import private_socket

    monkeypatch.setattr(zmtp, "REFUSED_RETRY_S", 0.2)
    public = tmp_path / "ragd.sock"
    _stale(public)
    _stale(private_socket(public))  # a crash leaves both names, and nobody on either
    looked = []
    real = zmtp._listens
    monkeypatch.setattr(zmtp, "_listens", lambda a: looked.append(a) or real(a))
    beside = str(private_socket(public))
    with pytest.raises(ConnectionRefusedError):
        zmtp.open_stream_again(f"ipc://{public}", 1.0, beside=beside)
    assert looked == [beside]  # looked beside it once, found nobody, gave up


def test_a_full_queue_is_busy_after_the_short_wait_even_while_the_daemon_listens_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review47: the long wait is for a listener being started again (its name refuses, or
    is being replaced). A full queue (EAGAIN: a flood, or a stopped door) has a listener:
    `rag` says busy, try again, after REFUSED_RETRY_S as before, not after
    RESTARTING_RETRY_S because the daemon's private socket beside it accepts."""
    from ragcli import zmtp
    from ragproto.paths import private_socket

    monkeypatch.setattr(zmtp, "REFUSED_RETRY_S", 0.2)
    looked: list[str | None] = []
    real = zmtp._listens
    monkeypatch.setattr(zmtp, "_listens", lambda a: looked.append(a) or real(a))
    path = tmp_path / "s.sock"
    with (
        closing(socket.socket(socket.AF_UNIX)) as inner,
        closing(socket.socket(socket.AF_UNIX)) as listener,
    ):
        inner.bind(str(private_socket(path)))
        inner.listen(8)  # the daemon, alive beside its door
        listener.bind(str(path))
        listener.listen(0)  # never accepted: a door busy with a flood
        queued = _fill_queue(path)
        try:
            with pytest.raises(Busy):
                Connection(f"ipc://{path}")
        finally:
            for peer in queued:
                peer.close()
    assert looked == []  # busy: no look beside it, no longer wait


def test_a_listener_that_never_comes_back_beside_a_live_daemon_is_not_called_not_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """review47: with the door gone and the daemon stopped (or its loop held), `rag`
    waited RESTARTING_RETRY_S and then said "not running (stale socket)" of a daemon
    that runs: now a timeout that says it runs and its socket did not come back."""
    from ragcli import zmtp
    from ragproto.errors import DaemonTimeout
    from ragproto.paths import private_socket

    monkeypatch.setattr(zmtp, "REFUSED_RETRY_S", 0.1)
    monkeypatch.setattr(zmtp, "RESTARTING_RETRY_S", 0.4)
    public = tmp_path / "ragd.sock"
    _stale(public)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as inner:
        inner.bind(str(private_socket(public)))
        inner.listen(64)
        with pytest.raises(DaemonTimeout) as raised:
            Connection(f"ipc://{public}")
    said = str(raised.value)
    assert said.startswith("ragd is running, but its socket at ") and "stale" not in said


def test_a_wait_that_ends_part_way_through_a_frame_leaves_it_whole(tmp_path: Path) -> None:
    """`rag mcp` waits for the daemon in short slices (to see its host's cancel between
    them): a slice that ended with half a frame read took its header with it, and the
    rest of the frame was read as a new one."""
    from ragcli.zmtp import GREETING
    from tests.support.fake_zmtp import ready

    path = tmp_path / "split.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    reply = b'{"v":1,"id":"x","ok":true,"kind":"final","data":{},"pending":0}'
    frame = bytes([0x00, len(reply)]) + reply
    rest = threading.Event()

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.sendall(GREETING + ready())
            conn.recv(4096)  # the client's greeting and READY (small: one read or two)
            conn.sendall(frame[:10])  # the header and a few bytes of the body
            rest.wait(10)
            conn.sendall(frame[10:])
            time.sleep(0.5)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    peer = DealerPeer(open_stream(f"ipc://{path}", 2), 2)
    try:
        with pytest.raises(TimeoutError):
            peer.recv(0.3)
        rest.set()
        assert peer.recv(2) == reply
    finally:
        peer.close()
        server.join(5)
        listener.close()


def test_a_reply_nested_deeper_than_the_json_reader_goes_is_one_protocol_error(
    tmp_path: Path,
) -> None:
    """attack77: a peer on the socket path answering with 100,000 `[` (valid JSON's start,
    a 100 KB frame, under the 1 MiB a reply may have) made Python's JSON reader raise
    RecursionError out of `protocol.decode`: a traceback from every `rag` command."""
    from ragcli.transport import Connection
    from ragproto.errors import ProtocolError
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    with (
        FakeZmtpServer(tmp_path / "f.sock", ready(), reply=b"[" * 100_000) as server,
        closing(Connection(server.address)) as connection,
        pytest.raises(ProtocolError, match=r"unreadable reply from ragd: .*nested too deeply"),
    ):
        connection.call("status", {}, 2)


def test_a_reply_nested_within_the_json_reader_but_past_any_reply_is_one_protocol_error(
    tmp_path: Path,
) -> None:
    """review77: a peer's reply nested 600 deep in `data` (valid JSON, under the ~1,000
    levels Python's reader takes) was read as a reply, and `rag`'s rendering of it
    (render.shown, two stack frames a level) was a RecursionError traceback from every
    command. protocol.decode now refuses a frame deeper than MAX_FRAME_DEPTH."""
    from ragcli.transport import Connection
    from ragproto import protocol
    from ragproto.errors import ProtocolError
    from tests.support.fake_zmtp import FakeZmtpServer, ready

    deep = b'{"v":1,"id":"x","ok":true,"kind":"final","data":{"x":' + b"[" * 600
    deep += b"]" * 600 + b'},"pending":0}'
    with pytest.raises(ValueError, match="nested too deeply"):
        protocol.decode(deep)
    at_limit = b"[" * (protocol.MAX_FRAME_DEPTH - 1) + b"]" * (protocol.MAX_FRAME_DEPTH - 1)
    assert protocol.decode(b'{"a":' + at_limit + b"}")["a"]
    with (
        FakeZmtpServer(tmp_path / "f.sock", ready(), reply=deep) as server,
        closing(Connection(server.address)) as connection,
        pytest.raises(ProtocolError, match=r"unreadable reply from ragd: .*nested too deeply"),
    ):
        connection.call("status", {}, 2)
