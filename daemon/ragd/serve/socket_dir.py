"""The socket's folder: made or checked so that only the daemon's user can reach or
replace the socket in it. The daemon checks it at start before its lock file goes in it;
the door (serve/door.py) checks it again each time it binds, since the folder may have
been replaced while the daemon ran."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ragproto.errors import ConfigError
from ragproto.paths import (
    default_socket_dir,
    fallback_socket_dir,
    refusal,
    through_others_link,
    untrusted_folder,
)


def prepare_socket_dir(path: Path) -> None:
    """Make sure only we can reach or replace the socket, and clear a stale socket file."""
    secure_socket_dir(path.parent)
    if path.exists() or path.is_symlink():
        path.unlink()


def secure_socket_dir(directory: Path) -> None:
    """Create or check the socket's folder; raises ConfigError naming the folder and fix.

    Runs before the instance lock is taken, since that lock file lives in this folder.
    A folder reached through another user's link is refused before anything is made in
    it: they could point the link at a folder of theirs at any moment."""
    if (problem := through_others_link("the socket folder", directory)) is not None:
        raise ConfigError(problem)
    if directory == fallback_socket_dir():
        make_fallback_dir(directory)
    else:
        check_chosen_dir(directory)


def make_fallback_dir(directory: Path) -> None:
    """/tmp/ragd-UID, made safely: another user may have created the name first (with a
    server of theirs inside), so it is used only when `untrusted_folder` finds it ours.
    ``mkdir`` makes it 0700 at birth; the umask can only take bits away, so a folder we
    just made (ours, not a link: checked with lstat, and /tmp's sticky bit stops anyone
    swapping it) is set to exactly 0700. An existing one is never re-moded."""
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    else:
        st = os.lstat(directory)
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
            os.chmod(directory, 0o700)
    problem = untrusted_folder(directory)
    if problem:
        raise ConfigError(refusal(directory, problem))


def check_chosen_dir(directory: Path) -> None:
    """A runtime-dir folder, or the folder of an explicit --socket / RAG_SOCKET.

    ragd's own directory — the default one, or any it creates now — is made 0700. A
    directory the user already had (``--socket ~/x.sock``, ``/tmp/x.sock``) keeps its
    mode: ragd never loosens or tightens someone else's folder (``chmod 700 /tmp`` would
    break every other program). Such a folder is accepted when only we can write to it, or
    when it is sticky like /tmp (nobody else can remove or replace our socket there, and
    the socket itself is 0600). A directory of another user, a symbolic link, or a folder
    others may write to without the sticky bit would let someone else reach or replace
    the socket, so start-up refuses it."""
    created = not os.path.lexists(directory)
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(directory)
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"socket directory {directory} is not a directory; refusing it")
    ours = st.st_uid == os.geteuid()
    sticky = bool(st.st_mode & stat.S_ISVTX)
    managed = created or directory == default_socket_dir()  # ragd's own folder
    if not ours and (managed or not (sticky and st.st_uid == 0)):
        # e.g. someone squatted /tmp/ragd-UID first; a root-owned sticky /tmp is fine
        raise ConfigError(
            f"socket directory {directory} belongs to uid {st.st_uid}, not to us "
            f"(uid {os.geteuid()}); refusing to listen there"
        )
    if managed:
        os.chmod(directory, 0o700)
    elif st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not sticky:
        raise ConfigError(
            f"socket directory {directory} is writable by other users (mode "
            f"{stat.S_IMODE(st.st_mode):o}), so they could replace the socket; refusing it "
            "(use a private folder, or leave --socket unset for the default)"
        )
