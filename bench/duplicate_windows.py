"""How copies of one window text hurt vector search, with ragd's own ChromaDB settings.

A folder where many files share a text (a licence header in every source file, the same
note saved 3,000 times) once stored one identical vector per copy. This bench embeds the
windows of a folder (real MiniLM vectors), adds COPIES copies of one licence window, and
measures recall@10 of the HNSW search against exact cosine, for the folder's own
questions, in two layouts built in the same run:

* `per window`: every copy is its own vector (ragd before index/shared_vectors.py);
* `per text`: one vector per distinct text (ragd now).

Run: .venv/bin/python bench/duplicate_windows.py [--copies 3000] [FOLDER]
Reported in docs/performance.md ("Copies of one text").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "daemon"))
sys.path.insert(0, str(HERE.parent / "shared"))

import numpy as np  # noqa: E402

from ragd.index.dense import ChromaStore  # noqa: E402
from ragd.index.embedder import MiniLMEmbedder  # noqa: E402
from ragd.index.plan import FilePlan  # noqa: E402
from ragd.ingest.planner import Planner  # noqa: E402

LICENCE = (
    "# Licence\n\nPermission is hereby granted, free of charge, to any person obtaining a "
    "copy of this software and associated documentation files, to deal in the software "
    "without restriction, including without limitation the rights to use, copy, modify, "
    "merge, publish, distribute, sublicense, and/or sell copies of the software.\n"
)
K = 10


def folder_windows(planner: Planner, folder: Path) -> dict[str, str]:
    """Window hash → text for every file of `folder` ragd reads."""
    windows: dict[str, str] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        planned = planner.plan_bytes(str(folder), str(path.relative_to(folder)), path.read_bytes())
        if isinstance(planned, FilePlan):
            windows.update(planned.windows())
    return windows


def questions(folder: Path) -> list[str]:
    """The folder's own evaluation questions (bench/questions.jsonl for the sample)."""
    path = HERE / "questions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows if r.get("question")]


def recall(store: ChromaStore, ids: list[str], matrix: np.ndarray, queries: np.ndarray) -> float:
    """Mean share of the exact top-K (by cosine, ties broken by position) the search finds."""
    found = store.query_many(queries, K)
    exact = queries @ matrix.T
    shares = []
    for row, hits in zip(exact, found, strict=True):
        want = {ids[i] for i in np.argsort(-row, kind="stable")[:K]}
        # Copies tie exactly: any K of equal cosine are as right as any other.
        cut = np.sort(row)[-K]
        right = sum(1 for h, cos in hits if h in want or cos >= cut - 1e-6)
        shares.append(min(right, K) / K)
    return float(np.mean(shares))


def build(path: Path, ids: list[str], matrix: np.ndarray) -> ChromaStore:
    store = ChromaStore(path)
    store.upsert(ids, matrix.astype(np.float32), [["bench"]] * len(ids))
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=str(HERE.parent / "sample_corpus"))
    parser.add_argument("--copies", type=int, default=3000)
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    planner = Planner(embedder)
    windows = folder_windows(planner, Path(args.folder))
    hashes = list(windows)
    vectors = embedder.embed([windows[h] for h in hashes], lane="index")
    licence = embedder.embed([LICENCE], lane="index")[0]
    queries = embedder.embed(questions(Path(args.folder)), lane="query")
    layouts = {
        "per window": (
            [*hashes, *(f"copy{i}" for i in range(args.copies))],
            np.vstack([vectors, np.tile(licence, (args.copies, 1))]),
        ),
        "per text": ([*hashes, "licence"], np.vstack([vectors, licence])),
    }
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name, (ids, matrix) in layouts.items():
            store = build(Path(work) / name.replace(" ", "-"), ids, matrix)
            results[name] = recall(store, ids, matrix, queries)
    print(
        json.dumps(
            {
                "folder": args.folder,
                "windows": len(hashes),
                "copies": args.copies,
                "questions": len(queries),
                "recall@10": {k: round(v, 3) for k, v in results.items()},
                "ratio": round(results["per window"] / results["per text"], 3),
            }
        )
    )


if __name__ == "__main__":
    main()
