"""Does windowing matter? Dense-only hit@k with every window vs. the chunk truncated.

MiniLM reads 256 word pieces and drops the rest. ragd embeds each chunk as windows (the
heading path plus one block each) and scores a chunk by its best window. This script
indexes a corpus in-process (same loaders, chunker and windows as the daemon) and runs the
eval questions through brute-force cosine search twice: with every window, and with each
chunk embedded whole — what an encoder that silently truncates at 256 pieces sees.

    .venv/bin/python bench/windowing.py [CORPUS] [QUESTIONS]
    .venv/bin/python bench/windowing.py --synthetic   # long sections, answers late in them
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from ragd.harness.evaluation import load_questions
from ragd.index.embedder import MiniLMEmbedder
from ragd.ingest.planner import Planner, Skip

REPO = Path(__file__).resolve().parents[1]


PLACES = [
    "Alder Point",
    "Birchwick",
    "Cobble Reach",
    "Dunmere",
    "Elmstead",
    "Fallowby",
    "Gorsey Bank",
    "Hollin Ford",
    "Ivybridge",
    "Juniper Hill",
    "Kestle",
    "Larchmont",
]
TOPICS = [
    ("beehives", "The apiary keeps {n} beehives along the south wall and harvests honey in {m}."),
    (
        "boat repairs",
        "Boat repairs happen in the long shed, where {n} hulls fit at once; "
        "varnish is applied only in {m}.",
    ),
    (
        "library hours",
        "The reading room opens at {n} o'clock and the archive can be visited "
        "by appointment in {m}.",
    ),
    ("orchard", "The orchard holds {n} apple trees; pruning is done every {m} by volunteers."),
    ("bell tower", "The bell tower has {n} bells, rung for weddings and every {m} at noon."),
    ("weaving", "The weaving circle owns {n} looms and sells its blankets each {m}."),
    ("ferry slip", "The ferry slip takes boats up to {n} metres long; it is dredged in {m}."),
    ("bakery", "The village bakery fires its oven {n} times a day and closes in {m}."),
]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]


def synthetic(target: Path) -> Path:
    """Long single-section notes: each paragraph is about a different place and topic, and
    the questions ask about paragraphs in the second half of their section."""
    lines = []
    target.mkdir(parents=True, exist_ok=True)
    for i in range(len(PLACES)):
        paragraphs = []
        for j, (topic, template) in enumerate(TOPICS):
            place = PLACES[(i + j) % len(PLACES)]
            fact = template.format(n=3 + (i * 7 + j * 3) % 40, m=MONTHS[(i + j) % 12])
            paragraphs.append(
                f"About {place}: {fact} Local records describe it in some detail, and the "
                "parish newsletter mentions it most years."
            )
            if j >= len(TOPICS) // 2:
                question = f"What do the notes say about the {topic} in {place}?"
                expected = [{"source": f"{i:02d}.md", "heading": f"Parish notes {i}"}]
                lines.append(
                    json.dumps(
                        {
                            "question": question,
                            "answerable": True,
                            "kind": "plain",
                            "expected": expected,
                        }
                    )
                )
        body = "\n\n".join(paragraphs)
        (target / f"{i:02d}.md").write_text(f"# Parish notes {i}\n\n{body}\n")
    (target.parent / "synthetic-questions.jsonl").write_text("\n".join(lines) + "\n")
    return target


def main() -> None:
    if sys.argv[1:2] == ["--synthetic"]:
        corpus = synthetic(Path(tempfile.mkdtemp(prefix="ragd-windows-")) / "corpus")
        questions_path = corpus.parent / "synthetic-questions.jsonl"
    else:
        corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "sample_corpus"
        questions_path = (
            Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "bench" / "questions.jsonl"
        )
    embedder = MiniLMEmbedder()
    planner = Planner(embedder)
    chunks: list[tuple[str, str]] = []  # (source, heading)
    owners: list[int] = []  # window → chunk index
    windows: list[str] = []
    whole: list[str] = []  # each chunk as one text: the encoder keeps its first 256 pieces
    for path in sorted(corpus.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(corpus).as_posix()
        plan = planner.plan_bytes(str(corpus), rel, path.read_bytes())
        if isinstance(plan, Skip):
            continue
        for planned in plan.chunks:  # what the daemon embeds: the chunk minus its overlap
            for text in planned.windows:
                owners.append(len(chunks))
                windows.append(text)
            whole.append(f"{planned.row.heading}\n{planned.row.text}")
            chunks.append((rel, planned.row.heading))
    vectors = embedder.embed(windows)
    truncated = embedder.embed(whole)  # the tokenizer truncates at 256 word pieces
    owner = np.array(owners)
    multi = sum(1 for i in range(len(chunks)) if (owner == i).sum() > 1)
    questions = [q for q in load_questions(questions_path) if q.answerable]
    q_vectors = embedder.embed([q.question for q in questions], lane="query")

    def hit_rate(matrix: np.ndarray, owned_by: np.ndarray, k: int) -> float:
        hits = 0
        for q, qv in zip(questions, q_vectors, strict=True):
            best: dict[int, float] = {}
            for c, sim in zip(owned_by, matrix @ qv, strict=True):
                best[int(c)] = max(best.get(int(c), -1.0), float(sim))
            top = sorted(best, key=lambda c: -best[c])[:k]
            hits += any(e.matches(*chunks[c]) for c in top for e in q.expected)
        return hits / len(questions)

    print(
        f"corpus {corpus.name}: {len(chunks)} chunks, {len(windows)} windows, "
        f"{multi} chunks with more than one window"
    )
    for k in (1, 5):
        print(
            f"dense hit@{k}: every window (ragd) {hit_rate(vectors, owner, k):.3f} · "
            f"whole chunk, truncated by the encoder "
            f"{hit_rate(truncated, np.arange(len(chunks)), k):.3f}"
        )


if __name__ == "__main__":
    main()
