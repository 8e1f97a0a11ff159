"""One rule for NUL bytes in a text file (fix25).

More NULs in the first 8 KiB than a text's damage (two, one per 2 KiB) make a file
binary, skipped. A stray one had been kept:
a `.md` indexed `\\x00` inside a chunk, shown in quotes. Now a stray NUL is damage, not
content: every reader drops it (with a note), so no chunk holds one.
"""

from __future__ import annotations

import json

import pytest

from ragd.ingest.chunking import chunk_document
from ragd.ingest.document import SNIFF_BYTES, SkipFile, decode_text, split_lines
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


def test_a_stray_nul_in_the_sniffing_window_is_dropped_as_one_further_in_is() -> None:
    """Javadoc writes `CharUtils.NUL`'s value as a literal NUL, twice in the page's first
    8 KiB: the whole page had been skipped as binary (newuser54's nu54a)."""
    text, notes = decode_text(b"# Ferry\n\nThe night\x00 boat\x00.\n" + FILLER.encode())
    assert text.startswith("# Ferry\n\nThe night boat.\n")
    assert notes == ["2 NUL character(s) dropped (damage, not text)"]


def test_nuls_past_a_text_s_damage_make_a_file_binary() -> None:
    # Three in a short file, or more than one per 2 KiB of the first 8 KiB: binary.
    with pytest.raises(SkipFile, match="binary content"):
        decode_text(b"# Ferry\n\x00\x00\x00 boat.\n")
    with pytest.raises(SkipFile, match="binary content"):
        decode_text(b"# Ferry\n" + b"\x00 boat.\n" * 5 + FILLER.encode())
    # A binary header of words with the NULs of its numbers (a model's safetensors).
    with pytest.raises(SkipFile, match="binary content"):
        decode_text(b'{"dtype": "F32", "shape": [384]}' + b"\x00\x00\x01\x80" * 3 + FILLER.encode())


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


DAMAGED = "The day ferry leaves at nine.\r\x00\n\r\x00\x00\nThe night boat leaves at ten.\n"
CR_NUL_LF = {
    "late.txt": f"{FILLER}\n{DAMAGED}",
    "late.md": f"# Ferry\n\n{FILLER}\n{DAMAGED}",
    "late.py": f'"""{FILLER}"""\n\nNOTE = """{DAMAGED}"""\n',
}


@pytest.mark.parametrize("name", sorted(CR_NUL_LF))
def test_a_nul_between_cr_and_lf_leaves_them_two_line_breaks(name: str) -> None:
    """carried36: a NUL is no line break, and dropping it makes none either. `CR NUL LF`
    is a CR (a line break of its own) and an LF; with the NUL dropped they became one
    `CR LF`: every line after it was numbered one line early, unlike the same file read
    by a reader that drops NULs line by line (an Info manual's)."""
    raw = CR_NUL_LF[name]
    text, _ = decode_text(raw.encode())
    assert split_lines(text) == [line.replace("\x00", "") for line in split_lines(raw)]
    last = max(chunk_document(parse(name, raw.encode())), key=lambda c: c.lines or (0, 0))
    assert "The night boat leaves at ten." in last.text
    # The last chunk ends at the file's last line, as its lines are counted with the NUL
    assert last.lines is not None and last.lines[1] == len(split_lines(raw.rstrip("\n")))
