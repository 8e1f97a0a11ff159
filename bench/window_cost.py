"""What the encoder is given for a real folder: embeddings per chunk and word pieces encoded
per word piece of text (issue 20 item 2's two figures), with ragd's own planner.

    .venv/bin/python bench/window_cost.py [--chunks 3000] [--seed 7] [FOLDER]

Without FOLDER, the /usr/share/doc corpus of bench/real_corpus.py (≥ --chunks chunks)
under bench/out/window-cost/. Counts each distinct window once (what the writer encodes:
the embedding cache is keyed by the window's text) with its two special tokens, against
the word pieces of the documents' text, each counted once (chunks overlap, so their texts
would count the overlap twice). Targets: ≤ 2 vectors per chunk,
≤ 1.10 encoder word pieces per word piece of text.

With --edits N: what edits cost on N of the folder's Markdown and text files (seeded
shuffle): one sentence appended to up to 5 paragraphs per file, and one short paragraph
inserted before a paragraph in the middle, each counted as the windows the edited file's
plan holds that the original's does not (the embeddings the cache cannot serve).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import inproc  # noqa: E402
import real_corpus  # noqa: E402
from ragd.ingest.document import SkipFile  # noqa: E402
from ragd.ingest.loaders import parse  # noqa: E402
from ragd.ingest.planner import Planner, Skip  # noqa: E402

SPECIAL_TOKENS = 2
EDIT = "The maintainers revised this note once more, adding a clause."
INSERTED = "A new short paragraph goes here before the next one."


def measure(folder: Path) -> dict[str, float]:
    model = inproc.embedder("float32")
    planner = Planner(model)
    chunks = windows = text_pieces = encoded = 0
    seen: set[str] = set()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        plan = planner.plan_bytes(
            str(folder), path.relative_to(folder).as_posix(), path.read_bytes()
        )
        if isinstance(plan, Skip):
            continue
        try:
            document = parse(path.name, path.read_bytes())
        except SkipFile:
            continue
        text = document.text or "\n\n".join(page for _, page in document.pages)
        text_pieces += model.count_tokens(text)
        for chunk in plan.chunks:
            chunks += 1
            for window in chunk.windows:
                if window not in seen:
                    seen.add(window)
                    windows += 1
                    encoded += min(model.count_tokens(window), model.max_tokens - 2)
                    encoded += SPECIAL_TOKENS
    return {
        "chunks": chunks,
        "windows": windows,
        "windows_per_chunk": round(windows / max(1, chunks), 2),
        "text_word_pieces": text_pieces,
        "encoded_word_pieces": encoded,
        "encoded_per_text_piece": round(encoded / max(1, text_pieces), 3),
    }


def edit_costs(folder: Path, count: int, seed: int) -> dict[str, object]:
    planner = Planner(inproc.embedder("float32"))

    def windows(text: str, name: str) -> tuple[set[str], int]:  # (windows, chunks)
        plan = planner.plan_bytes(str(folder), name, text.encode())
        if isinstance(plan, Skip):
            return set(), 0
        return {w for c in plan.chunks for w in c.windows}, len(plan.chunks)

    files = sorted(p for p in folder.rglob("*") if p.suffix in (".md", ".txt"))
    random.Random(seed).shuffle(files)
    edits: list[int] = []
    inserts: list[int] = []
    for path in files[:count]:
        text = path.read_text(errors="replace")
        before, chunks = windows(text, path.name)
        if len(text) > 200_000 or chunks < 3:  # files of at least three chunks, not huge
            continue
        paragraphs = [p for p in text.split("\n\n") if len(p) > 80 and p.lstrip()[:1] not in "#`"]
        for para in paragraphs[:: max(1, len(paragraphs) // 5)][:5]:
            edited = text.replace(para, f"{para} {EDIT}", 1)
            edits.append(len(windows(edited, path.name)[0] - before))
        if paragraphs:
            middle = paragraphs[len(paragraphs) // 2]
            inserted = text.replace(middle, f"{INSERTED}\n\n{middle}", 1)
            inserts.append(len(windows(inserted, path.name)[0] - before))

    def summary(costs: list[int]) -> dict[str, float]:
        over = sum(c > 3 for c in costs)
        return {"n": len(costs), "mean": round(sum(costs) / max(1, len(costs)), 2), "over_3": over}

    return {"paragraph_edits": summary(edits), "insertions": summary(inserts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--chunks", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--edits", type=int, default=0, help="files to edit (0: none)")
    parser.add_argument("--edit-seed", type=int, default=3, help="which files are edited")
    args = parser.parse_args()
    folder = args.folder
    if folder is None:
        folder = BENCH / "out" / "window-cost" / "docs"
        real_corpus.build(folder, args.chunks, args.seed)
    if args.edits:
        print(json.dumps(edit_costs(folder, args.edits, args.edit_seed), indent=2))
        return
    print(json.dumps({"folder": str(folder)} | measure(folder), indent=2))


if __name__ == "__main__":
    main()
