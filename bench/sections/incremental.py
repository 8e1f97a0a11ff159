"""(d) embeddings computed for a one-paragraph edit, a rename, a touch, a same-bytes save.

One long Markdown file is indexed, then edited paragraph by paragraph, renamed and touched;
the daemon's own counters (`rag status --json`, as a user reads them) give the figures."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import corpus
from common import TARGETS, Plan, say, token
from harness import BenchDaemon, BenchError, wait_for

LABEL = "bench-long/field-handbook.md"
RENAMED_LABEL = "bench-long/field-handbook-2025.md"


def chunks_of(path: Path, text: str) -> list[Any]:
    """The chunks ragd's own chunker makes of `text` (the chunker's view of an edit)."""
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import parse

    return chunk_document(parse(path.name, text.encode()))


def counters(daemon: BenchDaemon) -> dict[str, Any]:
    status = daemon.cli_status()  # `rag status --json`, as a user reads it
    return {"embeddings": status["embeddings"], "activity": status.get("activity", {})}


def delta(before: dict[str, Any], after: dict[str, Any]) -> dict[str, int]:
    emb = {k: after["embeddings"][k] - before["embeddings"][k] for k in ("computed", "reused")}
    unchanged = after["activity"].get("files_unchanged", 0)
    emb["files_unchanged"] = unchanged - before["activity"].get("files_unchanged", 0)
    return emb


def files_unchanged(daemon: BenchDaemon) -> int:
    return int(daemon.status().get("activity", {}).get("files_unchanged", 0))


def edit_spots(count: int) -> list[int]:
    """The middle paragraph first (the headline figure), then paragraphs spread over the file."""
    return [
        count // 2,
        *(count * k // 6 + 3 for k in range(6) if count * k // 6 + 3 != count // 2),
    ]


def edit_paragraphs(
    daemon: BenchDaemon, path: Path, text: str, paragraphs: list[str], chunks_before: list[Any]
) -> list[dict[str, Any]]:
    """One sentence appended to one paragraph per save; what each save cost."""
    edits = []
    for spot in edit_spots(len(paragraphs)):
        before = counters(daemon)
        marker = token()
        para = paragraphs[spot]
        edited = text.replace(para, f"{para} The field team added the marker {marker}.")
        path.write_bytes(edited.encode())
        wait_for(lambda m=marker: daemon.found(m, LABEL), 30, "the edit to be searchable", 0.02)
        daemon.wait_idle(30)
        chunks_after = chunks_of(path, edited)
        changed = len(set(chunks_after) - set(chunks_before))
        edits.append(
            delta(before, counters(daemon)) | {"paragraph": spot, "chunks_changed": changed}
        )
        text, chunks_before = edited, chunks_after
    return edits


def rename(daemon: BenchDaemon, path: Path, renamed: Path, marker: str) -> dict[str, int]:
    """A rename inside the root: the new name searchable, the old one gone."""
    before = counters(daemon)
    os.rename(path, renamed)
    wait_for(lambda: daemon.found(marker, RENAMED_LABEL), 30, "the renamed file", 0.02)
    wait_for(lambda: daemon.found(marker, LABEL) is None, 30, "the old name to vanish", 0.02)
    daemon.wait_idle(30)
    return delta(before, counters(daemon))


def resave_unchanged(daemon: BenchDaemon, path: Path) -> dict[str, Any]:
    """touch (new mtime, same bytes) and a save that writes the same bytes again."""
    out: dict[str, Any] = {}
    for name, act in (
        ("touch", lambda: os.utime(path)),
        ("same_bytes_save", lambda: path.write_bytes(path.read_bytes())),
    ):
        before = counters(daemon)
        seen = before["activity"].get("files_unchanged", 0)
        time.sleep(0.01)  # a strictly newer mtime_ns than the last write
        act()
        observed = True
        try:
            wait_for(
                lambda seen=seen: files_unchanged(daemon) > seen, 10, f"the {name} to be seen", 0.02
            )
        except BenchError:
            observed = False  # no event reached the indexer: nothing can have been computed
        daemon.wait_idle(30)
        out[name] = delta(before, counters(daemon)) | {"rechecked_by_daemon": observed}
    return out


def bench_incremental(daemon: BenchDaemon, root: Path, plan: Plan) -> dict[str, Any]:
    folder = root / "bench-long"
    folder.mkdir()
    path = folder / "field-handbook.md"
    text, paragraphs = corpus.long_document(plan.seed)
    first = token()
    text = text.replace(paragraphs[0], f"{paragraphs[0]} The handbook marker is {first}.")
    path.write_bytes(text.encode())
    chunks = chunks_of(path, text)
    say(f"(d) indexing a {len(chunks)}-chunk file, then edit / rename / touch")
    wait_for(lambda: daemon.found(first), 120, "the long file to be searchable", 0.05)
    daemon.wait_idle(60)

    out: dict[str, Any] = {"file_chunks": len(chunks), "targets": TARGETS["d"]}
    edits = edit_paragraphs(daemon, path, text, paragraphs, chunks)
    computed = [e["computed"] for e in edits]
    out["one_paragraph_edit"] = edits[0]
    out["edits_across_file"] = {
        "computed": computed,
        "median": sorted(computed)[len(computed) // 2],
        "max": max(computed),
        "detail": edits,
    }
    renamed = folder / "field-handbook-2025.md"
    out["rename"] = rename(daemon, path, renamed, first)
    return out | resave_unchanged(daemon, renamed)
