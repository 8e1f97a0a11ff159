"""A line longer than a chunk with no space in it (minified JavaScript, a rustdoc
`sidebar-items.js`, a JSON array on one line) is cut between words, never inside one.

Such a line was cut at exactly the chunk's size, so the identifier across each cut
(`vdupq_la` | `ne_s64`) was split in two and one of its words matched no search: on
this machine's rustdoc pages, 39 of 600 JavaScript files lost words that way
(`core/arch/x86/sidebar-items.js`: 63 names).
"""

from __future__ import annotations

import re

from ragd.ingest.chunking import chunk_document
from ragd.ingest.loaders import parse

WORD = re.compile(r"[^\W_]+")  # what tantivy's simple tokenizer keeps: letters and digits


def _words_in_chunks(name: str, data: bytes) -> tuple[set[str], set[str]]:
    chunks = chunk_document(parse(name, data))
    found: set[str] = set()
    for chunk in chunks:
        found |= set(WORD.findall(chunk.text))
    return set(WORD.findall(data.decode())), found


def test_a_minified_line_is_cut_between_words() -> None:
    names = ",".join(f'"vdupq_lane_s{i}","mm256_cmp_epi{i}_mask"' for i in range(3000))
    data = f"window.SIDEBAR_ITEMS={{fn:[{names}]}};\n".encode()
    assert b" " not in data and len(data) > 100_000  # one line, many chunks long
    words, found = _words_in_chunks("sidebar-items.js", data)
    assert words - found == set()


def test_a_line_of_one_endless_word_is_still_cut_at_the_chunks_size() -> None:
    data = b"x" * 50_000 + b"\n"  # no punctuation to cut after: cut where the chunk ends
    chunks = chunk_document(parse("blob.js", data))
    assert len(chunks) > 3
    assert max(len(chunk.text) for chunk in chunks) < 50_000 // 3
