"""Where a first index's CPU goes, stage by stage, in one process (issue 20 items 2 and 5).

    .venv/bin/python bench/first_index_cost.py FOLDER [--precision float32|bfloat16]

Bench section (h) (`bench/sections/first_index.py`) times whole processes: (a) loading
MiniLM and encoding the folder's text once, (b) ragd's first index. This accounts for
(b) − (a) inside one process, with ragd's own code: the model load, the writer indexing
the folder (`harness.LocalIndex`: planner, embedder, stores, exactly as `ragd serve`),
the gate floor's bank check and 288 searches, and — on the same loaded model — the
baseline's encoding of the same text once in pieces of ≤ 254 word pieces. Each stage is
the process CPU time (every thread: torch's and ChromaDB's workers included) of the calls
that make it up, wrapped at the class level; the parse workers are separate processes,
read from /proc. Prints one JSON object.

`--precision float32` (the default) is what a CPU without native bfloat16 runs; a
machine where `auto` picks bfloat16 encodes most of a first index in bfloat16 instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH / "sections"))


class Meter:
    """CPU seconds per stage of the calls wrapped; a call made inside another wrapped
    call is counted by the outer one only."""

    def __init__(self) -> None:
        self.cpu: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._inside = False

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.process_time()
        try:
            yield
        finally:
            self.cpu[name] += time.process_time() - started
            self.calls[name] += 1

    def wrap(self, owner: Any, method: str, name: str) -> None:
        original: Callable[..., Any] = getattr(owner, method)
        meter = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            if meter._inside:
                return original(*args, **kwargs)
            meter._inside = True
            try:
                with meter.stage(name):
                    return original(*args, **kwargs)
            finally:
                meter._inside = False

        setattr(owner, method, timed)


def children_cpu() -> float:
    """CPU seconds of this process's live children (the parse workers)."""
    from harness import process_cpu_seconds

    total = 0.0
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        children = (task / "children").read_text().split()
        total += sum(process_cpu_seconds(int(pid)) for pid in children)
    return total


def wrap_writer(meter: Meter) -> None:
    """Every store call and encoder call the writer makes, by stage."""
    from ragd.index.dense import ChromaStore
    from ragd.index.embedder import MiniLMEmbedder
    from ragd.index.lexical import TantivyIndex
    from ragd.index.manifest import Manifest

    meter.wrap(MiniLMEmbedder, "embed", "encoder: tokenize + forward passes")
    meter.wrap(MiniLMEmbedder, "count_tokens", "planner: word-piece counts (window sizing)")
    meter.wrap(ChromaStore, "upsert", "ChromaDB upserts (HNSW insert)")
    meter.wrap(ChromaStore, "delete", "ChromaDB deletes")
    meter.wrap(TantivyIndex, "add", "tantivy add")
    meter.wrap(TantivyIndex, "commit", "tantivy commits")
    meter.wrap(Manifest, "commit_file", "manifest writes")
    meter.wrap(Manifest, "store_vectors", "embedding cache writes")
    meter.wrap(Manifest, "cached_vectors", "embedding cache reads")


def account(folder: Path, precision: str) -> dict[str, Any]:
    meter = Meter()
    with meter.stage("model load (imports, weights)"):
        import inproc

        model = inproc.embedder(precision)
    with meter.stage("imports: stores, parsers, retriever"):
        from first_index import extracted_texts

        from first_index_baseline import encode_whole
        from ragd.harness.localindex import LocalIndex
        from ragd.query import bank_vectors
        from ragd.query.calibration import bank_gates
    wrap_writer(meter)
    parse_before = children_cpu()
    with tempfile.TemporaryDirectory(prefix="ragd-first-index-cost-") as tmp:
        with meter.stage("first index, all of it"):
            local = LocalIndex(folder, Path(tmp) / "data", model)
        parse_cpu = children_cpu() - parse_before
        with meter.stage("gate floor: bank vectors (shipped, 3 checked)"):
            vectors = bank_vectors.shipped(model)
        assert vectors is not None, "the shipped bank does not agree with this model"
        with meter.stage("gate floor: 288 bank searches"):
            gates = bank_gates(local.retriever, vectors, lambda: False)
        assert gates is not None
        chunks = local.chunk_count()
        windows = local.stores.dense.count()
        local.close()
    texts = extracted_texts(folder)
    tokenizer = model._model.tokenizer
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    with meter.stage("(a) baseline: the text encoded once"):
        pieces, baseline_positions = encode_whole(model._model, ids)
    return report(meter, parse_cpu, chunks, windows, pieces, baseline_positions, ids)


def report(
    meter: Meter,
    parse_cpu: float,
    chunks: int,
    windows: int,
    pieces: int,
    baseline_positions: int,
    ids: list[list[int]],
) -> dict[str, Any]:
    whole = meter.cpu.pop("first index, all of it")
    inside = sum(
        cpu
        for name, cpu in meter.cpu.items()
        if not name.startswith(("model load", "imports", "gate floor", "(a)"))
    )
    stages = dict(meter.cpu) | {
        "the writer's other work (parse, chunk, windows, hashing, scheduling)": whole - inside,
        "parse workers (child processes)": parse_cpu,
    }
    return {
        "chunks": chunks,
        "vectors": windows,
        "text_word_pieces": sum(len(i) for i in ids),
        "baseline_pieces": pieces,
        "baseline_positions": baseline_positions,
        "cpu_s": {name: round(cpu, 2) for name, cpu in sorted(stages.items(), key=by_cpu)},
        "calls": dict(meter.calls),
        "load_average": round(os.getloadavg()[0], 1),
    }


def by_cpu(item: tuple[str, float]) -> float:
    return -item[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--precision", default="float32", choices=("float32", "bfloat16"))
    args = parser.parse_args()
    print(json.dumps(account(args.folder.resolve(), args.precision), indent=2))


if __name__ == "__main__":
    main()
