"""What the parse worker has learnt of the files beside the ones it reads: each sibling's
ids, built once per version of its bytes (`file_version`) and of the DTDs it read, and
its parsed tree while it fits in `MAX_TREE_BYTES`.

Without it, every chapter of a folder that missed a reference parsed every sibling again:
200 chapters of 190 KB whose references point nowhere took 52 CPU seconds, the square of
the folder (docs/performance.md). With it each sibling is parsed once per version, and a
chapter that misses looks at sets of ids; a chapter that finds a target in a sibling walks
that sibling's kept tree, or parses it once more when its tree was let go.

It lives in the worker process, so it is lost when the worker is replaced (after a file
that ran out of memory or time): it is a cache, never the truth. Bounded: at most
`MAX_SIBLINGS` siblings' ids (least recently used first out) and `MAX_TREE_BYTES` of the
files whose trees are kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ragd.ingest.formats.file_version import FileVersion, current

MAX_SIBLINGS = 4096  # siblings whose ids are kept (a folder of 1,000 chapters fits)
MAX_TREE_BYTES = 8 * 1024 * 1024  # source bytes of the siblings kept parsed (lxml: ~10×)

Key = tuple[str, str, str]  # (reader, folder, name)


@dataclass
class Indexed:
    """One version of a sibling, as one reader sees it."""

    version: FileVersion
    ids: frozenset[str]  # what a reference can find in it (none: not a document)
    companions: tuple[tuple[str, FileVersion], ...]  # the DTDs its parse read
    targets: dict[str, Any] | None  # its elements by id while its tree is kept
    size: int  # its bytes


class SiblingIndex:
    def __init__(self) -> None:
        self.entries: OrderedDict[Key, Indexed] = OrderedDict()
        self.tree_bytes = 0
        self.trees: OrderedDict[Key, None] = OrderedDict()  # whose trees are kept, oldest first
        self.lock = threading.Lock()  # (a worker reads one file at a time; tests use threads)

    def current(self, key: Key) -> Indexed | None:
        """What is known of this sibling, if its bytes and its DTDs' are as they were."""
        with self.lock:
            entry = self.entries.get(key)
        if entry is None:
            return None
        folder = key[1]
        version = current(folder, key[2], entry.version)
        companions = []
        for name, seen in entry.companions:
            now = current(folder, name, seen) if version is not None else None
            if now is None:
                version = None
                break
            companions.append((name, now))
        with self.lock:
            if version is None:
                if self.entries.get(key) is entry:
                    self._drop(key)
                return None
            entry.version = version  # (settled now, perhaps: no more reads of its bytes)
            entry.companions = tuple(companions)
            if key in self.entries:
                self.entries.move_to_end(key)
            if key in self.trees:
                self.trees.move_to_end(key)
        return entry

    def keep(self, key: Key, entry: Indexed) -> None:
        with self.lock:
            self._keep(key, entry)

    def _keep(self, key: Key, entry: Indexed) -> None:
        self._drop(key)
        self.entries[key] = entry
        if entry.targets is not None:
            self.trees[key] = None
            self.tree_bytes += entry.size
        while len(self.entries) > MAX_SIBLINGS:
            self._drop(next(iter(self.entries)))
        while self.tree_bytes > MAX_TREE_BYTES and self.trees:
            self._let_tree_go(next(iter(self.trees)))

    def _drop(self, key: Key) -> None:
        if key in self.trees:
            self._let_tree_go(key)
        self.entries.pop(key, None)

    def _let_tree_go(self, key: Key) -> None:
        del self.trees[key]
        entry = self.entries[key]
        self.tree_bytes -= entry.size
        entry.targets = None


# The worker's one index: a parse worker reads one file at a time.
SIBLINGS = SiblingIndex()
