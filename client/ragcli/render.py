"""Human-readable output for the client's commands (plain text, no dependencies)."""

from __future__ import annotations

import textwrap
from typing import Any


def snippet(text: str, width: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def ranks(result: dict[str, Any]) -> str:
    parts = []
    if result.get("vector_rank"):
        parts.append(f"vector #{result['vector_rank']}")
    if result.get("bm25_rank"):
        parts.append(f"bm25 #{result['bm25_rank']}")
    return ", ".join(parts) or "—"


def search(data: dict[str, Any]) -> str:
    lines = []
    gate = data["gate"]
    results = data["results"]
    if not results:
        lines.append("no results (is anything indexed? try `rag status`)")
    for r in results:
        page = f" (page {r['page']})" if r.get("page") else ""
        lines.append(f"{r['rank']}. {r['source']}{page} — {r['heading']}")
        lines.append(f"   support {r['score']:.3f} · fused {r['fused']:.4f} · {ranks(r)}")
        lines.extend(
            textwrap.wrap(
                snippet(r["text"]), width=88, initial_indent="   ", subsequent_indent="   "
            )
        )
    verdict = "passes" if gate["passed"] else "below"
    index = data["index"]
    lines.append(
        f"\ngate: best support {gate['support']:.3f} {verdict} the {gate['floor']:.2f} floor · "
        f"{index['files']} files, {index['chunks']} chunks indexed, {index['pending']} pending"
    )
    return "\n".join(lines)


def status(data: dict[str, Any]) -> str:
    roots = ", ".join(
        f"{r['name']} ({r['files']} files, {r['chunks']} chunks)" for r in data["roots"]
    )
    emb = data["embeddings"]
    rows = [
        ("state", data["state"]),
        ("roots", roots or "none (add one with `rag ingest FOLDER`)"),
        ("files", data["files"]),
        ("chunks", data["chunks"]),
        ("pending", data["pending"]),
        ("embeddings", f"{emb['computed']} computed, {emb['reused']} reused since start"),
        ("model", data["model"]),
        ("answers", _answers(data)),
        ("version", data["version"]),
        ("uptime", f"{data['uptime_s']:.0f} s"),
        ("socket", data["socket"]),
    ]
    progress = data.get("progress")
    if progress and data["pending"]:
        eta = f", ETA {progress['eta_s']:.0f} s" if progress.get("eta_s") is not None else ""
        rows.insert(
            1,
            (
                "progress",
                f"{progress['done']}/{progress['total']} files, "
                f"{progress['chunks_per_s']:.1f} chunks/s{eta}",
            ),
        )
    skipped = data.get("skipped_types") or {}
    if skipped:
        counts = ", ".join(f"{n} {suffix}" for suffix, n in skipped.items())
        rows.append(("skipped", f"{counts} (file types not indexed; see `include`)"))
    out = [f"{k:<11}{v}" for k, v in rows]
    errors = data.get("errors") or []
    out.append(f"{'errors':<11}{len(errors) if errors else 'none'}")
    for e in errors[:20]:
        out.append(f"  {e['source']}: {e['reason']}")
    return "\n".join(out)


def _answers(data: dict[str, Any]) -> str:
    if data.get("answers") == "claude":
        return f"Claude ({data.get('answer_model')})"
    return "extractive (set ANTHROPIC_API_KEY for the daemon to enable Claude)"


def stats(data: dict[str, Any]) -> str:
    out = [
        f"collection   {data['collection']} (distance: {data['distance']}, "
        f"HNSW M={data['hnsw'].get('max_neighbors')}, ef_construction="
        f"{data['hnsw'].get('ef_construction')}, ef_search={data['hnsw'].get('ef_search')})",
        f"chunks       {data['chunks']} ({data['vectors']} vectors)",
        f"lexical      {data['lexical']['docs']} docs, {data['lexical']['terms']} terms, "
        f"tokenizer {data['lexical']['tokenizer']}, BM25 k1={data['lexical']['bm25']['k1']} "
        f"b={data['lexical']['bm25']['b']}",
        f"embedding    {data['embedding']['model']} ({data['embedding']['dimension']} dims, "
        f"{data['embedding']['max_tokens']} word pieces, {data['embedding']['precision']})",
        f"chunking     ≈{data['chunking']['target_tokens']} tokens, "
        f"{data['chunking']['overlap_tokens']} overlap; {data['chunking']['windows']}",
        f"retrieval    {data['retrieval']['candidates']} candidates per retriever, "
        f"{data['retrieval']['fusion']}, top {data['retrieval']['top_k']}, "
        f"support floor {data['retrieval']['support_floor']}",
        f"files        {len(data['files'])}",
    ]
    out.extend(f"  {f['chunks']:>5}  {f['source']}" for f in data["files"])
    return "\n".join(out)
