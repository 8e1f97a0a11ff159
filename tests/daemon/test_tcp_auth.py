"""tcp:// is served only with CURVE, and only the owner's key gets in (issue 10, item 1).

Before: `ragd serve --socket tcp://127.0.0.1:PORT` took requests from anyone who could
reach the port, so any local user could search, and `ingest` a folder only the daemon's
user could read, then read its text. Now a tcp:// daemon writes CURVE keys (0600, in a
0700 folder of the user's config dir) and its ZAP handler admits exactly the client key
it wrote. Shown here against a real daemon, through the real client:

- the owner's `rag` finds the keys and works over tcp://, `ingest` included;
- a plain ZMTP peer (no security), a CURVE peer with a key of its own, `rag` with a
  stranger's keys, and `rag` with no keys are all refused at the handshake — the daemon
  never answers them, so no request of theirs is ever read;
- another local user (a throwaway uid) can read none of the keys and is refused too;
- a daemon bound on every interface (tcp://0.0.0.0) is held to the same rule.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zmq

from ragcli import zmtp
from ragd.serve.server import Route, Server
from tests.support.daemon import BIN, Daemon
from tests.support.users import throwaway_user

REFUSED_WAIT_MS = 1500  # how long a refused peer waits for a reply that must not come


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(scope="module")
def tcp() -> Iterator[Daemon]:
    tmp = Path(tempfile.mkdtemp(prefix="ragd-tcp-"))
    tmp.chmod(0o755)  # others may pass through: only ragd's own modes stand in their way
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "ferry.md").write_text("# Ferry\n\nThe wombatferry sails at noon.\n")
    secret = tmp / "secret"
    secret.mkdir(mode=0o700)
    (secret / "diary.md").write_text("# Diary\n\nThe private marmotcipher is 4417.\n")
    (secret / "diary.md").chmod(0o600)
    daemon = Daemon(tmp, [docs])
    address = f"tcp://127.0.0.1:{free_port()}"
    daemon.socket = address  # type: ignore[assignment]  # str() is all it needs
    daemon.env["RAG_SOCKET"] = address
    # The test's own client (daemon.call) reads the keys from the daemon user's config dir.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", daemon.env["XDG_CONFIG_HOME"])
        daemon.start()
        try:
            daemon.wait_idle()
            yield daemon
        finally:
            daemon.stop()
            shutil.rmtree(tmp, ignore_errors=True)


def curve_folder(daemon: Daemon) -> Path:
    return Path(daemon.env["XDG_CONFIG_HOME"]) / "ragd" / "curve"


def curve_client(address: str, server_public: bytes, pair: tuple[bytes, bytes]) -> Any:
    """A pyzmq CURVE DEALER; returns (socket, the handshake's outcome event)."""
    from zmq.utils.monitor import recv_monitor_message

    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.CURVE_SERVERKEY, server_public)
    sock.setsockopt(zmq.CURVE_PUBLICKEY, pair[0])
    sock.setsockopt(zmq.CURVE_SECRETKEY, pair[1])
    monitor = sock.get_monitor_socket()
    sock.connect(address)
    outcome = None
    while outcome is None and monitor.poll(20_000):
        event = recv_monitor_message(monitor)["event"]
        if event in (zmq.EVENT_HANDSHAKE_SUCCEEDED, zmq.EVENT_HANDSHAKE_FAILED_AUTH):
            outcome = event
    sock.disable_monitor()
    monitor.close(linger=0)
    return sock, outcome


def answered(sock: Any) -> bool:
    """Does a ping get a reply? (A refused DEALER may have no pipe to send on at all.)"""
    try:
        sock.send(json.dumps({"v": 1, "id": "t", "op": "ping"}).encode(), zmq.NOBLOCK)
    except zmq.Again:
        return False
    return bool(sock.poll(REFUSED_WAIT_MS))


def test_keys_are_private_and_the_owners_client_works(tcp: Daemon) -> None:
    folder = curve_folder(tcp)
    assert mode(folder) == 0o700
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["client.public", "client.secret", "server.public", "server.secret"]
    assert {mode(folder / name) for name in names} == {0o600}
    found = tcp.rag("search", "wombatferry")
    assert found.returncode == 0 and "ferry.md" in found.stdout, found.stderr
    added = tcp.rag("ingest", str(tcp.tmp / "secret"), "--no-wait")  # the owner may
    assert added.returncode == 0 and "watching new root secret" in added.stderr, added.stderr
    tcp.wait_searchable("marmotcipher", "secret/diary.md", timeout=120)


def test_clients_without_the_key_are_refused_at_the_handshake(tcp: Daemon) -> None:
    address = str(tcp.socket)
    folder = curve_folder(tcp)
    server_public = (folder / "server.public").read_bytes().strip()
    # 1. No security at all: the client's own ZMTP peer, speaking NULL.
    with pytest.raises((OSError, zmtp.ZmtpError)):
        stream = zmtp.open_stream(address, 5)
        try:
            zmtp.DealerPeer(stream, 5)
        finally:
            stream.close()
    # 2. CURVE with the right server key but a client key of its own.
    stranger = zmq.curve_keypair()
    sock, outcome = curve_client(address, server_public, stranger)
    try:
        assert outcome == zmq.EVENT_HANDSHAKE_FAILED_AUTH
        assert not answered(sock)  # nothing it sends is ever read
    finally:
        sock.close(linger=0)
    # Control: the same code with the owner's client key is answered.
    owner = tuple((folder / n).read_bytes().strip() for n in ("client.public", "client.secret"))
    sock, outcome = curve_client(address, server_public, owner)  # type: ignore[arg-type]
    try:
        assert outcome == zmq.EVENT_HANDSHAKE_SUCCEEDED and answered(sock)
    finally:
        sock.close(linger=0)
    # 3. `rag` with a stranger's keys, and with none: one clear line each.
    elsewhere = tcp.tmp / "stranger-config"
    keys = {"server.public": server_public, "client.public": stranger[0]}
    keys["client.secret"] = stranger[1]
    (elsewhere / "ragd" / "curve").mkdir(parents=True)
    for name, key in keys.items():
        (elsewhere / "ragd" / "curve" / name).write_bytes(key)
        (elsewhere / "ragd" / "curve" / name).chmod(0o600)
    cases = {elsewhere: "refused this client's CURVE key", tcp.tmp / "none": "needs ragd's"}
    for config, expected in cases.items():
        out = subprocess.run(
            [str(BIN / "rag"), "search", "x"],
            env=tcp.env | {"XDG_CONFIG_HOME": str(config)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert out.returncode == 5 and out.stderr.count("\n") == 1, out.stderr
        assert expected in out.stderr and out.stdout == ""
    assert "refused a tcp client from 127.0.0.1" in tcp.log()
    tcp.assert_alive()


# The other user runs the client's own ZMTP peer under the system Python (the venv's
# lives under /root): it tries to read the keys, then to talk to ragd without them.
OTHER_USER_PROBE = (
    Path(zmtp.__file__).read_text(encoding="utf-8")
    + r"""
import json, sys
result = {}
try:
    open(sys.argv[2] + "/client.secret", "rb").read()
    result["read_key"] = "ok"
except OSError as exc:
    result["read_key"] = type(exc).__name__
try:
    peer = DealerPeer(open_stream(sys.argv[1], 20), 20)
    ingest = {"v": 1, "id": "x", "op": "ingest", "args": {"path": sys.argv[3]}}
    peer.send(json.dumps(ingest).encode())
    result["talk"] = json.loads(peer.recv(5))
except (OSError, ZmtpError, TimeoutError) as exc:
    result["talk"] = type(exc).__name__
print(json.dumps(result))
"""
)


def test_another_local_user_gets_neither_the_keys_nor_an_answer(tcp: Daemon) -> None:
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if python is None or python.startswith("/root"):
        pytest.skip("no system python3 that another user may run")
    folder = curve_folder(tcp)
    opened = [tcp.tmp / "home", tcp.tmp / "home" / ".config", folder.parent, folder]
    with throwaway_user() as (user, why):
        if user is None:
            pytest.skip(why)
        before = [mode(p) for p in opened]
        try:
            for path in opened:  # let them reach the files: only the files' 0600 is left
                path.chmod(0o755)
            out = subprocess.run(
                [python, "-c", OTHER_USER_PROBE, str(tcp.socket), str(folder), str(tcp.tmp)],
                capture_output=True,
                text=True,
                timeout=60,
                cwd="/",
                env={"PATH": "/usr/bin:/bin"},
                **user.popen_args(),  # type: ignore[arg-type]
            )
        finally:
            for path, was in zip(opened, before, strict=True):
                path.chmod(was)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["read_key"] == "PermissionError"
    assert result["talk"] in ("ConnectionResetError", "ZmtpError", "BrokenPipeError"), result
    tcp.assert_alive()


def test_every_interface_bind_needs_the_key_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tcp://0.0.0.0 (reachable from the network) takes the same CURVE path."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    port = free_port()
    server = Server(f"tcp://0.0.0.0:{port}", pending=lambda: 0)
    server.serve([Route("ping", "loop", lambda request: {"pong": True})])
    server.bind()
    stop = threading.Event()
    loop = threading.Thread(target=lambda: [server.poll_once(20) for _ in iter(stop.is_set, True)])
    loop.start()
    try:
        folder = tmp_path / "config" / "ragd" / "curve"
        server_public = (folder / "server.public").read_bytes().strip()
        owner = tuple((folder / n).read_bytes().strip() for n in ("client.public", "client.secret"))
        address = f"tcp://127.0.0.1:{port}"
        sock, outcome = curve_client(address, server_public, zmq.curve_keypair())
        assert outcome == zmq.EVENT_HANDSHAKE_FAILED_AUTH and not answered(sock)
        sock.close(linger=0)
        sock, outcome = curve_client(address, server_public, owner)  # type: ignore[arg-type]
        assert outcome == zmq.EVENT_HANDSHAKE_SUCCEEDED and answered(sock)
        sock.close(linger=0)
    finally:
        stop.set()
        loop.join(10)
        server.close()
