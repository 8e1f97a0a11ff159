"""tantivy's own checksum of each segment file, verified before the index is trusted.

Every file of a tantivy segment ends in a footer: a JSON object `{"version": …, "crc":
N}`, its length (u32, little-endian) and the magic number 1337 (u32). N is the CRC-32 of
the bytes before the footer. tantivy's open reads footers and metadata but checks no
CRC, and its reads check none either: bytes changed in the middle of a postings file (a
bad sector, a backup tool, a stray `dd` while ragd was stopped) that still decode gave
wrong BM25 ranks for as long as the daemon ran, with `rag status` and `ragd check`
saying nothing (attack73 left it; attack75). Damage that does not decode panics a read,
which the lexical index takes as damage (`TantivyIndex._reading`); this catches the rest
at the open.

Only the files of the segments meta.json names are read (a crash may leave files of a
segment never committed, or a deletes file of a commit that did not end), each once, in
pieces: linear in the index's size, with zlib's CRC-32 (≈ 2 GB/s of CPU). A named
segment without its files counts as damage too.
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from pathlib import Path
from typing import Any

FOOTER_MAGIC = 1337
# tantivy's footer JSON is a version and a CRC, under 300 bytes: a length past this is
# damage, not a footer to read into memory (the length is the file's own word for it).
FOOTER_MAX = 4096
PIECE = 1 << 20
_TAIL = struct.Struct("<II")  # the footer's JSON length, then the magic number


def damaged_segment_file(folder: Path) -> str | None:
    """Why a segment file of the index in `folder` fails its checksum, or None when every
    file of every segment meta.json names has its footer's CRC. (meta.json itself was read
    by the caller's checks; one that is not JSON is left to tantivy's open.)"""
    try:
        meta = json.loads((folder / "meta.json").read_bytes())
        segments = [_named(segment) for segment in meta.get("segments", [])]
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None  # no index, or one tantivy's open will refuse (`[[[[…` too: review77)
    names = sorted(os.listdir(folder))
    for segment, deletes in segments:
        # A segment's files, and of its deletes files the one meta.json names: a crash in
        # a commit may leave a newer one half written, which nothing reads.
        files = [n for n in names if n.startswith(segment + ".") and not n.endswith(".del")]
        if not files:
            return f"meta.json names segment {segment}, whose files are missing"
        for name in files if deletes is None else [*files, deletes]:
            if (problem := _footer_problem(folder / name)) is not None:
                return f"{name} {problem}"
    return None


def _named(segment: dict[str, Any]) -> tuple[str, str | None]:
    """A segment meta.json names: its file names' stem, and its deletes file if any."""
    stem = str(segment["segment_id"]).replace("-", "")
    deletes = segment.get("deletes")
    return stem, None if not deletes else f"{stem}.{int(deletes['opstamp'])}.del"


def _footer_problem(path: Path) -> str | None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if size < _TAIL.size:
            return "is too short for a footer"
        handle.seek(size - _TAIL.size)
        length, magic = _TAIL.unpack(handle.read(_TAIL.size))
        body = size - _TAIL.size - length
        if magic != FOOTER_MAGIC or body < 0 or length > FOOTER_MAX:
            return "has no tantivy footer"
        handle.seek(body)
        try:
            expected = int(json.loads(handle.read(length))["crc"])
        # `[[[[…` within FOOTER_MAX is past the JSON reader's depth; 1e400 is no integer
        except (ValueError, TypeError, KeyError, RecursionError, OverflowError):
            return "has a footer that is not tantivy's"
        handle.seek(0)
        crc, left = 0, body
        while left > 0:
            piece = handle.read(min(PIECE, left))
            if not piece:
                return "is shorter than its footer says"
            crc, left = zlib.crc32(piece, crc), left - len(piece)
    if crc != expected:
        return f"fails its checksum (CRC-32 {crc:08x}, its footer says {expected:08x})"
    return None
