"""The windows of the large files planned last, so that their next version reuses them.

A file that keeps changing (a log appended to, `ingest/slow_files.py`) is planned again
version after version while only its tail changes. Sizing windows is the tokenizer's work
and most of a plan's cost (≈ 0.9 CPU s per MB of text): every version of a 4 MB log
tokenized its 2,000 unchanged chunks again. A chunk's windows depend only on its heading
path and the text it embeds (and on the tokenizer, fixed for the daemon's life), so a
chunk that the file's previous version had, by those, gets that version's windows back.

Only files of at least MIN_CHUNKS chunks are remembered (a small file is windowed in
milliseconds), the last REMEMBERED_FILES of them, and none past MAX_CHARS of window text
in all: the memory is bounded whatever is indexed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

MIN_CHUNKS = 64
REMEMBERED_FILES = 4
MAX_CHARS = 16 << 20

Windows = dict[bytes, list[str]]  # chunk key → its windows


def chunk_key(heading: str, text: str) -> bytes:
    """What a chunk's windows depend on, as a digest (the memory keeps no chunk text)."""
    return hashlib.sha256(f"{heading}\0{text}".encode()).digest()


class WindowMemory:
    """Per file (root, relpath), the windows of its last plan. Plans run on the writer
    and on the planner thread at once: every access is under one lock."""

    def __init__(self) -> None:
        self._files: OrderedDict[tuple[str, str], tuple[Windows, int]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def recall(self, root: str, relpath: str) -> Windows:
        """The windows of the file's last plan (read only), or none."""
        with self._lock:
            kept = self._files.get((root, relpath))
        return kept[0] if kept is not None else {}

    def keep(self, root: str, relpath: str, windows: Windows) -> None:
        """The windows of the file's newest plan replace what was kept for it."""
        key = (root, relpath)
        chars = sum(len(w) for group in windows.values() for w in group)
        with self._lock:
            old = self._files.pop(key, None)
            if old is not None:
                self._chars -= old[1]
            if len(windows) < MIN_CHUNKS or chars > MAX_CHARS:
                return
            self._files[key] = (windows, chars)
            self._chars += chars
            while len(self._files) > REMEMBERED_FILES or self._chars > MAX_CHARS:
                _, (_, dropped) = self._files.popitem(last=False)
                self._chars -= dropped
