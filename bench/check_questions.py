"""Sanity-check bench/questions.jsonl against sample_corpus/.

Verifies the schema of every line, that each expected source exists, and that each
expected heading is a real heading chain ("H1 > H2 > H3", `#` lines inside fenced code
are not headings). Pre-heading text belongs to the H1 if the file has one, else to the
file-name stem; .txt and .pdf files use the stem. Usage: python bench/check_questions.py
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "sample_corpus"
QUESTIONS = ROOT / "bench" / "questions.jsonl"
KINDS = {"plain", "exact_token", "stemming", "off_topic", "hard_negative"}
KEYS = {"question", "answerable", "expected", "kind", "facts", "absent"}
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def markdown_chains(path: Path) -> set[str]:
    chains: set[str] = set()
    stack: list[tuple[int, str]] = []
    in_fence = False
    has_h1 = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        m = None if in_fence else HEADING.match(line)
        if not m:
            continue
        level, text = len(m.group(1)), m.group(2)
        has_h1 = has_h1 or level == 1
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        chains.add(" > ".join(t for _, t in stack))
    if not has_h1:
        chains.add(path.stem)
    return chains


def valid_headings(source: str) -> set[str]:
    path = CORPUS / source
    if not path.is_file():
        return set()
    if path.suffix == ".md":
        return markdown_chains(path)
    return {path.stem}


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
