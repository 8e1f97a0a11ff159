"""Questions a new user wrote for a folder nobody on the project fitted on, asked again.

Usage: python bench/heldout.py QUESTIONS_DIR FOLDER [--json OUT]

QUESTIONS_DIR (bench/heldout/<name>/) holds `questions.jsonl` (frozen: written from the
folder's table of contents only, in the writer's own words; `kind` is answerable,
hard_negative or off_topic) and `labels.jsonl` (written after, from the documents: for an
answerable question the files that answer it and 1–3 fact strings). FOLDER is the folder
the questions were written for (README.md there says how to get it). A private `ragd
serve FOLDER` with no API key indexes it; once it is idle and its floor is learned, every
question goes through the real client (`rag ask --json --show-sources`), and the figures of
issue 19 item 8 are printed: false refusals, hard negatives refused, off-topic refused,
keyless answers holding at least half their facts (by string; a reader's verdict can be
stricter), hit@5 by file, and the confidence against right and wrong.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragd.harness.private_daemon import PrivateDaemon, wait_for  # noqa: E402


def has_fact(answer: str, fact: str) -> bool:
    """A flag or a short token as a whole word ("-k" is not in "-kill"), else a substring."""
    if fact.startswith("-") or len(fact) <= 2:
        return re.search(r"(?<![\w-])" + re.escape(fact) + r"(?![\w-])", answer) is not None
    return fact.lower() in answer.lower()


def ask(daemon: PrivateDaemon, question: str) -> dict[str, Any]:
    rag = Path(sys.executable).parent / "rag"
    done = subprocess.run(
        [str(rag), "ask", "--json", "--show-sources", "--", question],
        env=daemon.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    reply: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return reply | {"exit": done.returncode, "stderr": done.stderr.strip()}


def score(rows: list[dict[str, Any]], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    tally: Counter[str] = Counter()
    confidence: Counter[str] = Counter()
    for row in rows:
        label, reply = labels[row["id"]], row["reply"]
        refused = bool(reply.get("refused"))
        if label["answerable"]:
            text = reply.get("answer", "")
            found = sum(has_fact(text, f) for f in label["facts"])
            right = not refused and 2 * found >= len(label["facts"])
            sources = [s["source"] for s in reply.get("sources") or []][:5]
            tally["answerable"] += 1
            tally["false refusals"] += refused
            tally["≥ half the facts"] += right
            # (the man run's labels name the pages as rendered text: tar.1.txt for tar.1.gz)
            wanted = [x.removesuffix(".txt") for x in label["sources"]]
            tally["hit@5 (file)"] += any(x in s for s in sources for x in wanted)
            if not refused:
                confidence[f"{reply.get('confidence')} {'right' if right else 'wrong'}"] += 1
        else:
            kind = row["kind"]
            tally[kind] += 1
            tally[f"{kind} refused"] += refused
            if not refused:
                confidence[f"{reply.get('confidence')} {kind} passed"] += 1
    return {"tally": dict(tally), "confidence": dict(sorted(confidence.items()))}


def run(questions_dir: Path, folder: Path) -> dict[str, Any]:
    questions_file = questions_dir / "questions.jsonl"
    questions = [json.loads(line) for line in questions_file.read_text().splitlines() if line]
    labels_lines = (questions_dir / "labels.jsonl").read_text().splitlines()
    labels = {row["id"]: row for row in map(json.loads, filter(None, labels_lines))}
    with tempfile.TemporaryDirectory(prefix="ragd-heldout-") as tmp:
        daemon = PrivateDaemon.in_folder([folder.resolve()], Path(tmp))
        with daemon.indexed(timeout=3600, interval=0.5) as status:

            def floor_learned() -> bool:
                return bool((daemon.status().get("floor") or {}).get("current", True))

            wait_for(floor_learned, 600, "the gate floor to be learned", 0.5)
            rows = [{**q, "reply": ask(daemon, q["question"])} for q in questions]
    return {
        "questions_sha256": hashlib.sha256(questions_file.read_bytes()).hexdigest(),
        "files": status["files"],
        "chunks": status["chunks"],
        **score(rows, labels),
        "rows": rows,
    }


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions_dir", type=Path)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", type=Path, help="write every reply and the figures here")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = run(args.questions_dir, args.folder)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
