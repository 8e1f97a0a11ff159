"""The planner on its own (no stores): what it decides for a file, and that a plan is pure.

Also the layering the writer split rests on: `ragd.index` (stores and the writer) imports
nothing from `ragd.ingest` or `ragd.query`.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from ragd.index.manifest import FileRow
from ragd.ingest import window_memory
from ragd.ingest import windows as windows_module
from ragd.ingest.planner import FileRules, Gone, Planner, Skip, Unchanged, sha256_hex

INDEX = Path(__file__).resolve().parents[2] / "daemon" / "ragd" / "index"


def test_the_index_layer_imports_nothing_from_ingest_or_query() -> None:
    upward = []
    for path in sorted(INDEX.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            upward += [
                f"{path.name}: {n}" for n in names if n.startswith(("ragd.ingest", "ragd.query"))
            ]
    assert len(list(INDEX.glob("*.py"))) >= 10  # the folder is the one meant
    assert upward == []


def test_check_and_read_say_why_a_file_is_not_planned(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    planner = Planner(embedder, rules=lambda: FileRules(100))
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nShort.\n")
    st = note.stat()
    assert planner.check(note, st, None, None) == st  # to be read
    link = tmp_path / "link.md"
    link.symlink_to(note)
    assert planner.check(link, os.lstat(link), None, None) == Skip(
        "symbolic link (not followed: follow_symlinks = true reads it)", drop=True
    )
    big = tmp_path / "big.md"
    big.write_text("x" * 101)
    too_large = planner.check(big, big.stat(), None, None)
    assert isinstance(too_large, Skip) and too_large.drop
    assert too_large.reason.startswith("too large") and too_large.version == (
        101,
        big.stat().st_mtime_ns,
    )
    data = note.read_bytes()
    indexed = FileRow("r", "note.md", st.st_size, st.st_mtime_ns, sha256_hex(data), ())
    assert planner.check(note, st, indexed, None) == Unchanged()  # same stat: not read
    held = ("bad file", st.st_size, st.st_mtime_ns)
    assert planner.check(note, st, None, held) == Unchanged()  # this version failed before
    assert planner.read(note, st) == data
    assert planner.same(indexed, sha256_hex(data), st) == Unchanged((st.st_size, st.st_mtime_ns))
    note.unlink()
    assert planner.read(note, st) == Gone()


def test_a_plan_is_pure_and_each_window_can_be_rebuilt_from_its_row(embedder) -> None:  # type: ignore[no-untyped-def]
    planner = Planner(embedder)
    sections = "\n\n".join(
        f"## Part {p}\n\n"
        + "\n\n".join(f"Paragraph {p}.{i} says the ferry leaves at {i} past." for i in range(40))
        for p in range(3)
    )
    data = f"# Timetable\n\n{sections}\n\nThe ferry leaves at 7 past.\n".encode()
    plan = planner.plan_bytes("/root", "timetable.md", data)
    assert not isinstance(plan, Skip)
    assert plan == planner.plan_bytes("/root", "timetable.md", data)  # same bytes, same plan
    assert len(plan.chunks) >= 3 and plan.row.chunk_ids == tuple(
        p.row.chunk_id for p in plan.chunks
    )
    assert len(set(plan.row.chunk_ids)) == len(plan.chunks)
    for planned in plan.chunks:
        for index, window in enumerate(planned.windows):
            assert planner.window_text(planned.row, index) == window
    skipped = planner.plan_bytes("/root", "broken.pdf", b"not a pdf")
    assert isinstance(skipped, Skip) and skipped.reason and not skipped.drop


def window_chars(planner: Planner, heading_chars: int, paragraphs: int) -> tuple[int, int]:
    """(bytes of a Markdown file with six nested headings of `heading_chars` each over
    `paragraphs` short paragraphs, chars of all the windows its plan embeds)."""
    headings = "".join(f"{'#' * level} {'h' * heading_chars}\n\n" for level in range(1, 7))
    body = "\n\n".join(f"Paragraph {i} says the ferry leaves at {i}." for i in range(paragraphs))
    data = (headings + body).encode()
    plan = planner.plan_bytes("/root", "tall.md", data)
    assert not isinstance(plan, Skip)
    return len(data), sum(len(w) for p in plan.chunks for w in p.windows)


def test_long_headings_do_not_multiply_what_is_embedded(embedder) -> None:  # type: ignore[no-untyped-def]
    """Every window repeats its heading path, so headings of unbounded length over many
    small paragraphs made the windows grow as headings × paragraphs: 6 headings of 200 kB
    over 2,000 paragraphs planned 400 MB of window text (found by attack). Four times
    both must cost about four times the window text, not sixteen."""
    planner = Planner(embedder)
    small_bytes, small = window_chars(planner, 2_000, 100)
    big_bytes, big = window_chars(planner, 8_000, 400)
    assert 3.5 < big_bytes / small_bytes < 4.5  # the file itself grew 4×
    assert big / small < 5, (small, big)


def test_a_file_of_tiny_blocks_shares_windows_within_its_budget(embedder) -> None:  # type: ignore[no-untyped-def]
    """One window per block made a window every 8 characters of a file of one-word
    paragraphs (attack63: 21,030 embeddings for 256 KB, 34× a prose file's). Past its
    budget a file's blocks share windows: no more windows than the budget, every word
    still in one, each window rebuilt from its row; a prose file keeps one per block."""
    planner = Planner(embedder)
    words = [f"tern{i}" for i in range(4_000)]
    data = ("# Birds\n\n" + "\n\n".join(words) + "\n").encode()
    plan = planner.plan_bytes("/root", "tiny.md", data)
    assert not isinstance(plan, Skip)
    windows = [w for p in plan.chunks for w in p.windows]
    embedded = sum(len(p.row.text) for p in plan.chunks)  # ≥ the text the chunks embed
    assert len(windows) <= windows_module.window_budget(embedded) < len(words) // 2
    assert {w for window in windows for w in window.split()} >= set(words)
    for planned in plan.chunks[:3]:
        for index, window in enumerate(planned.windows):
            assert planner.window_text(planned.row, index) == window
    prose = "\n\n".join(f"Paragraph {i} says the ferry leaves at {i} past." for i in range(200))
    kept = planner.plan_bytes("/root", "prose.md", f"# Ferry\n\n{prose}\n".encode())
    assert not isinstance(kept, Skip)
    assert sum(len(p.windows) for p in kept.chunks) == 200  # one per paragraph, as before


class CountingTokens:
    """The real model's tokenizer, recording each text it is asked to size."""

    def __init__(self, embedder) -> None:  # type: ignore[no-untyped-def]
        self.embedder = embedder
        self.sized: list[str] = []

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        return getattr(self.embedder, name)

    def count_tokens(self, text: str) -> int:
        self.sized.append(text)
        return int(self.embedder.count_tokens(text))


def test_a_file_planned_again_sizes_only_the_chunks_it_did_not_have(embedder) -> None:  # type: ignore[no-untyped-def]
    """Each version of a log appended to was windowed whole: its unchanged chunks were
    tokenized again (≈ 0.9 CPU s per MB of text, version after version)."""
    tokens = CountingTokens(embedder)
    planner = Planner(tokens)
    entries = [f"Entry {i}: worker {i % 17} took request {i} in {i % 97} ms." for i in range(4000)]
    data = "# Server log\n\n" + "\n\n".join(entries) + "\n"
    first = planner.plan_bytes("/root", "server.md", data.encode())
    assert not isinstance(first, Skip) and len(first.chunks) > window_memory.MIN_CHUNKS
    appended = (data + "\nEntry 4000: the last one arrived late.\n").encode()
    tokens.sized.clear()
    second = planner.plan_bytes("/root", "server.md", appended)
    assert second == Planner(embedder).plan_bytes("/root", "server.md", appended)
    assert not isinstance(second, Skip)
    known = set(first.row.chunk_ids)
    new = [f"{p.row.heading}\n{p.row.text}" for p in second.chunks if p.row.chunk_id not in known]
    assert new and tokens.sized  # the tail is sized ...
    assert all(any(text in chunk for chunk in new) for text in tokens.sized)  # ... only it
