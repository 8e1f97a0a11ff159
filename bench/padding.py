"""Word-piece positions the encoder computes for a folder's first index: the text's own,
the heading paths', the special tokens', and the padding each batching adds.

    .venv/bin/python bench/padding.py FOLDER

In-process, with ragd's planner and the writer's own slicing (`EMBED_SLICE`, `by_length`,
the embedder's `batch_size`); nothing is encoded (the encoder's cost is close to linear in
the positions it computes, padding included: every padded position passes through every
layer). Each file counts as its own embedding call, as for the files over LARGE_WINDOWS
that make most of a real folder's windows. "before" is the writer's order up to this
change: slices in file order, each call's batches sorted by characters.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import inproc  # noqa: E402
from ragd.index.writer import EMBED_SLICE, by_length  # noqa: E402
from ragd.ingest.planner import Planner, Skip  # noqa: E402

SPECIAL_TOKENS = 2


def padded(calls: list[list[str]], size: dict[str, int], key: Callable[[str], int]) -> int:
    """Positions computed when each call's texts are sorted by `key` and cut into batches."""
    batch = inproc.embedder("float32").batch_size
    total = 0
    for texts in calls:
        ordered = sorted(texts, key=key)
        for start in range(0, len(ordered), batch):
            part = ordered[start : start + batch]
            total += len(part) * max(size[t] for t in part)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    args = parser.parse_args()
    model = inproc.embedder("float32")
    planner = Planner(model)
    files: list[dict[str, str]] = []
    heading = 0
    seen: set[str] = set()
    for path in sorted(p for p in args.folder.rglob("*") if p.is_file()):
        rel = path.relative_to(args.folder).as_posix()
        plan = planner.plan_bytes(str(args.folder), rel, path.read_bytes())
        if isinstance(plan, Skip):
            continue
        fresh = {h: w for h, w in plan.windows().items() if h not in seen}
        seen.update(fresh)
        files.append(fresh)
        heads = {h: c.row.heading for c in plan.chunks for h in c.row.windows}
        heading += sum(model.count_tokens(heads[h] + "\n") for h in fresh)
    cut = model.max_tokens - SPECIAL_TOKENS
    size = {w: min(cut, model.count_tokens(w)) + SPECIAL_TOKENS for f in files for w in f.values()}
    real = sum(size.values())

    def slices(order: Callable[[dict[str, str]], list[str]]) -> list[list[str]]:
        return [
            [f[h] for h in hashes[start : start + EMBED_SLICE]]
            for f in files
            for hashes in [order(f)]
            for start in range(0, len(hashes), EMBED_SLICE)
        ]

    before = padded(slices(list), size, len)
    now = padded(slices(lambda f: by_length(f, f)), size, lambda t: size[t])
    print(
        json.dumps(
            {
                "windows": len(size),
                "positions_of_windows": real,
                "heading_path_share": round(heading / real, 3),
                "special_token_share": round(SPECIAL_TOKENS * len(size) / real, 3),
                "computed_before": before,
                "padding_before": round(before / real - 1, 3),
                "computed_now": now,
                "padding_now": round(now / real - 1, 3),
                "now_over_before": round(now / before, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
