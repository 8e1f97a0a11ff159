"""How often does the keyless (extractive) answer contain the expected facts?

Usage::

    python bench/keyless.py index CORPUS DATA_DIR      # index once with a private ragd
    python bench/keyless.py measure DATA_DIR QUESTIONS [--verbose] [--no-gate]

`measure` opens the indexes built by `index` in this process (no daemon), retrieves like
`rag ask` does and runs the extractive answerer, so a change to the answerer is measured
in seconds without re-indexing. A question file is JSON Lines; answerable questions
carry `"facts": ["short string", ...]`, and an answer counts when it contains every fact
(case-insensitive, whitespace collapsed). With `--no-gate` answers are produced for every
question even below the floor, so the answerer is measured apart from the gate.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ragd.core import environment

environment.apply_defaults()


def index(corpus: Path, data_dir: Path) -> None:
    """Index `corpus` into `data_dir` with a private daemon, then stop it."""
    from ragd.harness.private_daemon import PrivateDaemon

    data_dir.mkdir(parents=True, exist_ok=True)
    with PrivateDaemon.in_folder([corpus.absolute()], data_dir).indexed(3600, 0.5):
        pass


def normalised(text: str) -> str:
    return " ".join(text.lower().split())


def facts_present(answer: str, facts: list[str]) -> tuple[int, int]:
    body = normalised(answer)
    return sum(normalised(f) in body for f in facts), len(facts)


def measure(data_dir: Path, questions: Path, verbose: bool, gate: bool) -> dict[str, Any]:
    import importlib
    import inspect

    importlib.import_module("ragd.cli.main")  # the daemon's process-wide defaults
    from ragd.core.config import LiveSettings, Settings
    from ragd.core.roots import Roots
    from ragd.index.embedder import MiniLMEmbedder
    from ragd.index.store import Stores
    from ragd.query.extractive import ExtractiveAnswerer
    from ragd.query.retrieval import Retriever

    embedder = MiniLMEmbedder()
    stores = Stores.open(data_dir / "data")
    roots = Roots.from_json(stores.manifest.get_meta("roots"))
    retriever = Retriever(stores, embedder, roots, LiveSettings(Settings()))
    answerer = ExtractiveAnswerer(lambda texts: embedder.embed(texts, lane="query"))
    takes_gate = "gate" in inspect.signature(answerer.answer).parameters

    def extra(result: Any) -> dict[str, Any]:  # the answerer before issue 9 took no gate
        return {"gate": result.gate} if takes_gate else {}

    rows = [json.loads(line) for line in questions.read_text().splitlines() if line.strip()]
    tally = {"answerable": 0, "all_facts": 0, "some_facts": 0, "high_wrong": 0, "refused": 0}
    confidences: dict[str, int] = {}
    for row in rows:
        result = retriever.search(row["question"], top_k=5)
        if gate and not result.gate.passed:
            answer_text, confidence = "(refused)", "low"
            tally["refused"] += row.get("answerable", False)
        else:
            answer = answerer.answer(row["question"], result.chunks, **extra(result))
            answer_text, confidence = answer.text, answer.confidence
        if not row.get("answerable"):
            key = f"off-topic {confidence}"
            confidences[key] = confidences.get(key, 0) + 1
            mark = "OFF"
        else:
            tally["answerable"] += 1
            found, wanted = facts_present(answer_text, row["facts"])
            tally["all_facts"] += found == wanted
            tally["some_facts"] += 0 < found < wanted
            tally["high_wrong"] += found < wanted and confidence == "high"
            key = f"{'right' if found == wanted else 'wrong'} {confidence}"
            confidences[key] = confidences.get(key, 0) + 1
            mark = "OK " if found == wanted else ("PART" if found else "MISS")
        if verbose:
            print(f"--- {mark} [{confidence}] {row['question']}  facts={row.get('facts')}")
            print("\n".join(answer_text.splitlines()[2:]))
    tally["confidence"] = confidences  # type: ignore[assignment]
    share = tally["all_facts"] / max(1, tally["answerable"])
    print(f"{questions.name}: {tally['all_facts']}/{tally['answerable']} = {share:.0%} · {tally}")
    return tally


def main() -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("index")
    p.add_argument("corpus", type=Path)
    p.add_argument("data_dir", type=Path)
    p = sub.add_parser("measure")
    p.add_argument("data_dir", type=Path)
    p.add_argument("questions", type=Path)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--no-gate", action="store_true")
    args = parser.parse_args()
    if args.command == "index":
        index(args.corpus, args.data_dir)
    else:
        measure(args.data_dir, args.questions, args.verbose, not args.no_gate)


if __name__ == "__main__":
    main()
