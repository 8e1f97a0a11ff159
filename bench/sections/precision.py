"""(g) float32 vs bfloat16: encode speed and dense-only hit@5 on bench/questions.jsonl.

In-process (bench/inproc.py: ragd's own chunker, windows and embedder), no daemon."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import corpus
from common import QUESTIONS, SAMPLE, Plan, say

PRECISIONS = ("float32", "bfloat16")


def encode_speed(
    models: dict[str, Any], chunks: list[Any], rounds: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Median encode time of `chunks`' windows per precision; the entry and each's vectors."""
    import inproc

    windows = inproc.flatten(chunks)
    pieces = inproc.word_pieces(models["float32"], windows)
    seconds: dict[str, list[float]] = {p: [] for p in PRECISIONS}
    vectors: dict[str, Any] = {}
    for _ in range(rounds):
        for precision in PRECISIONS:  # alternate, so drift hits both alike
            took, _cpu, vectors[precision] = inproc.time_encode(models[precision], windows)
            seconds[precision].append(took)
    entry: dict[str, Any] = {
        "chunks": len(chunks),
        "windows": len(windows),
        "word_pieces_per_window": round(pieces / max(1, len(windows)), 1),
    }
    for precision in PRECISIONS:
        median = sorted(seconds[precision])[len(seconds[precision]) // 2]
        entry[precision] = {
            "seconds": round(median, 2),
            "chunks_per_s": round(len(chunks) / median, 1),
            "word_pieces_per_s": round(pieces / median),
        }
    entry["speedup_bf16"] = round(
        entry["bfloat16"]["chunks_per_s"] / entry["float32"]["chunks_per_s"], 2
    )
    return entry, vectors


def recommend(out: dict[str, Any]) -> None:
    """bfloat16 by default only if it is faster here and keeps hit@5."""
    speedup = out["sample_corpus"]["speedup_bf16"]
    f32, bf16 = out["float32"]["hit_at_5"], out["bfloat16"]["hit_at_5"]
    faster, holds = speedup > 1.0, bf16 >= f32
    out["use_bf16_by_default"] = faster and holds
    verdict = (
        "use bfloat16 by default"
        if faster and holds
        else "keep float32 by default: bfloat16 is "
        + ("not faster here" if not faster else "faster but loses hit@5")
    )
    out["recommendation"] = (
        f"{verdict} ({speedup:.2f}× the float32 speed on these chunks, "
        f"hit@5 {bf16:.3f} vs {f32:.3f} in float32)"
    )


def bench_precision(plan: Plan, tmp: Path) -> dict[str, Any]:
    import numpy as np

    import inproc

    say("(g) float32 vs bfloat16: encode speed and dense-only hit@5")
    models = {p: inproc.embedder(p) for p in PRECISIONS}
    paths = sorted(p for p in SAMPLE.rglob("*") if p.is_file())
    sample = inproc.chunk_windows(SAMPLE, paths, models["float32"])
    handbook = tmp / "g-handbook" / "field-handbook.md"
    handbook.parent.mkdir(parents=True, exist_ok=True)
    handbook.write_text(corpus.long_document(plan.seed)[0], encoding="utf-8")
    long_chunks = inproc.chunk_windows(handbook.parent, [handbook], models["float32"])
    out: dict[str, Any] = {"rounds": plan.g_rounds}
    out["sample_corpus"], vectors = encode_speed(models, sample, plan.g_rounds)
    out["long_windows"], _ = encode_speed(models, long_chunks, plan.g_rounds)
    asks = inproc.load_questions(QUESTIONS)
    for precision in PRECISIONS:
        out[precision] = inproc.hit_at_k(models[precision], sample, vectors[precision], asks)
    agreement = np.sum(vectors["float32"] * vectors["bfloat16"], axis=1)
    out["cosine_f32_bf16"] = {
        "mean": round(float(agreement.mean()), 5),
        "min": round(float(agreement.min()), 5),
    }
    recommend(out)
    out["auto"] = auto_precision(models["float32"])
    return out


def auto_precision(model: Any) -> dict[str, Any]:
    """What `embed_precision = "auto"` decides on this machine (the daemon's own probe)."""
    from ragd.index import precision

    decision = precision.decide(precision.measure(model, precision.probe_texts()))
    return decision.to_json()
