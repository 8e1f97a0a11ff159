"""Citations you can open: every hit says where it is (lines, page, cells), and the lines
it names hold its text, read back from the real file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from ragd.index.manifest import ChunkRow, FileRow, Manifest
from ragd.ingest.document import split_lines
from tests.support.daemon import Daemon


def words(text: str) -> str:
    return " ".join(text.split())


def file_lines(daemon: Daemon, source: str, span: list[int]) -> str:
    text = (daemon.roots[0] / source).read_text(encoding="utf-8")
    return "\n".join(split_lines(text)[span[0] - 1 : span[1]])


def test_search_hits_name_lines_that_hold_their_text(sample_daemon: Daemon) -> None:
    d = sample_daemon
    results = d.search("Brannock slipway resurfacing vehicle bookings", top_k=10)["results"]
    for hit in results:
        if hit["source"].endswith(".pdf"):
            assert hit["lines"] is None and hit["page"] in (1, 2)
            continue
        held = file_lines(d, hit["source"], hit["lines"])
        assert words(hit["text"]) in words(held) or all(
            words(part) in words(held) for part in hit["text"].split("\n\n")
        ), (hit["source"], hit["lines"])
        assert held.split("\n")[0].strip() and held.split("\n")[-1].strip()  # tight
    notices = next(h for h in results if h["source"] == "harbour-notices.txt")
    assert notices["heading"] == "Harbour notices for passengers, winter 2024 to 2025"
    assert notices["lines"] == [1, 7]  # the title line and the first three notices


def test_a_pdf_hit_names_its_page(sample_daemon: Daemon) -> None:
    hit = sample_daemon.search("non-conformity NC-23-07", top_k=1, mode="bm25")["results"][0]
    assert hit["source"] == "safety-summary-2023.pdf" and hit["page"] == 2
    assert hit["heading"] == "Kestrel Sound Ferries: Annual Safety Summary"  # not the name


def test_locations_are_printed_by_search_and_show_sources(sample_daemon: Daemon) -> None:
    d = sample_daemon
    found = d.rag_json("search", "Marrowby car park pay by phone", "--top-k", "1")
    hit = found["results"][0]
    assert hit["source"] == "harbour-notices.txt" and hit["lines"] == [1, 7]
    printed = d.rag("search", "Marrowby car park pay by phone", "--top-k", "1").stdout
    assert printed.startswith("1. harbour-notices.txt (lines 1–7) — Harbour notices for")
    question = "How much is a week at Marrowby car park?"
    asked = d.rag("ask", "--show-sources", "--top-k", "1", question).stdout
    title = "Harbour notices for passengers, winter 2024 to 2025"
    assert f"1. [harbour-notices.txt:{title}] lines 1–7 · support" in asked
    answer = d.rag_json("ask", "--show-sources", "--top-k", "1", question)
    assert answer["sources"][0]["lines"] == [1, 7] and answer["sources"][0]["page"] is None
    # `get` reads exactly those lines back from the file: the hit's text, word for word.
    got = d.call("get", source="harbour-notices.txt", lines=hit["lines"])
    assert words(got["text"]) == words(hit["text"]) and got["lines"] == [1, 7]


def test_an_older_manifest_gains_the_location_column(tmp_path: Path) -> None:
    path = tmp_path / "manifest.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE chunks (chunk_id TEXT PRIMARY KEY, root TEXT NOT NULL, relpath TEXT "
        "NOT NULL, ordinal INTEGER NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL, "
        "page INTEGER, windows TEXT NOT NULL);"
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        """INSERT INTO chunks VALUES ('c1', '/r', 'a.md', 0, 'A', 'text', NULL, '["h"]');"""
    )
    old.commit()
    old.close()
    looked_at = Manifest(path, read_only=True)  # `ragd check`: reads it as it is
    assert looked_at.chunks_of("/r", "a.md")[0].lines is None
    looked_at.close()
    manifest = Manifest(path)
    assert manifest.chunks_of("/r", "a.md") == [
        ChunkRow("c1", "/r", "a.md", 0, "A", "text", None, ("h",))
    ]
    row = ChunkRow("c2", "/r", "b.ipynb", 0, "B", "x", None, ("h",), None, (2, 4))
    manifest.commit_file(FileRow("/r", "b.ipynb", 1, 1, "s", ("c2",)), [row])
    assert manifest.chunks_of("/r", "b.ipynb") == [row]
    stored = manifest._db().execute("SELECT location FROM chunks WHERE chunk_id='c2'")
    assert json.loads(stored.fetchone()[0]) == {"cells": [2, 4]}
    manifest.close()
