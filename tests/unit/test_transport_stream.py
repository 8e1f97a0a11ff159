"""A `.ts` file is TypeScript, or an MPEG transport stream (a TV recorder's or camcorder's
video, `.mts`/`.MTS` for AVCHD clips): the planner tells them apart by a peek at the
packets' sync bytes, before the size cap or a read, and skips the video as "not a
document" (listed apart from the errors, like a no-text file), never as "too large"."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

from ragd.core.no_text import is_no_text
from ragd.index.manifest import FileRow
from ragd.ingest.planner import FileRules, Planner, Skip, Unchanged, version
from ragd.ingest.transport_stream import is_transport_stream


def packets(size: int, count: int, prefix: int = 0) -> bytes:
    """`count` packets of `size` bytes: a 0x47 sync byte after `prefix` bytes of
    timestamp (M2TS), then payload with no NUL (as a stream's stuffing, 0xFF)."""
    return (b"\x01" * prefix + b"\x47" + b"\xff" * (size - prefix - 1)) * count


def planner(cap: int | None = 1000) -> Planner:
    return Planner(cast(Any, None), rules=lambda: FileRules(cap))  # check needs no model


def test_a_transport_stream_is_told_from_typescript_by_its_sync_bytes() -> None:
    assert is_transport_stream(packets(188, 3))  # broadcast, DVB, a recorder's .ts
    assert is_transport_stream(packets(192, 3, prefix=4))  # AVCHD's 00000.MTS
    assert not is_transport_stream(b"G" + b"export const x = 1;\n" * 40)  # one 'G' only
    assert not is_transport_stream(packets(188, 1))  # too short to show the rhythm
    typescript = b"// Generated\nexport interface Options {\n  name: string;\n}\n" * 20
    assert not is_transport_stream(typescript)


def test_a_large_video_named_ts_is_not_a_document_not_too_large(tmp_path: Path) -> None:
    video = tmp_path / "recording.ts"
    video.write_bytes(packets(188, 40))  # 7,520 bytes, over the 1,000-byte cap
    st = video.stat()
    outcome = planner().check(video, st, None, None)
    assert isinstance(outcome, Skip) and outcome.drop, outcome
    assert "MPEG transport stream" in outcome.reason and is_no_text(outcome.reason)
    assert outcome.version == version(st)  # held back until it changes
    clip = tmp_path / "00000.MTS"
    clip.write_bytes(packets(192, 4, prefix=4))  # small: it was read as garbage
    outcome = planner(None).check(clip, clip.stat(), None, None)
    assert isinstance(outcome, Skip) and is_no_text(outcome.reason), outcome


def test_typescript_is_read_and_an_indexed_module_is_not_peeked_at(tmp_path: Path) -> None:
    module = tmp_path / "index.ts"
    module.write_text("export const answer = 42;\n" * 30)
    st = module.stat()
    assert planner().check(module, st, None, None) == st
    # Indexed with this stat: not opened again (a peek would find these packets).
    module.write_bytes(packets(188, 5)[: st.st_size])
    os.utime(module, ns=(st.st_atime_ns, st.st_mtime_ns))
    indexed = FileRow("r", "index.ts", *version(st), "sha", ())
    assert planner().check(module, module.stat(), indexed, None) == Unchanged()
    big = tmp_path / "big.ts"
    big.write_text("export const x = 1;\n" * 100)
    too_large = planner().check(big, big.stat(), None, None)
    assert isinstance(too_large, Skip) and too_large.reason.startswith("too large")


def test_a_fifo_named_ts_is_never_opened_for_a_peek(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.ts"
    os.mkfifo(fifo)
    outcome = planner().check(fifo, fifo.stat(), None, None)
    assert outcome == Skip("not a regular file", outcome.version, drop=True)  # type: ignore[union-attr]


def test_typescript_with_a_g_at_each_packets_offset_is_no_video() -> None:
    # Generated lines of one width (188 bytes with the newline), each opening with a call
    # on `Glyphs`: the sync byte's rhythm by chance, but text, which no stream is.
    def lines(indent: str, width: int) -> bytes:
        line = indent + 'Glyphs.add("harbour", 0x2693); // '
        return ((line + "=" * (width - 1 - len(line)) + "\n") * 4).encode()

    module = lines("", 188)
    assert module[0] == module[188] == module[376] == 0x47
    assert not is_transport_stream(module)
    indented = lines("    ", 192)  # in a block: at M2TS's offsets (4, 196, 388)
    assert indented[4] == indented[196] == indented[388] == 0x47
    assert not is_transport_stream(indented)
