"""Candidate rescue signals for the refusal rule, measured on the kept indexes.

For issue #19 item 8 (false refusals, refuse45): opens the indexes a measurement of record
left (bench/out/eval/index/NAME, bench/out/heldout/NAME: copy them from that checkout;
searched as they are, nothing is re-indexed), learns each one's floor from the off-subject
bank as the daemon does, and keeps, for every question that measurement asked
(bench/corpora/measured.json, bench/heldout/measured.json: answerable, hard-negative and
off-topic alike) and for each of the 288 bank questions, the gate's signals and verdict
and, for a question under the floor, what a further look could read:

* `block`: the leaders' best heading-free block cosine (block_cosine.py, the daemon's);
* `unit` / `unit_ctx`: the best cosine of one quotable unit (units.units_of: a sentence
  of a long paragraph, a list item, a row) of the same leaders, bare / with its context;
* `head_full` / `head_last`: the best cosine of a leader's heading path / last heading;
* `bank_near`: the question's best cosine with a bank question (itself left out);
* `unit_s`: the CPU-bound seconds of block + unit (a question's extra cost).

bench/rescue_fit.py fits rescue rules on them leave-one-corpus-out.
Usage: python bench/rescue_signals.py OUT.json [CORPUS ...]   (resumes: skips done ones)
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.keyless_replay import KeptIndex  # noqa: E402

from ragd.query import calibration  # noqa: E402
from ragd.query.block_cosine import BlockCosines, leaders  # noqa: E402
from ragd.query.offtopic_bank import OFFTOPIC_BANK  # noqa: E402
from ragd.query.types import RetrievedChunk  # noqa: E402
from ragd.query.units import units_of  # noqa: E402

MEASURED = (
    ROOT / "bench" / "corpora" / "measured.json",
    ROOT / "bench" / "heldout" / "measured.json",
)
KEPT = (ROOT / "bench" / "out" / "eval" / "index", ROOT / "bench" / "out" / "heldout")
MAX_UNITS = 64  # as block_cosine.MAX_BLOCKS


class Looks(BlockCosines):
    """The block cosine's leaders and vector cache, read as units and headings too."""

    def best_of(self, texts: Sequence[str], vector: np.ndarray) -> float:
        return float((self._embedded(list(texts)) @ vector).max()) if texts else 0.0


def unit_texts(chunks: Sequence[RetrievedChunk], context: bool) -> list[str]:
    out: dict[str, None] = {}
    for chunk in chunks:
        for unit in units_of(chunk.text, chunk.heading):
            if len(out) >= MAX_UNITS:
                return list(out)
            out[unit.search_text if context else unit.text] = None
    return list(out)


def looks(retriever: Any, extra: Looks, bank: np.ndarray, result: Any, own: int) -> dict[str, Any]:
    vector, lead = result.query_vector, leaders(result.candidates)
    started = time.thread_time()
    out: dict[str, Any] = {"block": round(retriever.blocks.best(vector, result.candidates), 4)}
    out["unit"] = round(extra.best_of(unit_texts(lead, False), vector), 4)
    out["unit_s"] = round(time.thread_time() - started, 4)
    out["unit_ctx"] = round(extra.best_of(unit_texts(lead, True), vector), 4)
    headings = [c.heading for c in lead if c.heading]
    out["head_full"] = round(extra.best_of(headings, vector), 4)
    out["head_last"] = round(extra.best_of([h.split(" > ")[-1] for h in headings], vector), 4)
    near = bank @ vector
    if own >= 0:
        near[own] = -1.0
    out["bank_near"] = round(float(near.max()), 4)
    return out


def measure(name: str, asked: list[dict[str, Any]], model: Any, bank: np.ndarray) -> dict[str, Any]:
    where = next(k / name for k in KEPT if (k / name).is_dir())
    index = KeptIndex(where, model)
    extra = Looks(model)
    try:
        retriever = index.retriever
        banked = retriever.search_many(list(OFFTOPIC_BANK), bank, top_k=5)
        chunks = index.stores.manifest.counts()[1]
        floor = calibration.learn(
            [r.gate.support for r in banked],
            chunks,
            topicals=[r.gate.signals["topical"] for r in banked],
        )
        retriever.learned = floor

        def row(
            question: str, kind: str, answerable: bool, result: Any, own: int
        ) -> dict[str, Any]:
            out = {"question": question, "kind": kind, "answerable": answerable}
            out |= {"signals": result.gate.signals, "verdict": result.gate.verdict}
            if result.gate.support < floor.value and result.candidates:
                out |= looks(retriever, extra, bank, result, own)
            return out

        rows = [
            row(a["question"], a["kind"], a["answerable"], retriever.search(a["question"]), -1)
            for a in asked
        ]
        bank_rows = [
            row(q, "bank", False, r, i)
            for i, (q, r) in enumerate(zip(OFFTOPIC_BANK, banked, strict=True))
        ]
        return {"floor": floor.value, "topical": floor.topical, "chunks": chunks} | {
            "asked": rows,
            "bank": bank_rows,
        }
    finally:
        index.close()


def main(argv: list[str]) -> int:
    from bench.inproc import embedder

    target, names = Path(argv[0]), argv[1:]
    done = json.loads(target.read_text()) if target.exists() else {}
    model = embedder("auto")
    bank = model.embed(list(OFFTOPIC_BANK), lane="index")
    kept = {n: d for path in MEASURED for n, d in json.loads(path.read_text()).items()}
    for name in [n for n in names or list(kept) if n not in done]:
        started = time.perf_counter()
        done[name] = measure(name, kept[name]["asked"], model, bank)
        target.write_text(json.dumps(done))
        print(f"{name}: {time.perf_counter() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
