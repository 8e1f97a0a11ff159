"""An MPEG transport stream named like TypeScript: `.ts` is what TV recorders and
camcorders name their video (`.mts`/`.MTS` for AVCHD clips), and TypeScript's suffix.

The names cannot tell them apart; the first bytes can. A transport stream is a run of
fixed-size packets, each opening with the sync byte 0x47: 188-byte packets (broadcast,
a recorder's `.ts`), or 192-byte ones whose first 4 bytes are a timestamp (M2TS:
AVCHD, Blu-ray). Three sync bytes at a packet's distance from each other is that rhythm.
An ASCII 'G' at exactly those offsets happens in TypeScript too (generated lines of one
width, each a call on `Glyphs`), so the rhythm counts only in bytes that are no text: a
stream's packets hold control bytes (a PAT's NUL, a PID's high bits, a PES start code)
or bytes UTF-8 never has (0xFF stuffing) within their first few bytes. The planner peeks
at `PEEK_BYTES` before its size cap or a read, so such a video is skipped as "not a
document" (listed with the files of no text, `core/no_text.py`), not as too large, nor
read as garbage. Pure: the bytes are passed in.
"""

from __future__ import annotations

from ragd.core.no_text import not_a_document

SYNC = 0x47
# (packet size, where its sync byte is): MPEG-TS, then M2TS with its 4-byte timestamp.
LAYOUTS = ((188, 0), (192, 4))
SYNCS_NEEDED = 3  # sync bytes at a packet's distance from each other
PEEK_BYTES = max(size * (SYNCS_NEEDED - 1) + at + 1 for size, at in LAYOUTS)
SUFFIXES = (".ts", ".mts")  # the names read as TypeScript that a video may have
REASON = not_a_document("MPEG transport stream video")


def may_be_video(name: str) -> bool:
    """Is `name` one a transport stream may carry (any case: `00000.MTS`)?"""
    return name.lower().endswith(SUFFIXES)


# Bytes no UTF-8 text holds: C0 controls but backspace, tab, line feed, form feed,
# carriage return and escape (as `document.looks_binary` counts them), and the bytes UTF-8
# never uses.
_NOT_TEXT = frozenset((*range(0x08), 0x0B, *range(0x0E, 0x1B), *range(0x1C, 0x20), 0xC0, 0xC1))
_NOT_TEXT |= frozenset(range(0xF5, 0x100))


def is_transport_stream(head: bytes) -> bool:
    """Do the first bytes of a file (at least `PEEK_BYTES` of them when it has as many)
    have a transport stream's packet rhythm, and are they no text?"""
    return not _NOT_TEXT.isdisjoint(head) and any(
        all(len(head) > at + size * n and head[at + size * n] == SYNC for n in range(SYNCS_NEEDED))
        for size, at in LAYOUTS
    )
