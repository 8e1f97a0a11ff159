"""Add the `names_unseen` signal to kept measurements taken before the gate recorded it.

Usage: python bench/names_unseen_backfill.py [--again] MEASURED.json INDEX_DIR [INDEX_DIR ...]

For every asked question of every corpus in MEASURED.json whose signals lack
`names_unseen` (with `--again`, every asked question: after a change to which words
`question.names_written` reads as names), analyses the question against the corpus's kept
index (INDEX_DIR/CORPUS, the data dir the measurement left: `bench/out/eval/index/` or
`bench/out/heldout/`) with the daemon's own `question.analyse` and lexicon, exactly as a
search does, and stores the count of unseen names. Nothing else in the record changes: the
names read only the question and the index's vocabulary, which the measurement of record
left on disk, so the result is what `make eval` records today. A corpus without a kept
index is left as it is and named.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragd.core.layout import DataDir  # noqa: E402
from ragd.harness.crosseval import write_measurements  # noqa: E402
from ragd.index.lexical import TantivyIndex  # noqa: E402
from ragd.query.question import analyse  # noqa: E402


def backfill(measured: Path, index_dirs: list[Path], again: bool = False) -> None:
    where = {d.name: d for base in index_dirs for d in base.iterdir() if d.is_dir()}
    runs = json.loads(measured.read_text())
    for corpus, run in runs.items():
        todo = [a for a in run["asked"] if again or "names_unseen" not in a["signals"]]
        if not todo:
            continue
        if corpus not in where:
            print(f"{corpus}: no kept index, left as it is", flush=True)
            continue
        lexicon = TantivyIndex(DataDir(where[corpus]).lexical, read_only=True)
        for asked in todo:
            names = analyse(asked["question"], lexicon).unseen_names
            asked["signals"]["names_unseen"] = float(len(names))
        named = sum(a["signals"]["names_unseen"] > 0 for a in todo)
        print(f"{corpus}: {len(todo)} questions, {named} name what the index never holds")
    write_measurements(measured, runs)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--again"]
    backfill(Path(args[0]), [Path(p) for p in args[1:]], again="--again" in sys.argv[1:])
