"""A segment file's footer length is read from the file itself: damage can make it say
anything. review76 noticed the check trusted it and would read up to the whole segment
file into memory as "JSON"; a footer is a few hundred bytes of JSON, so a length past
`FOOTER_MAX` is no tantivy footer, said without reading the body."""

from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

from ragd.index import segment_checksums
from ragd.index.segment_checksums import FOOTER_MAGIC, FOOTER_MAX, _footer_problem


def _with_footer(path: Path, body: bytes, footer: bytes, length: int | None = None) -> Path:
    size = len(footer) if length is None else length
    path.write_bytes(body + footer + struct.pack("<II", size, FOOTER_MAGIC))
    return path


def test_a_sound_footer_passes_and_a_changed_byte_fails(tmp_path: Path) -> None:
    body = b"postings " * 1000
    footer = json.dumps({"version": {"major": 0, "minor": 22}, "crc": zlib.crc32(body)})
    path = _with_footer(tmp_path / "s.idx", body, footer.encode())
    assert _footer_problem(path) is None
    damaged = bytearray(path.read_bytes())
    damaged[10] ^= 0xFF
    path.write_bytes(bytes(damaged))
    assert "fails its checksum" in (_footer_problem(path) or "")


def test_a_footer_length_past_any_real_footer_is_no_footer_and_reads_no_body(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    body = b"\0" * (4 * FOOTER_MAX)
    # The length says the whole body is the footer: the old check read all of it as JSON.
    path = _with_footer(tmp_path / "s.idx", body, b"", length=len(body))
    reads: list[int] = []
    real_fdopen = segment_checksums.os.fdopen

    class Counted:
        def __init__(self, handle):  # type: ignore[no-untyped-def]
            self.handle = handle

        def __enter__(self):  # type: ignore[no-untyped-def]
            return self

        def __exit__(self, *exc):  # type: ignore[no-untyped-def]
            return self.handle.__exit__(*exc)

        def seek(self, at: int) -> int:
            return self.handle.seek(at)

        def read(self, n: int) -> bytes:
            reads.append(n)
            return self.handle.read(n)

    monkeypatch.setattr(segment_checksums.os, "fdopen", lambda *a: Counted(real_fdopen(*a)))
    assert _footer_problem(path) == "has no tantivy footer"
    assert sum(reads) <= 8, reads


def test_a_footer_within_the_bound_that_json_or_int_cannot_take_is_not_tantivys(
    tmp_path: Path,
) -> None:
    """review77: a footer within FOOTER_MAX that is 4,000 `[` (past Python's JSON reader's
    depth) or `{"crc": 1e400}` (infinity, no integer) raised RecursionError or
    OverflowError out of the check; so did a meta.json nested as deep. Each is one
    problem said, or the index left to tantivy's open, as any other damage."""
    body = b"postings " * 100
    for footer in (b"[" * 4000, b'{"crc": 1e400}'):
        path = _with_footer(tmp_path / "s.idx", body, footer)
        assert _footer_problem(path) == "has a footer that is not tantivy's"
    (tmp_path / "meta.json").write_bytes(b'{"segments": ' + b"[" * 5000)
    assert segment_checksums.damaged_segment_file(tmp_path) is None
