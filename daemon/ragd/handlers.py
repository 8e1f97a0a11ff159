"""Request handlers: one function per op, reading committed state only.

Nothing here waits for the index writer: search reads whatever the indexes hold now, and
every reply carries `pending` (files the writer still has to apply) so the client knows
how fresh it is.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragd import __version__
from ragd.arguments import arg_choice, arg_float, arg_int, arg_line_range, arg_str
from ragd.index import lexical
from ragd.index.embedder import MODEL_ID
from ragd.index.server_store import VectorStoreUnavailable
from ragd.ingest.work_queue import Job
from ragd.passages import Passage, PassageError, join_chunks, read_lines, section
from ragd.query import fusion
from ragd.query.types import RetrievedChunk
from ragd.server import Request
from ragproto.errors import BadRequest, NotFound

if TYPE_CHECKING:
    from ragd.service import Daemon

SNIPPET_CHARS = 600


def result_json(rank: int, chunk: RetrievedChunk) -> dict[str, Any]:
    return {
        "rank": rank,
        "source": chunk.source,
        "heading": chunk.heading,
        "score": chunk.support,
        "fused": chunk.fused,
        "vector_rank": chunk.vector_rank,
        "bm25_rank": chunk.bm25_rank,
        "text": chunk.text,
        "page": chunk.page,
        "lines": list(chunk.lines) if chunk.lines else None,
        "cells": list(chunk.cells) if chunk.cells else None,
        "cosine": chunk.cosine,
        "coverage": chunk.coverage,
        "identifiers": chunk.identifiers,
    }


class Handlers:
    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon

    def table(self) -> dict[str, Any]:
        return {
            "ping": self.ping,
            "status": self.status,
            "stats": self.stats,
            "ingest": self.ingest,
            "forget": self.forget,
            "documents": self.documents,
            "get": self.get,
        }

    @staticmethod
    def owner_only() -> set[str]:
        """Ops that change which folders ragd reads: only its own user may send them."""
        return {"ingest", "forget"}

    def search_table(self) -> dict[str, Any]:
        """Ops that compute (embed a question): served on the search pool."""
        return {"search": self.search, "check": self.check}

    def check(self, request: Request) -> dict[str, Any]:
        """`ragd check` beside this daemon: compare the stores while the writer is idle."""
        from ragd.checkup import EXIT_UNANSWERED, Busy, live_check

        self.d.require_ready()
        try:
            return live_check(self.d)
        except Busy as exc:
            return {"ok": False, "exit": EXIT_UNANSWERED, "problems": [str(exc)]}

    def ping(self, request: Request) -> dict[str, Any]:
        return {"version": __version__, "state": self.d.state()}

    def index_summary(self) -> dict[str, int]:
        files, chunks = self.d.stores.manifest.counts()
        return {"files": files, "chunks": chunks, "pending": self.d.queue.pending()}

    def search(self, request: Request) -> dict[str, Any]:
        self.d.require_ready()
        query = arg_str(request.args, "query")
        top_k = arg_int(request.args, "top_k", self.d.settings.top_k, 1, 50)
        mode = arg_choice(request.args, "mode", ("hybrid", "vector", "bm25"))
        floor = arg_float(request.args, "min_score", None, 0.0, 1.0)
        result = self.d.retriever.search(query, top_k=top_k, mode=mode, floor=floor)
        reply: dict[str, Any] = {
            "query": query,
            "gate": result.gate.as_json(),
            "results": [result_json(i, c) for i, c in enumerate(result.chunks, start=1)],
            "index": self.index_summary(),
        }
        if result.note:  # e.g. the vector store is unreachable: BM25 only
            reply["note"] = result.note
        return reply

    def status(self, request: Request) -> dict[str, Any]:
        d = self.d
        data: dict[str, Any] = {
            "state": d.state(),
            "version": __version__,
            "model": MODEL_ID,
            "answer_model": d.settings.model,
            "answers": "claude" if d.api_key else "extractive",
            "uptime_s": round(time.monotonic() - d.started, 1),
            "socket": d.settings.socket,
            "pending": d.queue.pending(),
            "roots": [],
            "files": 0,
            "chunks": 0,
            "embeddings": {"computed": 0, "reused": 0},
            "ignored": {"files": 0, "folders": 0},
            "errors": [
                {"source": name, "reason": why}
                for name, why in d.store_problems(where="the data dir")
            ],
            "disk": {"free_bytes": d.guard.free_bytes(), "needed_bytes": d.guard.needed_bytes()},
            "vector_store": d.vector_store_state(),
        }
        if not d.ready:
            return data
        counts = d.stores.manifest.counts_by_root()
        names = d.roots.names()
        data["roots"] = [
            {
                "name": names[root],
                "files": counts.get(root, (0, 0))[0],
                "chunks": counts.get(root, (0, 0))[1],
            }
            for root in d.roots
        ]
        # Watched roots only: a forgotten root's rows may still be being pruned.
        data.update(
            files=sum(r["files"] for r in data["roots"]),
            chunks=sum(r["chunks"] for r in data["roots"]),
        )
        # Documents (by name) and folders the ignore rules left out, as the walks last saw.
        data["ignored"] = d.filter.tally.counts(d.roots)
        c = d.indexer.counters
        data["embeddings"] = {"computed": c.embeddings_computed, "reused": c.embeddings_reused}
        data["activity"] = {
            "files_read": c.files_read,
            "files_indexed": c.files_indexed,
            "files_removed": c.files_removed,
            "files_unchanged": c.files_unchanged,
        }
        data["errors"] += [
            {"source": d.roots.label(root, rel), "reason": reason, "quarantined": held}
            for root, rel, reason, held in d.stores.manifest.problem_rows()[:100]
            if root in d.roots
        ]
        data["progress"] = d.progress()
        data["skipped_types"] = d.filter.unsupported_types(d.roots)
        data["progress"]["in_progress"] = d.indexer.in_progress()
        return data

    def stats(self, request: Request) -> dict[str, Any]:
        d = self.d
        d.require_ready()
        files = [f for f in d.stores.manifest.files() if f.root in d.roots]
        dense = d.stores.dense
        try:
            space, hnsw, vectors = dense.space(), dense.hnsw_settings(), dense.count()
        except VectorStoreUnavailable:
            space, hnsw, vectors = "unknown (vector store unreachable)", {}, 0
        return {
            "collection": dense.name,
            "vector_store": d.vector_store_state(),
            "distance": space,
            "hnsw": hnsw,
            "vectors": vectors,
            "chunks": sum(len(f.chunk_ids) for f in files),
            "files": sorted(
                (
                    {"source": d.roots.label(f.root, f.relpath), "chunks": len(f.chunk_ids)}
                    for f in files
                ),
                key=lambda f: f["source"],
            ),
            "lexical": {
                "docs": d.stores.lexical.num_docs(),
                "terms": d.stores.lexical.term_count(),
                **lexical.describe(),
            },
            "embedding": {
                "model": MODEL_ID,
                "dimension": d.embedder.dimension,
                "max_tokens": d.embedder.max_tokens,
                "precision": d.precision.precision,
                "precision_setting": d.settings.embed_precision,
                "precision_reason": d.precision.reason,
            },
            "chunking": {
                "target_tokens": d.params.target_tokens,
                "overlap_tokens": d.params.overlap_tokens,
                "windows": "heading path + one paragraph/block, "
                f"≤ {d.embedder.max_tokens} word pieces",
            },
            "retrieval": {
                "candidates": d.settings.candidates,
                "fusion": fusion.describe(),
                "top_k": d.settings.top_k,
                "support_floor": d.retriever.floor().value,
                "floor": d.retriever.floor().as_json(),
            },
        }

    def ingest(self, request: Request) -> dict[str, Any]:
        d = self.d
        d.require_ready()
        raw = arg_str(request.args, "path", blank_ok=True)
        path = Path(raw)
        if not path.is_absolute():
            raise BadRequest("'path' must be absolute (the client resolves it)")
        if not path.exists():
            raise NotFound(f"no such file or folder: {path.name}")
        located = d.roots.locate(path)
        if located is not None and (located[1] or path.is_file()):
            root, rel = located
            # force: a file skipped for a problem is tried again even though unchanged
            d.queue.put(Job("sync", root, rel, force=True), debounce=False)
            return {"root": d.roots.names()[root], "added": False, "path": d.roots.label(root, rel)}
        if not path.is_dir():
            raise BadRequest("a new root must be a folder")
        added = d.add_root(str(path.absolute()))
        root = str(path.absolute())
        return {"root": d.roots.names()[root], "added": added, "path": d.roots.names()[root]}

    def forget(self, request: Request) -> dict[str, Any]:
        d = self.d
        d.require_ready()
        name = arg_str(request.args, "root", blank_ok=True)
        root = d.roots.by_name(name)
        if root is None:
            raise NotFound(f"no watched root named {name!r}")
        label = d.roots.names()[root]
        d.forget_root(root)
        return {"root": label, "forgotten": True}

    # -- reading back (rag mcp: resources and the `get` tool) ---------------------
    def documents(self, request: Request) -> dict[str, Any]:
        d = self.d
        d.require_ready()
        files = [
            {"source": d.roots.label(f.root, f.relpath), "chunks": len(f.chunk_ids)}
            for f in d.stores.manifest.files()
            if f.root in d.roots
        ]
        return {"documents": sorted(files, key=lambda f: f["source"])}

    def get(self, request: Request) -> dict[str, Any]:
        """A document's indexed text, one section of it, or a range of its lines."""
        d = self.d
        d.require_ready()
        source = arg_str(request.args, "source")
        heading = arg_str(request.args, "heading", required=False)
        lines = request.args.get("lines")
        if heading and lines is not None:
            raise BadRequest("give 'heading' or 'lines', not both")
        located = d.roots.resolve(source)
        if located is None or d.stores.manifest.file(*located) is None:
            raise NotFound(
                f"no indexed document {source!r} (use a source exactly as search results show it)"
            )
        root, relpath = located
        reply: dict[str, Any] = {"source": source}
        try:
            if lines is not None:
                start, end = arg_line_range(lines)
                passage = read_lines(root, relpath, start, end, d.settings.max_file_bytes)
            elif heading:
                passage = section(d.stores.manifest.chunks_of(root, relpath), heading)
                reply["heading"] = " ".join(heading.split())
            else:
                passage = join_chunks(d.stores.manifest.chunks_of(root, relpath), True)
        except PassageError as exc:
            raise BadRequest(str(exc)) from None
        return reply | passage_json(passage)


def passage_json(passage: Passage) -> dict[str, Any]:
    data: dict[str, Any] = {"text": passage.text, "truncated": passage.truncated}
    if passage.lines is not None:
        data["lines"] = list(passage.lines)
    return data
