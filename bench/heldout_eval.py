"""The new users' folders as evaluation corpora: their questions in the eval's form.

A folder under bench/heldout/ was asked by a new user who saw only its table of contents
(questions.jsonl, frozen) and labelled afterwards from the documents (labels.jsonl). This
module turns the pair into the question file `make eval` reads (bench/corpora/*.jsonl's
form), so the gate and the confidence are fitted and reported leave-one-corpus-out over
these folders too, and keeps what was measured on them in bench/heldout/measured.json
(the same form as bench/corpora/measured.json, which bench/refit.py reads).

A question its writer meant as answerable that the folder turned out not to answer
(`"answerable": false` in labels.jsonl) counts as a hard negative: a question in the
folder's domain whose answer is not there. An answerable question's expected passages are
the files its label names (any section of them).

`python bench/crosseval.py NAME …` (bench/crosseval.py) builds, measures and keeps them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HELDOUT = ROOT / "bench" / "heldout"
MEASURED = HELDOUT / "measured.json"


def eval_rows(where: Path) -> list[dict[str, Any]]:
    """The questions of bench/heldout/NAME as rows of an eval question file."""
    asked = _jsonl(where / "questions.jsonl")
    labels = {row["id"]: row for row in _jsonl(where / "labels.jsonl")}
    unlabelled = [r["id"] for r in asked if r["kind"] == "answerable" and r["id"] not in labels]
    if unlabelled:
        # Read as "not answerable" they would count as hard negatives without a word.
        raise ValueError(f"{where.name}: answerable questions without a label: {unlabelled}")
    unlabelled_answers = [
        r["id"]
        for r in asked
        if r["kind"] != "answerable"
        and labels.get(r["id"], {}).get("answerable")
        and not (labels[r["id"]].get("facts") and labels[r["id"]].get("sources"))
    ]
    if unlabelled_answers:
        # Scored as absent they would count against the gate for what the folder does say;
        # scored as answered they need the facts and files an answer is judged by.
        raise ValueError(
            f"{where.name}: unanswerable questions labelled answerable without facts and "
            f"sources: {unlabelled_answers}"
        )
    rows = []
    for raw in asked:
        label = labels.get(raw["id"], {})
        kind = raw["kind"]
        # The label decides, as bench/heldout.py's first report does: a hard negative the
        # folder turned out to answer ("Is there a GUI?" — "removed in SimPy 3") is an
        # answerable question, judged by the facts its writer labelled.
        answerable = bool(label.get("answerable")) and (
            kind == "answerable" or bool(label.get("facts"))
        )
        if kind == "answerable" and not answerable:
            kind = "hard_negative"
        row: dict[str, Any] = {
            "question": raw["question"],
            "answerable": answerable,
            "kind": "plain" if answerable else kind,
            "origin": "toc",
        }
        if answerable:
            row["expected"] = [{"source": s, "heading": ""} for s in label.get("sources", [])]
            row["facts"] = list(label.get("facts", []))
        rows.append(row)
    return rows


def eval_questions(where: Path, out: Path) -> Path:
    """Write NAME's questions in the eval's form under `out`; return the file."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{where.name}.jsonl"
    lines = [json.dumps(row, ensure_ascii=False) for row in eval_rows(where)]
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
