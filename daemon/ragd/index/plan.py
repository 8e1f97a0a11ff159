"""What one file contributes to the indexes: the planner's output, the writer's input.

`ingest/planner.py` builds a `FilePlan` from a file's bytes (pure); `index/writer.py`
embeds the windows the cache lacks and applies it. Defined here, on the ground floor, so
the writer needs nothing from `ingest/`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragd.index.manifest import ChunkRow, FileRow


@dataclass
class PlannedChunk:
    row: ChunkRow  # everything the stores keep about the chunk (row.windows: window hashes)
    windows: list[str]  # the texts the encoder sees, in the order of row.windows


@dataclass
class FilePlan:
    row: FileRow  # its chunk_ids are the chunks' ids, in order
    chunks: list[PlannedChunk]

    def windows(self) -> dict[str, str]:
        """Window hash → window text, for every window of the file."""
        return {h: w for p in self.chunks for h, w in zip(p.row.windows, p.windows, strict=True)}

    def window_count(self) -> int:
        return sum(len(p.windows) for p in self.chunks)
