"""What one file contributes to the indexes: the planner's output, the writer's input.

`ingest/planner.py` builds a `FilePlan` from a file's bytes (pure), or says why there is
none (an `Outcome`); `index/writer.py` embeds the windows the cache lacks and applies
the plan, or carries the outcome out (`IndexWriter.settle`). Defined here, on the ground
floor, so the writer needs nothing from `ingest/`.

An outcome is `Unchanged` (nothing to do; a new stat to remember), `Gone` (vanished
before it was read: drop what is indexed) or `Skip(reason)` (shown by `rag status`;
with the file's size and mtime, that version is held back until it changes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ragd.index.manifest import Beside, ChunkRow, FileRow


@dataclass(frozen=True)
class Skip:
    """The file is not indexed: `reason` is shown by `rag status`."""

    reason: str
    version: tuple[int, int] | None = None  # (size, mtime_ns) held back until it changes
    drop: bool = False  # what is indexed for the path goes too (the reason stays)


@dataclass(frozen=True)
class Unchanged:
    """Nothing to index; `stat` is the new (size, mtime_ns) of unchanged bytes, if any."""

    stat: tuple[int, int] | None = None


@dataclass(frozen=True)
class Gone:
    """The file vanished before it could be read."""


Outcome = Skip | Unchanged | Gone


@dataclass
class PlannedChunk:
    row: ChunkRow  # everything the stores keep about the chunk (row.windows: window hashes)
    windows: list[str]  # the texts the encoder sees, in the order of row.windows


@dataclass
class FilePlan:
    row: FileRow  # its chunk_ids are the chunks' ids, in order
    chunks: list[PlannedChunk]
    beside: Beside = field(default_factory=Beside)  # what its text depends on beside it

    def windows(self) -> dict[str, str]:
        """Window hash → window text, for every window of the file."""
        return {h: w for p in self.chunks for h, w in zip(p.row.windows, p.windows, strict=True)}

    def window_count(self) -> int:
        return sum(len(p.windows) for p in self.chunks)
