"""A socket path too long for a Unix socket is named as too long, by both sides.

sockaddr_un.sun_path holds 107 bytes of path on Linux. Before: `rag --socket LONG` said
"ragd is not running (no socket at …)", which sends the user to start a daemon that can
never listen there, and `ragd serve --socket LONG` printed libzmq's message about
`zmq.IPC_PATH_MAX_LEN`. A deep `$XDG_RUNTIME_DIR` makes the default path too long the same
way.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragproto.errors import BadAddress
from ragproto.paths import MAX_SOCKET_PATH_BYTES, normalize_address
from tests.support.commands import run
from tests.support.daemon import BIN, base_env


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A folder with a short path: pytest's own (named after the test, under its worker's
    folder) can alone be longer than a socket path may be."""
    folder = Path(tempfile.mkdtemp(prefix="ragd-sp-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _path_of_bytes(base: Path, size: int) -> Path:
    """A path under `base` exactly `size` bytes long (its folder made)."""
    folder = base / ("d" * 40)
    folder.mkdir(parents=True, exist_ok=True)
    name = "s" * (size - len(os.fsencode(folder)) - 1)
    path = folder / name
    assert len(os.fsencode(path)) == size
    return path


def test_the_limit_is_the_kernels(short_tmp: Path) -> None:
    longest = _path_of_bytes(short_tmp, MAX_SOCKET_PATH_BYTES)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(longest))  # the longest path the kernel takes
    assert normalize_address(str(longest)) == f"ipc://{longest}"
    too_long = _path_of_bytes(short_tmp, MAX_SOCKET_PATH_BYTES + 1)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock, pytest.raises(OSError):
        sock.bind(str(too_long))
    with pytest.raises(BadAddress, match="108 bytes long"):
        normalize_address(f"ipc://{too_long}")


def test_a_long_socket_path_is_named_by_rag_and_ragd(tmp_path: Path, short_tmp: Path) -> None:
    env = base_env(tmp_path)
    long_path = _path_of_bytes(short_tmp, 140)
    for argv in (
        [BIN / "rag", "--socket", long_path, "status"],
        [BIN / "ragd", "serve", "--data-dir", tmp_path / "data", "--socket", long_path],
    ):
        out = run(argv, env, cwd=tmp_path)
        assert out.returncode == 2, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
        assert "140 bytes long" in out.stderr and "not running" not in out.stderr
    out = run([BIN / "rag", "status"], env | {"RAG_SOCKET": str(long_path)}, cwd=tmp_path)
    assert out.returncode == 2 and "140 bytes long" in out.stderr, out.stderr
    # A relative path grows by the working folder's length.
    deep = long_path.parent
    out = run([BIN / "rag", "--socket", long_path.name, "status"], env, cwd=deep)
    assert out.returncode == 2 and "140 bytes long" in out.stderr, out.stderr


def test_a_deep_runtime_folder_is_named_for_the_default_socket(
    tmp_path: Path, short_tmp: Path
) -> None:
    runtime = _path_of_bytes(short_tmp, 110)
    runtime.mkdir(mode=0o700)
    env = base_env(tmp_path) | {"XDG_RUNTIME_DIR": str(runtime)}
    env.pop("RAG_SOCKET", None)
    for argv in (
        [BIN / "rag", "status"],
        [BIN / "ragd", "serve", "--data-dir", tmp_path / "data"],
    ):
        out = run(argv, env, cwd=tmp_path)
        assert out.returncode == 2, out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
        assert "default socket path" in out.stderr and "bytes long" in out.stderr


@pytest.mark.parametrize(
    "address",
    ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "tcp://127.0.0.1", "tcp://:5555",
     "tcp://127.0.0.1:５５５５", "tcp://127.0.0.1:" + "9" * 5000, "tcp://127.0.0.1:*"],
)  # fmt: skip
def test_a_tcp_port_out_of_range_is_refused_not_wrapped(address: str) -> None:
    """attack48: libzmq bound tcp://127.0.0.1:99999 on port 34463 (modulo 65536), and the
    daemon announced 99999; both addresses reached it."""
    with pytest.raises(BadAddress, match="port from 1 to 65535"):
        normalize_address(address)
    assert normalize_address("tcp://127.0.0.1:65535") == "tcp://127.0.0.1:65535"
    assert normalize_address("tcp://[::1]:5555") == "tcp://[::1]:5555"
