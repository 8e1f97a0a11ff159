"""Line editing and a question history for `rag chat` (readline, imported only by chat).

The history lives in the user's state directory ($XDG_STATE_HOME/ragd/chat_history, else
~/.local/state/ragd/chat_history), private to the user: questions can be sensitive.
Without a terminal, or without a usable readline, chat works as before with no history.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from pathlib import Path

HISTORY_LINES = 1000


def history_path() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(state) / "ragd" / "chat_history"


def enable() -> Path | None:
    """Turn on line editing and load the history; its path, or None when there is none."""
    if not sys.stdin.isatty():
        return None
    try:
        import readline
    except ImportError:  # a Python built without it: plain input() still works
        return None
    path = history_path()
    readline.set_history_length(HISTORY_LINES)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        problem = _not_our_folder(path.parent)
        if problem is None and not os.path.lexists(path):
            # A new file of ours: O_NOFOLLOW and O_EXCL never create one through a link.
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        elif problem is None:
            problem = _not_a_history_file(path)
        if problem:
            print(f"rag: {problem}; no question history in this chat", file=sys.stderr)
            return None
        readline.read_history_file(path)
    except OSError:
        return None  # an unwritable home: line editing still works, for this session only
    return path


MAX_HISTORY_BYTES = 16 << 20  # 1,000 lines of at most 4,096 characters fit easily


def _not_our_folder(folder: Path) -> str | None:
    """Why the history's folder is not safe to keep it in, or None. With XDG_STATE_HOME in
    a shared place (/tmp) another user could make `ragd/` first: they could then put a
    link or a file of theirs at the history's name at any moment, and readline, which
    writes by name, would write the questions through it. A link there (the folder kept
    elsewhere) is judged as the link (ours) and as the folder it names: a link's own mode
    is always 777, and judging it alone refused every such folder (review22)."""
    st = folder.lstat()
    if st.st_uid != os.geteuid():
        return f"the folder {folder} belongs to uid {st.st_uid}, not to you"
    if stat.S_ISLNK(st.st_mode):
        st = folder.stat()
        if st.st_uid != os.geteuid():
            return f"the folder {folder} leads to a folder of uid {st.st_uid}, not yours"
    if st.st_mode & stat.S_IWOTH:  # (group write is common and harmless: a group of one)
        return f"the folder {folder} may be written by any user (mode {st.st_mode & 0o777:o})"
    return None


def _not_a_history_file(path: Path) -> str | None:
    """Why the history file at `path` must not be read or written, or None. readline opens
    it by name and reads it whole: a FIFO there held `rag chat` before its first prompt
    (waiting for a writer), and a link to /dev/zero read without end. A name another user
    put there (a link to a file of ours: readline wrote every question into it) is not
    ours to use."""
    owner = path.lstat().st_uid
    if owner != os.geteuid():
        return f"the chat history {path} belongs to uid {owner}, not to you"
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        return f"the chat history {path} is not a regular file"
    if st.st_size > MAX_HISTORY_BYTES:
        return f"the chat history {path} is over {MAX_HISTORY_BYTES >> 20} MiB"
    return None


def save(path: Path | None) -> None:
    """Write the history after each line (so a crash or a closed terminal keeps it); at
    most HISTORY_LINES lines, the newest."""
    if path is None:
        return
    import readline

    with contextlib.suppress(OSError):  # full disk or a vanished folder: the chat goes on
        readline.write_history_file(path)


def forget_last_line() -> None:
    """Take the line just typed out of the history (readline adds every line it reads)."""
    readline = sys.modules.get("readline")  # imported by `enable` only on a terminal
    if readline is None:
        return
    last = readline.get_current_history_length()
    if last > 0:
        readline.remove_history_item(last - 1)
