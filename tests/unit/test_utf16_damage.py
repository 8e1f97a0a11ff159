"""A UTF-16 or UTF-32 text (by its BOM) with a few code units that are no character
(attack77): a lone surrogate, as a truncated emoji or a tool that cut a string between
the two halves of a pair leaves one, or an odd byte at the end of a file cut short.

Before, one such unit refused the whole file, `invalid UTF-16 text (illegal UTF-16
surrogate)` in `rag status` errors, while a UTF-8 text with a stray byte is read with it
replaced. Now the damage is replaced (U+FFFD) with a note saying how much, as long as it
is damage: a file that is mostly not UTF-16 after its BOM is still refused.
"""

from __future__ import annotations

import codecs

import pytest

from ragd.ingest.document import SkipFile, decode_text

PROSE = "The north ferry leaves the pier at seven every morning. " * 40


def test_a_lone_surrogate_in_utf16_is_replaced_and_the_text_kept() -> None:
    lone = b"\x00\xd8"  # a high surrogate with no low one after it (little-endian)
    for data in (
        codecs.BOM_UTF16_LE + PROSE.encode("utf-16-le") + lone + "Zindle.".encode("utf-16-le"),
        codecs.BOM_UTF16_LE + PROSE.encode("utf-16-le") + b"Z",  # cut: an odd byte at the end
    ):
        text, notes = decode_text(data)
        assert text.startswith(PROSE) and "\ufffd" in text
        assert notes == ["1 character(s) not valid UTF-16 replaced (U+FFFD)"], notes
    text, _ = decode_text(codecs.BOM_UTF16_LE + PROSE.encode("utf-16-le") + lone + b"Z\x00")
    assert text.endswith("\ufffdZ")


def test_what_is_mostly_not_utf16_after_its_bom_is_still_refused() -> None:
    noise = codecs.BOM_UTF16_LE + b"\x00\xdc" * 500 + "ab".encode("utf-16-le")
    with pytest.raises(SkipFile, match="invalid UTF-16 text"):
        decode_text(noise)


def test_a_utf16_bom_before_utf8_text_is_read_as_utf8() -> None:
    """review77: `FF FE` in front of UTF-8 text (a BOM that lies) was read as UTF-16, CJK
    nonsense indexed; at odd length it had been refused, and since chunker 240 was indexed
    as nonsense with a note. No NUL byte and valid UTF-8 after it: it is UTF-8."""
    words = "The ferry timetable lists the harbour departures at seven.\n"
    for bom in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        for tail in ("", "x"):  # even and odd length
            text, notes = decode_text(bom + (words + tail).encode("utf-8"))
            assert text == words + tail, repr(text[:40])
            assert notes == ["a UTF-16 byte-order mark before UTF-8 text: read as UTF-8"]
    # real UTF-16, Latin or not, is still read as UTF-16
    for real in (PROSE, "港の時刻表は七時に出る。" * 20):
        assert decode_text(codecs.BOM_UTF16_LE + real.encode("utf-16-le"))[0] == real
        assert decode_text(codecs.BOM_UTF16_BE + real.encode("utf-16-be"))[0] == real
