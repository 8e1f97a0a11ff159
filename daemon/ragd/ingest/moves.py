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
        """Where the renames `src` started within `within_s` ended (None: not renamed)."""
        since = time.monotonic() - within_s
        seen = {src}
        end: Path | None = None
        with self._lock:
            for _ in range(MAX_HOPS):
                step = self._to.get(end or src)
                if step is None or step[1] < since or step[0] in seen:
                    break
                end = step[0]
                seen.add(end)
        return end
