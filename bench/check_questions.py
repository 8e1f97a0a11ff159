"""Sanity-check bench/questions.jsonl against sample_corpus/.

Verifies the schema of every line, that each expected source exists, and that each
expected heading is a heading path the daemon's chunker gives that file ("H1 > H2 > H3";
a file without headings is headed by its title-like first line or "(untitled)").
Usage: python bench/check_questions.py
"""

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_corpus"
QUESTIONS = ROOT / "bench" / "questions.jsonl"
KINDS = {"plain", "exact_token", "stemming", "off_topic", "hard_negative"}
KEYS = {"question", "answerable", "expected", "kind", "facts", "absent", "origin"}


def valid_headings(source: str) -> set[str]:
    """Every heading path the daemon's own chunker gives `source`, and each of its parents
    (an expected section matches its subsections too)."""
    from ragd.ingest.chunking import HEADING_SEPARATOR, chunk_document
    from ragd.ingest.loaders import parse

    path = CORPUS / source
    if not path.is_file():
        return set()
    paths = {c.heading for c in chunk_document(parse(path.name, path.read_bytes()))}
    return {HEADING_SEPARATOR.join(h[:n]) for h in paths for n in range(1, len(h) + 1)}


def main() -> int:
    errors: list[str] = []
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines()]
    for n, row in enumerate(rows, 1):
        if not {"question", "answerable", "expected", "kind"} <= set(row) <= KEYS:
            errors.append(f"line {n}: unexpected keys {sorted(row)}")
            continue
        if row["kind"] not in KINDS:
            errors.append(f"line {n}: unknown kind {row['kind']!r}")
        if row["answerable"] != bool(row["expected"]):
            errors.append(f"line {n}: answerable does not match expected")
        if row["answerable"] == (row["kind"] in {"off_topic", "hard_negative"}):
            errors.append(f"line {n}: kind {row['kind']} inconsistent with answerable")
        for exp in row["expected"]:
            if exp["heading"] not in valid_headings(exp["source"]):
                errors.append(f"line {n}: no heading {exp['heading']!r} in {exp['source']}")
    covered = {e["source"] for r in rows for e in r["expected"]}
    missing = sorted(p.name for p in CORPUS.iterdir() if p.is_file() and p.name not in covered)
    if missing:
        errors.append(f"corpus files with no question: {missing}")
    print(f"{len(rows)} questions, {sum(r['answerable'] for r in rows)} answerable")
    print(dict(Counter(r["kind"] for r in rows)))
    for err in errors:
        print("ERROR", err)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
