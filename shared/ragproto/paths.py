"""Where the daemon listens: one rule, shared by both sides.

`RAG_SOCKET` (an explicit ZeroMQ address such as ``ipc:///run/user/1000/ragd/ragd.sock``)
wins; otherwise ``ipc://$XDG_RUNTIME_DIR/ragd/ragd.sock``, falling back to
``/tmp/ragd-$UID/ragd.sock`` when there is no runtime directory. The daemon makes that
directory 0700 and the socket 0600 so only its user can connect (a folder named by an
explicit address keeps its own mode; see ``ragd.server.prepare_socket_dir``).
"""

from __future__ import annotations

import os
from pathlib import Path

SOCKET_ENV = "RAG_SOCKET"
SOCKET_NAME = "ragd.sock"


def default_socket_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "ragd"
    return Path(f"/tmp/ragd-{os.getuid()}")


def default_socket_address() -> str:
    return f"ipc://{default_socket_dir() / SOCKET_NAME}"


def socket_address(explicit: str | None = None) -> str:
    """The address to use: an explicit value, else $RAG_SOCKET, else the default."""
    if explicit:
        return normalize_address(explicit)
    env = os.environ.get(SOCKET_ENV)
    if env:
        return normalize_address(env)
    return default_socket_address()


def normalize_address(value: str) -> str:
    """Accept a bare filesystem path as shorthand for an ipc:// address."""
    if "://" in value:
        return value
    return f"ipc://{Path(value).expanduser().absolute()}"


def ipc_path(address: str) -> Path | None:
    """The socket file behind an ipc:// address, or None for other transports."""
    if address.startswith("ipc://"):
        return Path(address[len("ipc://") :])
    return None
