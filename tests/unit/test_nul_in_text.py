"""One rule for NUL bytes in a text file (fix25).

A NUL in the first 8 KiB makes a file binary, skipped (unchanged). One further in was kept:
a `.md` indexed `\\x00` inside a chunk, shown in quotes. Now a stray NUL is damage, not
content: every reader drops it (with a note), so no chunk holds one.
"""

from __future__ import annotations

import json

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SNIFF_BYTES, SkipFile, decode_text
from ragd.ingest.loaders import parse

# Past 8 KiB, in lines as short as reST asks (docutils reads no line over 10,000)
FILLER = "The ferry leaves the north pier at seven every morning.\n" * 200
assert len(FILLER) > SNIFF_BYTES


def test_the_decoder_drops_a_nul_past_the_sniff_and_says_so() -> None:
    text, notes = decode_text(f"{FILLER}\n\nThe night\x00 boat leaves at ten.\n".encode())
    assert "\x00" not in text and "The night boat leaves at ten." in text
    assert notes == ["1 NUL character(s) dropped (damage, not text)"]
    # UTF-16 (by its BOM) can spell one too, anywhere
    text, notes = decode_text("night\x00 boat".encode("utf-16"))
    assert (text, len(notes)) == ("night boat", 1)


def test_a_nul_in_the_sniffing_window_still_makes_a_file_binary() -> None:
    with pytest.raises(SkipFile, match="binary content"):
        decode_text(b"# Ferry\n\nThe night\x00 boat.\n" + FILLER.encode())


PAGES = {
    "late.md": f"# Ferry\n\n{FILLER}\n\nThe night\x00 boat leaves at ten.\n",
    "late.txt": f"{FILLER}\n\nThe night\x00 boat leaves at ten.\n",
    "late.rst": f"Ferry\n=====\n\n{FILLER}\n\nThe night\x00 boat leaves at ten.\n",
    "late.py": f'"""{FILLER}"""\n\nNIGHT = "The night\x00 boat leaves at ten."\n',
    # libxml2 reads a declared encoding itself, and made the NUL a U+FFFD
    "late.html": (
        f"<html><head><meta charset='utf-8'></head><body><h1>Ferry</h1><p>{FILLER}</p>"
        "<p>The night\x00 boat leaves at ten.</p></body></html>"
    ),
    # JSON spells a NUL as an escape, which no decoder sees
    "late.ipynb": json.dumps(
        {
            "cells": [
                {"cell_type": "markdown", "metadata": {}, "source": ["# Ferry\n", FILLER]},
                {
                    "cell_type": "markdown",
                    "metadata": {},
                    "source": ["The night\x00 boat leaves at ten."],
                },
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    ),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_no_chunk_holds_a_nul(name: str) -> None:
    chunks = chunk_document(parse(name, PAGES[name].encode()))
    text = "\n".join(chunk.text for chunk in chunks)
    assert "The night boat leaves at ten." in text, text[-300:]
    assert "\x00" not in text and "\ufffd" not in text
