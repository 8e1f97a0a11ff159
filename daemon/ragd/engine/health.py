"""What the daemon is doing, in the words `rag status`, `ping` and systemd's STATUS= use.

state         starting · paused (no disk space) · degraded (a store cannot be
              written, or an index file reached the file size limit) · indexing · idle
status_line   "indexing 412/1200 files (…)" or "idle: 1,200 files, 9,845 chunks", and
              "; waiting for another process's lock on manifest.sqlite3 …" while one lasts,
              and "; dropped every connection, once since start (…)" for an hour after
              the connection guard did (serve/connection_guard.py)
progress      the current burst of indexing: files and bytes done/total, rates, ETA
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ragd.core.connection_drops import ConnectionDrops
from ragd.engine.components import Basics, Components, Startup
from ragproto.connection_drops import drops_said
from ragproto.lock_wait import manifest_wait
from ragproto.sizes import counted

if TYPE_CHECKING:
    from ragd.core.vector_store import VectorStore


class Health:
    def __init__(
        self,
        basics: Basics,
        startup: Startup,
        vector_target: VectorStore,
        drops: ConnectionDrops | None = None,
    ) -> None:
        self.basics = basics
        self.drops = drops or ConnectionDrops()  # the server's: what its guard dropped
        self.startup = startup
        self.vector_target = vector_target  # where the dense index lives (restart-only)
        self.started = time.monotonic()

    def state(self) -> str:
        if not self.startup.ready:
            return "starting"
        if self.basics.guard.short:
            return "paused"  # writes wait for disk space; searches are answered
        if self.store_problems():
            return "degraded"  # writes fail: what is searchable no longer follows the files
        return "indexing" if self.basics.queue.pending() else "idle"

    def store_problems(self, where: str | None = None) -> list[tuple[str, str]]:
        """(store, why) for each index that cannot be written now (shown by `rag status`);
        `where` stands for the data dir's path (a reply names no absolute path)."""
        guard = self.basics.guard
        found = [("disk", guard.describe(where))] if guard.short else []
        if (over := guard.over_limit()) is not None:
            found.append(("file size limit", over))
        components = self.startup.components
        return found + (components.stores.problems() if components is not None else [])

    def progress(self) -> dict[str, Any]:
        """The burst's files and bytes done/total, rates, and an ETA from the bytes: a
        file count would call 640 of 653 files "almost done" with a 1,578-window changelog
        still to embed. A slow file being embedded is credited its share of windows done."""
        p = self.basics.queue.progress
        components = self.startup.components
        underway = components.indexer.slow.bytes_underway() if components is not None else 0
        # (read apart from the queue's counters: a file released in between is capped)
        bytes_done = min(p.bytes_total, p.bytes_done + underway)
        now = time.monotonic()
        elapsed = max(1e-6, now - (p.working_since or now))
        # The work of a root forgotten since took part of the elapsed time: it stays in the rates.
        rate = (bytes_done + p.forgotten_bytes_done) / elapsed
        return {
            "done": p.done,
            "total": p.total,
            "bytes_done": bytes_done,
            "bytes_total": p.bytes_total,
            "chunks": p.chunks,
            "chunks_per_s": round(p.chunks / elapsed, 1),
            "files_per_s": round((p.done + p.forgotten_done) / elapsed, 2),
            "bytes_per_s": round(rate),
            "eta_s": eta_s(p.bytes_total - bytes_done, rate),
            "current": components.indexer.current if components is not None else None,
            "underway": self.basics.queue.underway(),
        }

    def vector_store_state(self) -> str:
        """`embedded (…)`, `http://… (…)`, or what is wrong with the server: `vector store
        unreachable: <url>: not answering (timeout)`, `… connection refused`, `… unexpected
        reply (…)`, or `vector store collection missing: …, recreating it`."""
        components = self.startup.components
        if components is None:
            return self.vector_target.describe()
        dense = components.stores.dense
        phrase = dense.unavailable()
        if phrase:
            return f"{phrase} (searches use BM25 only; indexing waits)"
        return dense.where.describe()

    def status_line(self) -> str:
        """systemd's STATUS=: "indexing 412/1200 files" or "idle: 1,200 files, 9,845 chunks"."""
        components = self.startup.components
        guard = self.basics.guard
        dropped = self.drops.recent()
        also = f"; dropped {drops_said(dropped)}" if dropped else ""
        if components is None:
            paused = f" (paused: {guard.short})" if guard.short else ""
            return f"starting: {self.startup.phase}{paused}{also}"
        line = self._doing(components)
        # Another process's lock on the manifest holds changes back, as `rag status` says.
        locked = components.writer.busy.state()
        return (f"{line}; waiting {manifest_wait(locked)}" if locked else line) + also

    def _doing(self, components: Components) -> str:
        problems = self.store_problems()
        if problems:
            return f"{self.state()}: " + "; ".join(f"{name}: {why}" for name, why in problems)
        if self.basics.queue.pending():
            p = self.progress()
            eta = f", ETA {p['eta_s']:.0f} s" if p["eta_s"] is not None else ""
            return (
                f"indexing {p['done']}/{p['total']} files ({p['chunks_per_s']:.1f} chunks/s{eta})"
            )
        files, chunks = components.stores.manifest.counts()
        return f"idle: {counted(files, 'file')}, {counted(chunks, 'chunk')}"


def eta_s(bytes_left: int, bytes_per_s: float) -> float | None:
    """Seconds left at the rate so far; None with nothing done yet to measure a rate by
    (a guess then would be a number, not an estimate) or nothing left."""
    if bytes_left <= 0 or bytes_per_s <= 0:
        return None
    return round(bytes_left / bytes_per_s, 1)
