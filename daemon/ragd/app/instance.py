"""One daemon per data dir and per socket.

Two `fcntl` locks — ``<socket>.lock`` beside the socket, then ``<data dir>/ragd.lock`` — are
taken before anything is opened or bound (the socket's first, so a start refused for it
makes no data dir). The kernel drops a lock when its process dies,
however it dies, so a crash never leaves a stale lock; each lock file records its holder
(pid, socket, data dir) so a second daemon can name the running one. A socket *file*
proves nothing: one left by a `kill -9` is removed at bind. The socket lock also makes
the unlink safe — only the lock holder ever removes the file. A daemon from before the
socket lock (or one on another data dir that somehow holds no lock) is still caught by
probing the socket: a connection that is accepted means a live process, and
SO_PEERCRED says which. A start refused before it served (`Instance.abandon`) deletes the
lock files and folders it made, so nothing of it stays behind.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import socket
import stat
import struct
import time
from pathlib import Path
from typing import Any

from ragd.app.made_folders import MadeFolders
from ragd.core.layout import DataDir, socket_lock
from ragd.core.proc_stat import proc_stat
from ragproto.errors import AlreadyRunning, ConfigError
from ragproto.paths import ipc_path, others_link

log = logging.getLogger("ragd")


class Held(Exception):
    """The lock is held by another process; `holder` is what it recorded."""

    def __init__(self, holder: dict[str, Any]) -> None:
        super().__init__(holder)
        self.holder = holder


class InstanceLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self.made = False  # the file was not there before this lock took it

    @property
    def held(self) -> bool:
        return self._fd is not None

    def still_named(self) -> bool:
        """Whether the lock's path still leads to the file this lock holds (True when none
        is held). Not once the folder was moved away and copied back, replaced by a file,
        or the lock file deleted: the lock then guards nothing, and another daemon could
        take the name. A look that fails otherwise (the folder made unreadable, an I/O
        error) says nothing about where the name leads: True, not a crash."""
        if self._fd is None:
            return True
        try:
            return _names(self.path, self._fd)
        except NotADirectoryError:
            return False
        except OSError:
            return True

    def acquire(self, record: dict[str, Any]) -> None:
        """Take the lock without waiting and write `record` into it, or raise `Held`."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for _ in range(_ATTEMPTS):
            fd, made = open_lock_file(self.path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _read_holder(fd)
                os.close(fd)
                raise Held(holder) from None
            if _names(self.path, fd):
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(record).encode(), 0)
                self._fd, self.made = fd, made
                return
            # A refused start removed the file it had made (while holding it) after this
            # process opened it: the lock on that unlinked file guards nothing, so open
            # whatever the name holds now.
            os.close(fd)
        raise _replaced(self.path)

    def release(self, remove: bool = False) -> None:
        """Let the lock go; with `remove`, first delete its file if this lock made it
        (a refused start's litter). Deleted while still held, so nobody can hold the
        file being deleted: whoever opened it meanwhile finds the name gone (`_names`)."""
        if self._fd is None:
            return
        if remove and self.made and _names(self.path, self._fd):
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self.made = False
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None


_ATTEMPTS = 5  # lock files removed under us in a row before a start gives up


def _names(path: Path, fd: int) -> bool:
    """Whether `path` still names the file open as `fd`."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino)


# Opened without following a link and without waiting: the lock is truncated and written,
# so a link there (`--socket /tmp/x.sock` puts `x.sock.lock` in a shared folder) would
# have emptied the file it leads to, and a folder, a FIFO or /dev/null there ended
# `ragd serve` and `ragd reset` in a traceback (EISDIR; EINVAL from ftruncate).
_OPEN_FLAGS = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
# Made only if missing: whether this open made the file is then the kernel's answer, not
# a look before it (another start could make or remove the file in between). With O_EXCL
# a link at the name, even a dangling one, is EEXIST and never followed.
_MAKE_FLAGS = _OPEN_FLAGS | os.O_CREAT | os.O_EXCL
_NOT_A_LOCK = {errno.ELOOP: "a symbolic link", errno.EISDIR: "a folder"}


def open_lock_file(path: Path) -> tuple[int, bool]:
    """A descriptor of the regular file `path` (made 0600 if missing) and whether this
    call made it, or ConfigError naming what is there instead."""
    fd, made = _open_or_make(path)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise ConfigError(_lock_refusal(path, "a FIFO or a device", None))
    if st.st_uid != os.geteuid():
        # In a shared folder (`--socket /tmp/x.sock`) another user can make the lock
        # first: holding it, they made ragd report "another ragd (pid …)" with a pid and
        # text of their choosing; not holding it, they read what ragd wrote into it.
        os.close(fd)
        raise ConfigError(
            f"the lock file {path} belongs to uid {st.st_uid}, not to you (uid "
            f"{os.geteuid()}), so another user made it and could hold it or write what it "
            "says; remove it, or pass a --socket in a folder of your own"
        )
    return fd, made


def _open_or_make(path: Path) -> tuple[int, bool]:
    """Make `path`, or open what is there; a file removed between the two is made again."""
    for _ in range(_ATTEMPTS):
        fd = _os_open(path, _MAKE_FLAGS, FileExistsError)
        if fd is not None:
            return fd, True
        fd = _os_open(path, _OPEN_FLAGS, FileNotFoundError)
        if fd is not None:
            return fd, False
        # Removed (by a refused start that had made it) after the make found it.
    raise _replaced(path)


def _os_open(path: Path, flags: int, race: type[OSError]) -> int | None:
    """`os.open`, None for the `race` error, ConfigError for any other."""
    try:
        return os.open(path, flags, 0o600)
    except race:
        return None
    except OSError as exc:
        kind = _NOT_A_LOCK.get(exc.errno or 0)
        raise ConfigError(_lock_refusal(path, kind, exc)) from None


def _replaced(path: Path) -> ConfigError:
    return ConfigError(f"the lock file {path} keeps being replaced; start again")


def _lock_refusal(path: Path, kind: str | None, exc: OSError | None) -> str:
    if kind is None:
        return f"cannot open the lock file {path} ({exc.strerror if exc else 'unknown'})"
    return f"the lock file {path} is {kind}, not a file ragd made; remove it and start again"


def _read_holder(fd: int) -> dict[str, Any]:
    try:
        value = json.loads(os.pread(fd, 4096, 0).decode() or "{}")
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


class Instance:
    """Both locks of one daemon: `claim()` at start-up, `release()` at the very end, or
    `abandon()` when the start is refused before it served."""

    def __init__(self, data_dir: Path, socket_address: str) -> None:
        self.data_dir = data_dir
        self.socket_address = socket_address
        self.data_lock = InstanceLock(DataDir(data_dir).lock)
        path = ipc_path(socket_address)
        self.socket_lock = InstanceLock(socket_lock(path)) if path else None
        self.folders = MadeFolders()  # the socket's (noted by the caller) and the data dir's
        self._data_dir_mode: int | None = None  # an existing data dir's, before made private

    def claim(self) -> None:
        """The socket first, then the data dir: a start refused because a daemon already
        listens on the socket has made nothing yet. The data dir was made (with its lock
        file) before the socket was looked at, so `ragd serve --data-dir NEW --socket S`
        beside a running daemon on S exited 3 leaving NEW/ragd.lock behind; a data dir
        that already existed is now left as it was too (not even made private). A claim
        refused for the data dir takes back what it made for the socket (`abandon`)."""
        record = {
            "pid": os.getpid(),
            "socket": self.socket_address,
            "data_dir": str(self.data_dir),
            "started": time.time(),
        }
        try:
            self._claim_socket(record)
            with self.folders.making(self.data_dir):
                own_data_dir(self.data_dir)
            self._claim_data_dir(record)
            # Its mode is read and closed only under the lock, and put back (`abandon`)
            # only under it: two starts at once on a data dir of mode 755 did both before
            # it, so the one refused put back the 755 it had read after the other had
            # closed the folder, and the daemon that won served from a folder open to all.
            self._data_dir_mode = _folder_mode(self.data_dir)
            close_to_others(self.data_dir)
        except BaseException:
            self.abandon()
            raise

    def _claim_data_dir(self, record: dict[str, Any]) -> None:
        try:
            self.data_lock.acquire(record)
        except Held as exc:
            raise AlreadyRunning(
                f"another ragd ({_who(exc.holder, 'socket')}) is already using the data dir "
                f"{self.data_dir}; stop it first (`systemctl --user stop ragd`, or "
                f"`kill {exc.holder.get('pid', 'PID')}`) or pass a different --data-dir"
            ) from None

    def _claim_socket(self, record: dict[str, Any]) -> None:
        """The socket's lock, and no live process on the socket (a daemon from before the
        socket lock, or another user's listener), or AlreadyRunning / ConfigError."""
        try:
            if self.socket_lock is not None:
                self.socket_lock.acquire(record)
            pid = socket_peer_pid(self.socket_address)
            if pid is not None:
                raise Held({"pid": pid})
        except Held as exc:
            owner = _owner(ipc_path(self.socket_address))
            if owner is not None and owner != os.geteuid():
                # Not a ragd of ours to stop: in a shared folder (`--socket /tmp/x.sock`)
                # another user may listen on the name first.
                raise ConfigError(
                    f"the socket {self.socket_address} belongs to uid {owner}, not to you "
                    f"(uid {os.geteuid()}), and a process of theirs (pid "
                    f"{exc.holder.get('pid', '?')}) listens on it; pass a --socket in a "
                    "folder of your own"
                ) from None
            raise AlreadyRunning(
                f"another ragd ({_who(exc.holder, 'data_dir')}) is already listening on "
                f"{self.socket_address}; stop it first or pass a different --socket"
            ) from None

    def release(self) -> None:
        if self.socket_lock is not None:
            self.socket_lock.release()
        self.data_lock.release()

    def abandon(self) -> None:
        """A start refused before it served (the other lock held, the bind failed) leaves
        nothing it made: the lock files it created and the folders it made go, what was
        there before stays as it was. Before, `<socket>.lock`, a socket folder it had made
        and a new data dir holding `ragd.lock` were left behind."""
        mode, self._data_dir_mode = self._data_dir_mode, None
        if self.data_lock.held and mode is not None and _folder_mode(self.data_dir) != mode:
            # Still under the lock: a start that takes it next closes the folder again.
            with contextlib.suppress(OSError):  # a refused start does not keep it private
                os.chmod(self.data_dir, mode)
        self.data_lock.release(remove=True)
        if self.socket_lock is not None:
            self.socket_lock.release(remove=True)
        self.folders.remove()


def _folder_mode(path: Path) -> int | None:
    """The permission bits of the folder at `path`, or None when no folder is there."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) if stat.S_ISDIR(st.st_mode) else None


def unusable_data_dir(data_dir: Path, exc: OSError) -> str:
    """One line for a data dir that cannot be made or entered: `--data-dir` naming a file
    or a FIFO (mkdir says only "File exists"), a path under a file, a read-only place.
    Before, `ragd serve` and `ragd reset` printed the traceback of that OSError."""
    if os.path.lexists(data_dir) and not data_dir.is_dir():
        return f"the data dir {data_dir} is not a folder; pass a folder with --data-dir"
    return f"cannot use the data dir {data_dir} ({exc.strerror or exc}); pass another --data-dir"


def make_private(data_dir: Path) -> None:
    """Create the data dir 0700, or close one others can enter (with a log line); refuse
    one that belongs to another user."""
    own_data_dir(data_dir)
    close_to_others(data_dir)


def own_data_dir(data_dir: Path) -> None:
    """Create the data dir 0700, or refuse one that is no folder or belongs to another user."""
    if (link := others_link(data_dir)) is not None:
        # Its owner may point it anywhere at any time: the index was written into a folder
        # of the user's that they chose (made 700, beside the user's files), and pointing
        # it at a folder of theirs stopped the running daemon (attack73).
        raise ConfigError(
            f"the data dir {data_dir} is reached through {link[0]}, a symbolic link that "
            f"uid {link[1]} owns, not you (uid {os.geteuid()}), so its owner could point "
            "the index anywhere; pass a --data-dir of your own"
        )
    try:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = os.stat(data_dir)
    except OSError as exc:
        raise ConfigError(unusable_data_dir(data_dir, exc)) from None
    if st.st_uid != os.geteuid():
        # Its owner can rename, delete and replace what ragd writes in it (and set its mode
        # at will): a manifest or index of theirs would put their text in the answers. It
        # was only warned about when open to others, and passed in silence when not.
        raise ConfigError(
            f"the data dir {data_dir} belongs to uid {st.st_uid}, not to you (uid "
            f"{os.geteuid()}), so its owner could replace the index ragd answers from; "
            "pass a --data-dir of your own"
        )


def close_to_others(data_dir: Path) -> None:
    """Close a data dir others can enter, with a log line.

    The index holds the text of every document, including ones only this user may read;
    a data dir made under umask 022 (before ragd set its own) would show it to everyone.
    Closing the folder is enough: nothing inside can be reached through it any more.
    """
    try:
        mode = stat.S_IMODE(os.stat(data_dir).st_mode)
    except OSError as exc:
        raise ConfigError(unusable_data_dir(data_dir, exc)) from None
    if not mode & 0o077:
        return
    os.chmod(data_dir, mode & ~0o077)
    log.warning(
        "the data dir %s was open to other users (mode %o); made it %o so only you can "
        "read the index",
        data_dir,
        mode,
        mode & ~0o077,
    )


def _who(holder: dict[str, Any], also: str) -> str:
    """'pid 123, socket ipc://…' — the running daemon, by pid and its other resource."""
    pid = holder.get("pid")
    parts = [f"pid {pid}" if isinstance(pid, int) and pid > 0 else "pid unknown"]
    if holder.get(also):
        parts.append(f"{also.replace('_', ' ')} {holder[also]}")
    return ", ".join(parts)


def _owner(path: Path | None) -> int | None:
    """The uid owning the file at `path` (a link is not followed), or None if none is there."""
    try:
        return os.lstat(path).st_uid if path is not None else None
    except OSError:
        return None


def socket_peer_pid(address: str) -> int | None:
    """The pid of a live process accepting connections on this ipc socket, else None.

    No file, or a refused connection (a stale file from a crashed daemon), is None.
    """
    path = ipc_path(address)
    if path is None or not path.exists():
        return None
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    probe.settimeout(0.5)
    try:
        try:
            probe.connect(str(path))
        except OSError:
            return None  # ECONNREFUSED: nobody listens; the file is a leftover
        try:
            creds = probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        except OSError:
            return -1  # alive, but it would not say who it is
        pid = struct.unpack("3i", creds)[0]
        return daemon_of(pid) if pid > 0 else -1
    finally:
        probe.close()


def daemon_of(pid: int) -> int:
    """The daemon a listener belongs to: a door's parent (serve/door.py holds the socket
    in a process of its own), else the listener itself."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return pid
    stat = proc_stat(pid) if b"ragd.serve.door" in command else None
    return stat.ppid if stat is not None and stat.ppid > 1 else pid
