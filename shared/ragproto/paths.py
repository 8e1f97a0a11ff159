"""Where the daemon listens: one rule, shared by both sides.

`RAG_SOCKET` (an explicit ZeroMQ address such as ``ipc:///run/user/1000/ragd/ragd.sock``)
wins; otherwise ``ipc://$XDG_RUNTIME_DIR/ragd/ragd.sock``, falling back to
``/tmp/ragd-$UID/ragd.sock`` when there is no runtime directory. The daemon makes that
directory 0700 and the socket 0600 so only its user can connect (a folder named by an
explicit address keeps its own mode; see ``ragd.serve.server.prepare_socket_dir``).

Only two transports are spoken. ``ipc://PATH`` is guarded by those file modes; ``tcp://``
has no file modes, so ragd serves it only with ZeroMQ's CURVE security, with keys in
``curve_dir()`` (see ``ragd.serve.curve``). An abstract-namespace address (``ipc://@name``) is
refused by both sides: it has no file at all, so nothing would stop another local user.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ragproto.errors import BadAddress

SOCKET_ENV = "RAG_SOCKET"
SOCKET_NAME = "ragd.sock"
# A Unix socket's path lives in sockaddr_un.sun_path: 108 bytes on Linux, the last one its
# terminating NUL. A longer path can be neither bound nor connected to (libzmq and Python
# refuse it), so it is refused here, where both sides read an address, by its length.
MAX_SOCKET_PATH_BYTES = 107


def private_socket(path: Path) -> Path:
    """The name beside an ipc:// socket where the daemon itself listens: the process that
    holds the public socket (ragd's serve/door.py) relays to it. While that process is
    being replaced the public name refuses and this one accepts: the daemon is running."""
    return path.parent / f".{path.name}.d"


def daemon_beside(path: Path | None) -> str | None:
    """The daemon's private socket beside an ipc:// socket's path, as a client probes it
    (None for tcp://)."""
    return str(private_socket(path)) if path is not None else None


def default_socket_dir() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "ragd"
    return fallback_socket_dir()


def fallback_socket_dir() -> Path:
    """The folder used without a runtime directory. /tmp is shared: any local user may
    create this name first, so it is trusted only when `untrusted_folder` finds it ours."""
    return Path(f"/tmp/ragd-{os.getuid()}")


def is_ragd_folder(directory: Path) -> bool:
    """Whether `directory` is a folder ragd makes for itself (the runtime one or the
    fallback): the daemon makes it ours and 0700, so a client trusts it only when it is
    (`untrusted_folder`). The runtime one counts too: $XDG_RUNTIME_DIR may be a folder
    others can write to (``/tmp``, a shared sticky folder), where anyone can create
    ``ragd/`` first, exactly as in /tmp."""
    return directory in (fallback_socket_dir(), default_socket_dir())


def untrusted_folder(directory: Path) -> str | None:
    """Why this socket folder in a shared place cannot be trusted, or None when it is ours:
    a real folder (not a link), owned by us, mode exactly 0700 — so nobody else made it,
    can list it, or can put a socket of their own in it. Raises FileNotFoundError when
    it does not exist."""
    st = os.lstat(directory)
    if stat.S_ISLNK(st.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid != os.geteuid():
        return f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})"
    if stat.S_IMODE(st.st_mode) != 0o700:
        return f"has mode {stat.S_IMODE(st.st_mode):o}, not 700"
    return None


def others_link(path: Path) -> tuple[Path, int] | None:
    """The first symbolic link on `path` (the path itself included) that another user
    owns (root's are trusted), with its owner; None when there is none: the data dir's
    rule (ragd's app/instance.py) and the socket's, on both sides. In a shared
    sticky folder such as /tmp the kernel follows another user's link when
    `fs.protected_symlinks` is 0 (this machine's). A link of ours is followed to what it
    names, looked at the same way (review74: our `data` -> their `shared/ragd-data` ->
    a folder had passed, and they could point theirs anywhere). The path is resolved as
    the kernel resolves it, one name at a time, a link's target put in its place and `..`
    taken from the folder reached: each link followed once, at most SYMLINK_HOPS in all,
    past which the kernel reaches nothing (ELOOP). Following each link by walking its
    target's path afresh had followed the links above a relative target again: 2^n looks
    for n links of ours, `rag` hung on a socket path through 20 of them (review76)."""
    me = os.geteuid()
    path = path.absolute()
    reached = Path(path.anchor)
    pending = list(reversed(path.parts[1:]))  # the names still to walk, the next last
    followed = 0
    while pending:
        name = pending.pop()
        if name == "..":
            reached = reached.parent
            continue
        step = reached / name
        try:
            st = os.lstat(step)
        except OSError:
            return None  # nothing further exists yet: what is made is made by us
        if not stat.S_ISLNK(st.st_mode):
            reached = step
            continue
        if st.st_uid not in (me, 0):
            return step, st.st_uid
        followed += 1
        try:
            target = Path(os.readlink(step))
        except OSError:
            return None
        if followed > SYMLINK_HOPS:
            return None
        if target.is_absolute():
            reached = Path(target.anchor)
        pending.extend(reversed(target.parts[1:] if target.is_absolute() else target.parts))
    return None


SYMLINK_HOPS = 40  # Linux's limit on the links followed in resolving one path (ELOOP)


def through_others_link(what: str, path: Path) -> str | None:
    """The one line refusing `what` (the socket, its folder) when `path` passes through a
    link another user owns, or None: its owner may point it at a server of theirs at any
    moment, between a client's look at the socket and its connect too (attack75: 8 of 200
    `rag search` commands reached theirs while they flipped the link)."""
    link = others_link(path)
    if link is None:
        return None
    return (
        f"{what} {path} is reached through {link[0]}, a symbolic link that uid {link[1]} "
        f"owns, not you (uid {os.geteuid()}), so its owner could point it at a server of "
        "theirs; refusing it (pass --socket or set RAG_SOCKET to a path of your own)"
    )


def refusal(directory: Path, problem: str) -> str:
    """The one line both sides print for an untrusted socket folder: what, and the fix."""
    return (
        f"socket folder {directory} {problem}, so another user could have made it or could "
        "serve a fake ragd there; refusing it (set XDG_RUNTIME_DIR, or pass --socket / "
        "RAG_SOCKET with a path in a private folder)"
    )


def default_socket_address() -> str:
    return f"ipc://{default_socket_dir() / SOCKET_NAME}"


def check_default_address(address: str) -> str:
    """`address` unchanged, or BadAddress when it is the default and too long: the default
    is under $XDG_RUNTIME_DIR, which may be a deep folder. (Not checked inside
    `default_socket_address`, the settings' default, which must not raise.)"""
    path = ipc_path(address)
    if path is not None and address == default_socket_address():
        _check_length(path, "the default socket path (under $XDG_RUNTIME_DIR)")
    return address


def _check_length(path: Path, what: str) -> None:
    """Raise BadAddress for a socket path too long for sun_path, naming its length. Before,
    `rag` said "not running" (its stat found no file at a name nothing could bind) and
    `ragd serve` printed libzmq's own message."""
    size = len(os.fsencode(path))
    if size > MAX_SOCKET_PATH_BYTES:
        raise BadAddress(
            f"{what} {path} is {size} bytes long; a Unix socket path may be at most "
            f"{MAX_SOCKET_PATH_BYTES} bytes, so nothing can listen there: pass --socket or "
            "set RAG_SOCKET to a shorter path"
        )


def socket_address(explicit: str | None = None) -> str:
    """The address to use: an explicit value, else $RAG_SOCKET, else the default."""
    if explicit:
        return normalize_address(explicit)
    env = os.environ.get(SOCKET_ENV)
    if env:
        return normalize_address(env)
    return check_default_address(default_socket_address())


def normalize_address(value: str) -> str:
    """A checked address: a bare path means ipc://, a relative ipc path is made absolute
    (the daemon and the client may run in different folders); raises BadAddress for a
    transport ragd does not serve."""
    if "://" not in value:
        return _ipc_address(value)
    scheme, _, rest = value.partition("://")
    if scheme == "ipc":
        if rest.startswith("@"):
            raise BadAddress(
                f"{value}: abstract-namespace sockets have no file permissions, so any local "
                "user could connect; use a path (e.g. ipc://$XDG_RUNTIME_DIR/ragd/ragd.sock)"
            )
        if not rest:
            raise BadAddress(f"{value}: no socket path")
        return _ipc_address(rest)
    if scheme == "tcp":
        host, colon, port = rest.rpartition(":")
        number = port.isascii() and port.isdigit() and len(port) <= 5
        if not (colon and host and number and 0 < int(port) < 65536):
            # libzmq binds a port past 65535 modulo 65536 (99999 listened on 34463) and
            # says the address as given.
            raise BadAddress(f"{value}: use tcp://HOST:PORT, with a port from 1 to 65535")
        return value
    raise BadAddress(
        f"{value}: unsupported transport {scheme!r} (use a path, ipc://PATH or tcp://HOST:PORT)"
    )


def _ipc_address(value: str) -> str:
    """ipc:// and the absolute path (a relative one grows by the working folder's length)."""
    path = Path(value).expanduser().absolute()
    _check_length(path, "the socket path")
    return f"ipc://{path}"


def is_tcp(address: str) -> bool:
    return address.startswith("tcp://")


def read_small_file(path: Path, limit: int) -> bytes:
    """At most `limit` bytes of the regular file at `path`, read without ever waiting: a
    FIFO named like a key file made `rag` (and `ragd serve`) wait for a writer for ever, and
    a link to /dev/zero read without end. Anything but a regular file is an OSError whose
    strerror says what it is."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise OSError(errno.EINVAL, kind, str(path))
        return os.read(fd, limit)
    finally:
        os.close(fd)


def curve_dir() -> Path:
    """Where the CURVE keys for tcp:// live: ``$XDG_CONFIG_HOME/ragd/curve`` (0700)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ragd" / "curve"


def ipc_path(address: str) -> Path | None:
    """The socket file behind an ipc:// address, or None for other transports."""
    if address.startswith("ipc://"):
        return Path(address[len("ipc://") :])
    return None
