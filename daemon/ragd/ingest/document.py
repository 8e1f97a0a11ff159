"""What every loader produces (`Document`), the one exception it may raise (`SkipFile`),
and decoding bytes to text: the leaf that `loaders` and every `formats` module share.

It sits apart from `loaders` so that the format modules, which `loaders` dispatches to,
do not import `loaders` back (no import cycle).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["markdown", "text", "pdf"]
# What a chunk's location counts: the file's own lines, a notebook's cells, a deck's
# slides, or a sheet's rows (the sheet is the heading).
Located = Literal["lines", "cells", "slides", "rows"]
LOCATED: tuple[Located, ...] = ("lines", "cells", "slides", "rows")
UNPLACED = 0  # an origin: from the file, but from no line the converter could tell
# The cap on the text extracted from one file when none is given: max_text_mb's default.
DEFAULT_CAP = 20 * 1024 * 1024


class SkipFile(Exception):
    """The file cannot be indexed; str(exc) is the reason shown to the user."""


class OutOfMemory(SkipFile):
    """A reader ran out of memory and said so: the process that ran it has a heap near
    its limit, and the parse worker is replaced before the next file (not trusted)."""


@dataclass
class Document:
    kind: Kind
    title: str  # the file stem (or a title the format itself holds); never a heading path
    text: str = ""  # markdown / plain text
    pages: list[tuple[int, str]] = field(default_factory=list)  # pdf: (1-based page, text)
    # pdf: its outline (bookmarks) as (1-based page, depth from 0, title), in document
    # order: the heading paths of its pages (`ingest/pdf_outline.py`)
    outline: list[tuple[int, int, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # non-fatal problems worth a log line
    # Where the lines of `text` come from, so each chunk can say where it is in the file.
    # `located` is None when nothing useful can be said (a docx has no line numbers).
    # With `origins` empty, `text` is the file's own text, line for line; otherwise
    # `origins[i]` is the 1-based line (or cell) that line i of `text` came from, or None
    # for a line the converter wrote itself (a code fence). A converted line that folds
    # several source lines into one (an HTML paragraph) has the last of them in
    # `reaches[i]`; with `reaches` empty, each line stands for its origin alone. An origin
    # of `UNPLACED` is text from the file whose line is not known: a chunk holding it
    # names no lines rather than lines that do not hold all of it.
    located: Located | None = None
    origins: list[int | None] = field(default_factory=list)
    reaches: list[int | None] = field(default_factory=list)
    # What the text depends on besides the file's bytes (DocBook, Mallard): the files read
    # beside it, by name in its folder, with the sha256 (hex) of the bytes read; the ids a
    # reference looked for beside it in vain; the ids a reference from beside can find in
    # it. The index reads the file again when one of these changes (`ingest/dependents.py`).
    reads: list[tuple[str, str]] = field(default_factory=list)
    wants: list[str] = field(default_factory=list)
    holds: list[str] = field(default_factory=list)
    # The path of runs of sections merged past the section budget that share no heading,
    # when the reader knows what the whole file is (a Nim module, a Crystal file); None:
    # the text's own title, `(untitled)` when it has none (`chunking.chunk_document`).
    runs_title: str | None = None


def split_lines(text: str) -> list[str]:
    """Lines as the chunker counts them (and as `get` reads them back): split at
    ``\\n``, ``\\r\\n`` and a lone ``\\r`` only, so a form feed does not start a line."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


SNIFF_BYTES = 8192  # how much of a file `looks_binary` judges it by
# NULs a text may hold as damage: two, or one per 2 KiB of the sample when that is more
# (four in a full 8 KiB). Binary formats hold them by the dozen in any 8 KiB (an integer's
# high bytes, padding); javadoc writes `CharUtils.NUL`'s value as a literal NUL, twice, and
# the page had been skipped whole as binary (newuser54), where one a line further on was
# dropped with a note.
STRAY_NULS = 2
NUL_SPACING = 2048


def looks_binary(data: bytes) -> bool:
    """More NUL bytes than a text's damage (STRAY_NULS, NUL_SPACING) or a high share of
    control characters in the first 8 KiB. A backspace between two printable bytes is no
    control: it is how nroff overstrikes bold and underlined words (`X\\bX`, `_\\bX`),
    and a `man -P cat` capture is text."""
    sample = data[:SNIFF_BYTES]
    if sample.count(b"\x00") > max(STRAY_NULS, len(sample) // NUL_SPACING):
        return True
    controls = sum(1 for b in sample if b < 32 and b not in (8, 9, 10, 12, 13, 27))
    return controls + _bare_backspaces(sample) > max(8, len(sample) // 20)


def _bare_backspaces(sample: bytes) -> int:
    """Backspaces in `sample` that do not strike one printable byte over another."""
    bare, start = 0, sample.find(b"\b")
    while start != -1:
        before = sample[start - 1] if start else 0
        after = sample[start + 1] if start + 1 < len(sample) else 0
        bare += not (before >= 32 and after >= 32)  # UTF-8's lead and trail bytes count
        start = sample.find(b"\b", start + 1)
    return bare


def decode_text(data: bytes) -> tuple[str, list[str]]:
    """Decode a text file: BOM-aware, UTF-8 (its stray bytes read as Latin letters where
    they are, `_not_utf8`), binary refused, and NUL characters dropped (`without_nul`)."""
    return without_nul(*decode_keeping_nul(data))


def without_nul(text: str, notes: list[str]) -> tuple[str, list[str]]:
    """`text` without its NUL characters, with a note saying how many went.

    NULs past a text's damage in the first 8 KiB make a file binary (`looks_binary`); a
    stray one had been kept, so a `.md` indexed `\x00` inside a chunk, shown in quotes and
    sent to the model. A stray NUL in a text file is damage (a crash mid-write, a tool that
    padded it), never words, so it is dropped: no chunk holds one. The line numbers stay as
    they were: a NUL is no line break, and dropping one makes none either. A CR just before
    a NUL is a line break of its own (`split_lines`), so it is written as an LF first: `CR
    NUL LF` stays two breaks where, dropped as it was, it became one `CR LF` and every later
    line was cited one line early. UTF-16/32 text can encode a NUL too (U+0000): the same
    rules.
    """
    count = text.count("\x00")
    if not count:
        return text, notes
    note = f"{count} NUL character(s) dropped (damage, not text)"
    return text.replace("\r\x00", "\n\x00").replace("\x00", ""), [*notes, note]


def decode_keeping_nul(data: bytes) -> tuple[str, list[str]]:
    """`decode_text` with NUL characters left in: for a format whose markup uses them
    (an Info manual's index markers)."""
    for bom, encoding in (
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            if encoding == "utf-16" and (lied := _utf8_behind_a_utf16_bom(data)) is not None:
                return lied
            try:
                return data.decode(encoding), []
            except UnicodeDecodeError as exc:
                return _wide_damaged(data, encoding, exc.reason)
    if looks_binary(data):
        raise SkipFile("binary content (not text)")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        return _not_utf8(data, exc.start)


# A UTF-16 BOM that lies: `FF FE` or `FE FF` in front of UTF-8 text (a tool that wrote
# one, a file glued from two). UTF-16 of any Latin text holds NUL bytes, and UTF-16 of
# other scripts is almost never valid UTF-8 (each unit would have to be a two-byte UTF-8
# sequence); read as UTF-16 such a file was CJK nonsense, and since chunker 240 one of odd
# length was too, with a note, where it had been refused (review77).
LYING_BOM_MIN_BYTES = 16


def _utf8_behind_a_utf16_bom(data: bytes) -> tuple[str, list[str]] | None:
    rest = data[len(codecs.BOM_UTF16_LE) :]
    if len(rest) < LYING_BOM_MIN_BYTES or b"\x00" in rest:
        return None
    try:
        text = rest.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text, ["a UTF-16 byte-order mark before UTF-8 text: read as UTF-8"]


# A UTF-16/32 text may hold a few code units that are no character (a lone surrogate, a
# file cut in the middle of one) and is still text; past one in this many characters it
# is not, and is refused as before (attack77: one lone surrogate refused the whole file).
WIDE_DAMAGE_SHARE = 100


def _wide_damaged(data: bytes, encoding: str, reason: str) -> tuple[str, list[str]]:
    """A UTF-16/32 text its strict decode refused: its damage replaced (U+FFFD) and said,
    or SkipFile when there is more damage than text."""
    text = data.decode(encoding, errors="replace")
    replaced = text.count("\ufffd") - data.decode(encoding, errors="ignore").count("\ufffd")
    if replaced > 1 + len(text) // WIDE_DAMAGE_SHARE:
        raise SkipFile(f"invalid {encoding.upper()} text ({reason})")
    return text, [f"{replaced} character(s) not valid {encoding.upper()} replaced (U+FFFD)"]


# A byte that is not UTF-8 is, in a text that is otherwise UTF-8 or ASCII, nearly always
# a Latin letter of an 8-bit encoding: `Klaus K\xe4mpf` in make's NEWS, `Fran\xe7ois` in
# ed's AUTHORS, a change log whose older entries predate UTF-8 (23 of 21,635 text files
# under /usr/share/doc here). Those bytes are read as Windows-1252 (Latin-1's letters
# plus its typographic quotes and dashes), so the name is the name, found as typed. A
# byte among a run of them (three or more high bytes together) is a word of another
# script's 8-bit encoding (Greek, Cyrillic): read as Latin it would be wrong letters, so
# it is replaced, as is a whole text where they are dense (`LATIN_SHARE`: in vim's
# tutors, French has one in 48 characters, Czech one in 11, Greek and Russian one in 2),
# or where the replaced outnumber the Latin ones: in Russian comments in code, a menu file
# in GBK Chinese, the one- and two-letter words are runs of one or two high bytes, and
# they had been made Latin letters (`и` `è`, `не` `íå`, `如` `Èç`) among the U+FFFD of
# the rest: 9 of vim 9.0's menu files (KOI8-R and -U, cp1251, ISO-8859-5, EUC-JP, cp932,
# EUC-KR, GBK, Big5); the 79 other files here with Latin letters read as before (review64).
LATIN_SHARE = 4  # a text with more than one replaced character in 4 is not Latin text
# The character Windows-1252 gives each byte UTF-8 may refuse, UTF-8 encoded; the five it
# leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) are not read as letters (U+FFFD).
_LATIN_UTF8 = {
    bytes((byte,)): bytes((byte,)).decode("windows-1252").encode()
    for byte in range(0x80, 0x100)
    if byte not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)
}
# A stray byte read as a Latin letter: a byte ≥ 0x80 that 1252 defines, alone between
# bytes < 0x80, or one of two such bytes together that are not one UTF-8 character
# (`\xc3\xa9` is `é`). Its neighbours are looked at from the byte itself (lookbehind and
# lookahead of one or two bytes), so the search skips to each high byte in C. Each
# match had been a call of a Python codec error handler that looked at the bytes around
# in a loop: 139 bytecodes a byte (6 now), a 20 MB text with one in five took 6-14 s to
# read here (2.5 s now; 0.14 s all replaced), in `get`'s line reads too, where the 5 s
# deadline blamed a stalled network mount (review64).
_STRAY_LATIN = re.compile(
    rb"[\x80\x82-\x8c\x8e\x91-\x9c\x9e-\xff]"
    rb"(?:(?<![\x80-\xff][\x00-\xff])(?:(?![\x80-\xff])"  # alone, or first of two:
    rb"|(?=[\x80-\xff](?![\x80-\xff]))(?:(?<![\xc2-\xdf])|(?=[\xc0-\xff])))"
    rb"|(?<=[\x80-\xff][\x00-\xff])(?<![\x80-\xff][\x00-\xff]{2})(?![\x80-\xff])"  # second
    rb"(?:(?<![\xc2-\xdf][\x00-\xff])|(?<=[\xc0-\xff])))"
)


def _not_utf8(data: bytes, first: int) -> tuple[str, list[str]]:
    """`data`, not valid UTF-8 from byte `first`, read with its stray bytes as Latin
    letters where they are (`_STRAY_LATIN`), replaced where they are not. C speed but
    for one table look-up a Latin byte (`re.subn`'s call)."""
    text = data.decode("utf-8", errors="replace")  # first, how dense they are
    already = data.count("\ufffd".encode())  # U+FFFD written in the file itself
    replaced = text.count("\ufffd") - already
    if replaced * LATIN_SHARE > len(text):
        return text, [f"invalid UTF-8 at byte {first}: {replaced} character(s) replaced"]
    latin_data, latin = _STRAY_LATIN.subn(lambda stray: _LATIN_UTF8[stray[0]], data)
    latin_text = latin_data.decode("utf-8", errors="replace")  # the rest: U+FFFD
    left = latin_text.count("\ufffd") - already
    if left > latin:  # mostly another script's: its short words are no Latin letters
        return text, [f"invalid UTF-8 at byte {first}: {replaced} character(s) replaced"]
    said = [f"{latin} byte(s) read as Windows-1252"] if latin else []
    said += [f"{left} character(s) replaced"] if left else []
    return latin_text, [f"invalid UTF-8 at byte {first}: {', '.join(said)}"]
