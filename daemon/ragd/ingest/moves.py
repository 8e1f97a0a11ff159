"""Recent renames, as the watcher saw them: where a vanished path's content went.

A rename storm (`mv a b; mv b c; …` faster than the debounce, as tools that save through
temporary names do) keeps pushing back every intermediate name's job, so the first
name's job comes due while its content is only queued under the last name, neither
parsed nor in flight. Pruning it then left the file in no index until the last name was
indexed. The reconciler follows the chain of renames a vanished name started
(`final`) and waits while its end is still to be indexed (`ingest/reconcile.py`).
"""

from __future__ import annotations

import threading
import time

Path = tuple[str, str]  # (root, relpath)

MAX_KEPT = 4096  # renames remembered; older ones are only hints and may be forgotten
MAX_HOPS = 64  # a chain longer than this is cut (and a cycle never loops)


class Moves:
    def __init__(self) -> None:
        self._to: dict[Path, tuple[Path, float]] = {}
        self._lock = threading.Lock()

    def moved(self, src: Path, dest: Path) -> None:
        """The watcher saw `src` renamed to `dest` (both inside the roots)."""
        with self._lock:
            if len(self._to) >= MAX_KEPT:
                oldest = sorted(self._to.items(), key=lambda item: item[1][1])
                for path, _ in oldest[: MAX_KEPT // 2]:
                    del self._to[path]
            self._to[src] = (dest, time.monotonic())

    def final(self, src: Path, within_s: float) -> Path | None:
        """Where the renames `src` started within `within_s` ended (None: not renamed).
        A rename of a folder above a path moves the path too, and each step is a rename
        made after the one before: two folders swapped through a third name
        (`d1 → tmp`, `d2 → d1`, `tmp → d2`) send `d1/x` to `d2/x`, not back to `d1/x`."""
        seen = {src}
        end: Path | None = None
        after = time.monotonic() - within_s
        with self._lock:
            for _ in range(MAX_HOPS):
                step = self._next(end or src, after)
                if step is None or step[0] in seen:
                    break
                end, after = step
                seen.add(end)
        return end

    def _next(self, path: Path, after: float) -> tuple[Path, float] | None:
        """The first rename after `after` of `path` or of a folder above it: where that
        took the path, and when."""
        root, relpath = path
        parts = relpath.split("/")
        found: tuple[Path, float] | None = None
        for cut in range(len(parts), 0, -1):
            move = self._to.get((root, "/".join(parts[:cut])))
            if move is None or move[1] <= after or (found is not None and move[1] >= found[1]):
                continue
            (dest_root, dest), when = move
            rest = "/".join(parts[cut:])
            found = (dest_root, f"{dest}/{rest}" if rest else dest), when
        return found
