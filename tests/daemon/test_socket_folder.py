"""The shared fallback socket folder (/tmp/ragd-UID) and socket paths that name no socket.

Without $XDG_RUNTIME_DIR both sides fall back to /tmp/ragd-UID, a name any local user can
create first. These tests play that attack with real second users (tests/support/users.py):
an attacker's folder holding a server that would answer the victim's question. Both the
client and the daemon must refuse such a folder in one line that names it and the fix.
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

import pytest
import zmq

from ragd.serve.socket_dir import make_fallback_dir
from ragproto import protocol
from ragproto.errors import ConfigError
from tests.support.daemon import BIN, REPO, Daemon
from tests.support.users import User, planted_link, throwaway_user

SYSTEM_PYTHON = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
# `rag` run by another user: the system Python on this worktree's client and contract
# (standard library only; the venv's interpreter lives under /root, out of their reach).
CLIENT = "import sys; from ragcli.main import main; main(sys.argv[1:])"


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def rag_as(
    user: User, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    assert SYSTEM_PYTHON is not None
    base = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO / 'client'}:{REPO / 'shared'}"}
    return subprocess.run(
        [SYSTEM_PYTHON, "-c", CLIENT, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env=base | (env or {}),
        **user.popen_args(),  # type: ignore[arg-type]
    )


# What the victim's `rag` imports: every folder above them must be enterable by others.
CLIENT_SOURCES = (
    REPO / "client" / "ragcli" / "main.py",
    REPO / "shared" / "ragproto" / "protocol.py",
)


@pytest.fixture
def users() -> Iterator[tuple[User, User]]:
    """(victim, attacker): two fresh local users."""
    if SYSTEM_PYTHON is None or SYSTEM_PYTHON.startswith("/root"):
        pytest.skip("no system python3 that another user may run")
    with throwaway_user() as (victim, why), throwaway_user() as (attacker, _):
        if victim is None or attacker is None:
            pytest.skip(why)
        yield victim, attacker


@pytest.fixture
def client_users(users: tuple[User, User]) -> tuple[User, User]:
    """`users`, once the victim is known to be able to read this checkout's client.

    A checkout inside a private folder (a `mktemp -d` clone is 0700) cannot be read by
    another user, so `rag` could not even start as the victim: checked here, by the
    victim itself (root's own access checks would pass), so such a run skips and says why.
    """
    victim, _ = users
    for source in CLIENT_SOURCES:
        readable = subprocess.run(["test", "-r", str(source)], **victim.popen_args())  # type: ignore[call-overload]
        if readable.returncode != 0:
            pytest.skip(
                f"another local user cannot read {source}: the checkout sits in a folder "
                "closed to other users (mode 0700?), so `rag` cannot run as the second user"
            )
    return users


class FakeRagd:
    """A ZeroMQ ROUTER on a socket anyone may connect to, answering every request with
    its own error line: the server an attacker would run in a squatted folder."""

    ANSWER = "the attacker's answer"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.received: list[dict[str, object]] = []
        self._context = zmq.Context()
        self._router = self._context.socket(zmq.ROUTER)
        self._router.setsockopt(zmq.LINGER, 0)
        self._router.bind(f"ipc://{path}")
        os.chmod(path, 0o666)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            if not self._router.poll(50):
                continue
            identity, frame = self._router.recv_multipart()
            request = json.loads(frame)
            self.received.append(request)
            reply = protocol.error_reply(request["id"], "internal", self.ANSWER, 0)
            self._router.send_multipart([identity, protocol.encode(dict(reply))])

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._router.close(0)
        self._context.term()


def test_the_client_refuses_a_fallback_folder_another_user_made(
    client_users: tuple[User, User],
) -> None:
    victim, attacker = client_users
    folder = Path(f"/tmp/ragd-{victim.uid}")
    assert not os.path.lexists(folder)  # a fresh uid: nobody has this name yet
    # The attacker makes the victim's fallback folder first and opens it to everyone.
    made = subprocess.run(
        ["mkdir", "-m", "0755", str(folder)],
        capture_output=True,
        **attacker.popen_args(),  # type: ignore[arg-type]
    )
    assert made.returncode == 0, made.stderr
    fake = FakeRagd(folder / "ragd.sock")
    try:
        refused = rag_as(victim, "ask", "what is my bank's PIN policy?")
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in refused.stderr
        assert str(folder) in lines[0] and f"belongs to uid {attacker.uid}" in lines[0]
        assert "XDG_RUNTIME_DIR" in lines[0] and "--socket" in lines[0]
        assert FakeRagd.ANSWER not in refused.stdout + refused.stderr
        assert fake.received == []
        # Control: the same folder, made the victim's own (0700), and the very same
        # client reaches the server in it — so the refusal above is what protected it.
        os.chown(folder, victim.uid, victim.gid)
        os.chown(folder / "ragd.sock", victim.uid, victim.gid)
        folder.chmod(0o700)
        reached = rag_as(victim, "ask", "what is my bank's PIN policy?")
        assert FakeRagd.ANSWER in reached.stderr
        assert [r["op"] for r in fake.received] == ["ask"]
    finally:
        fake.close()
        shutil.rmtree(folder, ignore_errors=True)


# A runtime folder others may write to ($XDG_RUNTIME_DIR=/tmp, a shared sticky folder):
# the `ragd` folder in it is as open to squatting as /tmp/ragd-UID (found by attack).
def test_the_client_refuses_a_runtime_ragd_folder_another_user_made(
    client_users: tuple[User, User], tmp_path: Path
) -> None:
    victim, attacker = client_users
    # Directly under /tmp, so both users can reach it.
    runtime = Path(tempfile.mkdtemp(prefix="ragd-shared-runtime-", dir="/tmp"))
    runtime.chmod(0o1777)  # world-writable and sticky, like /tmp
    folder = runtime / "ragd"
    made = subprocess.run(
        ["mkdir", "-m", "0755", str(folder)],
        capture_output=True,
        **attacker.popen_args(),  # type: ignore[arg-type]
    )
    assert made.returncode == 0, made.stderr
    fake = FakeRagd(folder / "ragd.sock")
    try:
        env = {"XDG_RUNTIME_DIR": str(runtime)}
        refused = rag_as(victim, "ask", "what is my bank's PIN policy?", env=env)
        assert FakeRagd.ANSWER not in refused.stdout + refused.stderr
        assert fake.received == []
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and str(folder) in lines[0], refused.stderr
        assert f"belongs to uid {attacker.uid}" in lines[0]
        # Control: the folder made the victim's own (0700) is reached by the same client.
        os.chown(folder, victim.uid, victim.gid)
        os.chown(folder / "ragd.sock", victim.uid, victim.gid)
        folder.chmod(0o700)
        reached = rag_as(victim, "ask", "what is my bank's PIN policy?", env=env)
        assert FakeRagd.ANSWER in reached.stderr
    finally:
        fake.close()
        shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.parametrize("problem", ["mode 755", "symbolic link"])
def test_the_client_refuses_its_own_folder_when_not_private(
    client_users: tuple[User, User], problem: str, tmp_path: Path
) -> None:
    victim, _ = client_users
    folder = Path(f"/tmp/ragd-{victim.uid}")
    try:
        if problem == "mode 755":
            folder.mkdir(mode=0o755)
            folder.chmod(0o755)
            os.chown(folder, victim.uid, victim.gid)
            expected = "has mode 755, not 700"
        else:
            os.symlink("/tmp", folder)
            os.lchown(folder, victim.uid, victim.gid)
            expected = "is a symbolic link"
        refused = rag_as(victim, "status")
        assert refused.returncode == 2
        assert refused.stderr.count("\n") == 1 and expected in refused.stderr
        assert str(folder) in refused.stderr
    finally:
        if folder.is_symlink():
            folder.unlink()
        else:
            shutil.rmtree(folder, ignore_errors=True)


def test_a_socket_in_a_folder_the_user_cannot_enter_is_one_line(
    client_users: tuple[User, User], tmp_path: Path
) -> None:
    victim, _ = client_users
    private = Path(f"/tmp/ragd-test-{os.getpid()}")  # root's own 0700 folder
    private.mkdir(mode=0o700)
    try:
        result = rag_as(victim, "status", env={"RAG_SOCKET": str(private / "ragd.sock")})
        assert result.returncode == 5, result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert "may not enter its folder" in result.stderr
    finally:
        private.rmdir()


@pytest.mark.parametrize(
    ("target", "kind"),
    [("file", "a regular file"), ("folder", "a folder"), ("/dev/zero", "a character device")],
)
def test_a_socket_path_that_names_no_socket_says_what_it_is(
    tmp_path: Path, target: str, kind: str
) -> None:
    if target == "file":
        path = tmp_path / "notes.txt"
        path.write_text("not a socket\n")
    elif target == "folder":
        path = tmp_path
    else:
        path = Path(target)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "RAG_SOCKET": str(path)}
    result = subprocess.run(
        [str(BIN / "rag"), "status"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 2
    assert result.stderr == (
        f"rag: {path} is {kind}, not ragd's socket; set RAG_SOCKET or --socket to the path "
        "ragd listens on\n"
    )
    assert "stale" not in result.stderr


# -- the daemon's side ------------------------------------------------------------------
def test_the_daemon_makes_the_fallback_folder_private(tmp_path: Path) -> None:
    folder = tmp_path / "made"
    previous = os.umask(0o277)  # would make it 0500: the daemon could not even bind
    try:
        make_fallback_dir(folder)
    finally:
        os.umask(previous)
    assert mode(folder) == 0o700 and os.lstat(folder).st_uid == os.geteuid()
    folder.chmod(0o755)  # an existing folder is checked, never re-moded
    with pytest.raises(ConfigError, match="has mode 755, not 700"):
        make_fallback_dir(folder)
    assert mode(folder) == 0o755


def test_the_daemon_refuses_a_fallback_folder_another_user_made(
    users: tuple[User, User], tmp_path: Path
) -> None:
    _, attacker = users
    folder = Path(f"/tmp/ragd-{os.getuid()}")
    if os.path.lexists(folder):
        pytest.skip(f"{folder} exists (a real ragd of this user?); not touching it")
    root = tmp_path / "docs"
    root.mkdir()
    daemon = Daemon(tmp_path, [root])
    daemon.socket = folder / "ragd.sock"
    daemon.env["RAG_SOCKET"] = str(daemon.socket)
    daemon.env.pop("XDG_RUNTIME_DIR")
    try:
        made = subprocess.run(["mkdir", "-m", "0777", str(folder)], **attacker.popen_args())  # type: ignore[arg-type]
        assert made.returncode == 0
        daemon.start(wait=False)
        assert daemon.wait_exit(60) == 1
        log = daemon.log()
        assert f"socket folder {folder} belongs to uid {attacker.uid}" in log
        assert "XDG_RUNTIME_DIR" in log and "Traceback" not in log
        assert os.listdir(folder) == []  # not even the lock file was made in it
        # Control: with no folder there, the daemon makes its own, 0700, and listens.
        folder.rmdir()
        daemon.start(wait=False)
        daemon.wait_log("listening on")
        assert mode(folder) == 0o700 and os.lstat(folder).st_uid == os.geteuid()
        assert stat.S_ISSOCK(os.lstat(daemon.socket).st_mode)
        daemon.stop()
    finally:
        if daemon.proc is not None and daemon.proc.poll() is None:
            daemon.proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


def test_the_client_refuses_a_socket_another_user_made(client_users: tuple[User, User]) -> None:
    """`RAG_SOCKET=/tmp/x.sock` (a sticky folder, accepted by design): while the daemon is
    stopped the name is free, so another user can bind their own server there first; the
    client must not talk to a socket that is not its user's (found by attack)."""
    victim, attacker = client_users
    shared = Path(tempfile.mkdtemp(prefix="ragd-shared-", dir="/tmp"))
    shared.chmod(0o1777)  # sticky and world-writable, like /tmp
    path = shared / "victim.sock"
    fake = FakeRagd(path)
    try:
        os.chown(path, attacker.uid, attacker.gid)  # bound by the attacker
        env = {"RAG_SOCKET": str(path)}
        refused = rag_as(victim, "ask", "what is my bank's PIN policy?", env=env)
        assert FakeRagd.ANSWER not in refused.stdout + refused.stderr
        assert fake.received == []
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and str(path) in lines[0], refused.stderr
        assert f"belongs to uid {attacker.uid}" in lines[0]
        # Control: the same socket, the victim's own, is reached by the same client.
        os.chown(path, victim.uid, victim.gid)
        reached = rag_as(victim, "ask", "what is my bank's PIN policy?", env=env)
        assert FakeRagd.ANSWER in reached.stderr
    finally:
        fake.close()
        shutil.rmtree(shared, ignore_errors=True)


def test_a_socket_reached_through_another_users_link_is_refused_by_both_sides(
    tmp_path: Path,
) -> None:
    """attack75: in a sticky shared folder (fs.protected_symlinks = 0 here) another user
    planted `rund` -> a folder of ours. Before: `ragd serve --socket shared/rund/run/s.sock`
    made `run` in our folder and served there, and `rag` connected through the link; the
    link's owner, flipping it between our folder and one of theirs holding their own
    server, had 8 of 200 `rag search` commands connect to theirs (the client's look at the
    socket's owner and its connect are two calls, the link read afresh by each). Now both
    sides refuse a socket path through another user's link in one line, as the data dir's."""
    if os.geteuid() != 0:
        pytest.skip("giving a link to another uid needs root")
    ours, link = planted_link(tmp_path, "rund")
    socket_path = link / "run" / "s.sock"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    # A data dir that is a file: a start that got past the socket would stop there.
    (tmp_path / "d").write_text("not a folder\n")
    served = subprocess.run(
        [BIN / "ragd", "serve", tmp_path, "--data-dir", tmp_path / "d", "--socket", socket_path],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert served.returncode != 0 and served.stderr.count("\n") == 1, served.stderr
    assert f"{link}, a symbolic link that uid 54321 owns" in served.stderr, served.stderr
    assert list(ours.iterdir()) == []  # nothing made in the folder the link leads to
    # A socket of ours behind the link (as a daemon started before the link was planted
    # would have): the client refuses the path before it connects.
    (ours / "run").mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(ours / "run" / "s.sock"))
    listener.listen(8)
    listener.setblocking(False)
    try:
        asked = subprocess.run(
            [str(BIN / "rag"), "status"],
            capture_output=True,
            text=True,
            env=env | {"RAG_SOCKET": str(socket_path)},
            timeout=60,
        )
        with pytest.raises(BlockingIOError):
            listener.accept()  # no connection came
    finally:
        listener.close()
    assert asked.returncode == 2, asked.stderr
    assert asked.stderr.count("\n") == 1
    assert f"{link}, a symbolic link that uid 54321 owns" in asked.stderr, asked.stderr
