"""A file chunked on the index writer costs it about what prose of the same allowance does,
whatever its shape (review71).

Only a document whose `chunking_cost` is over LARGE_TEXT_CHARS goes to the planner thread;
the rest is chunked and windowed on the writer, holding every other file's apply and the
searches behind it. The allowance was counted in characters alone, and windowing sizes each
line or sentence of an oversized block with its own tokenizer call: 255 KB of one-letter
lines held the writer 3.7 CPU s where 255 KB of prose held it 0.16 s. Each shape here is
built as large as the writer still takes it, and its planning CPU time compared with
prose's built the same way: a ratio of two times from one run, never a clock."""

from __future__ import annotations

import random

import pytest

from ragd.index.manifest import FileRow
from ragd.ingest.loaders import parse
from ragd.ingest.planner import LARGE_TEXT_CHARS, Planner, chunking_cost
from tests.support.growth import cpu_cost

COST_LIMIT = 4.0  # the writer's share of a hostile shape against prose's at the same allowance

SHAPES = {
    "one-letter lines": ("x.txt", "a\n"),
    "one-word paragraphs": ("x.txt", "a\n\n"),
    "list items": ("x.md", "- a\n"),
    "short sentences on one line": ("x.txt", "A. "),
    "sentences closed by a bracket": ("x.txt", "A.) "),
    "sentences ended by a tab": ("x.txt", "A.\t"),
    "lines ended by a lone carriage return": ("x.txt", "a\r"),
    "lines ended by a line separator": ("x.txt", "a\u2028"),
    "hyphens": ("x.txt", "a-"),
    "CJK": ("x.txt", "日本"),
    "lines of code in a fence": ("x.md", "x = 1\n"),
}


def _prose(repeats: int) -> str:
    rng = random.Random(71)
    words = [
        "".join(rng.choice("etaoinshrdlu") for _ in range(rng.randint(2, 9))) for _ in range(3000)
    ]
    lines = (" ".join(rng.choice(words) for _ in range(12)) + ".\n" for _ in range(repeats))
    return "# Notes\n\n" + "".join(
        f"{line}\n" if i % 6 == 5 else line for i, line in enumerate(lines)
    )


def _on_the_writer(name: str, build) -> bytes:  # type: ignore[no-untyped-def]
    """The file `build(n)` at the largest n (to a few percent) the writer still chunks."""
    n = 1_000
    while chunking_cost(parse(name, build(n * 2).encode())) <= LARGE_TEXT_CHARS:
        n *= 2
    step = n // 2
    while step >= n // 32:
        if chunking_cost(parse(name, build(n + step).encode())) <= LARGE_TEXT_CHARS:
            n += step
        step //= 2
    return build(n).encode()


def _planning(embedder, name: str, data: bytes) -> float:  # type: ignore[no-untyped-def]
    """The least CPU time of planning the file afresh (a planner that has not seen it: a
    second plan of the same file reuses its windows)."""
    document = parse(name, data)
    row = FileRow("/root", name, len(data), 0, "0" * 64, ())
    return cpu_cost(lambda doc: Planner(embedder).plan(row, doc), document, repeats=2)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_file_the_writer_chunks_costs_it_about_what_prose_does(embedder, shape) -> None:  # type: ignore[no-untyped-def]
    prose = _planning(embedder, "prose.md", _on_the_writer("prose.md", _prose))
    name, unit = SHAPES[shape]
    fenced = name == "x.md" and unit.startswith("x =")
    data = _on_the_writer(name, lambda n: ("```\n" if fenced else "") + unit * n)
    ratio = _planning(embedder, name, data) / prose
    assert ratio < COST_LIMIT, (shape, len(data), round(ratio, 1))
