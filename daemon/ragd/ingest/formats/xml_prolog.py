"""What an XML file's prolog says, read without parsing the file: its root element's name
and where its `<!DOCTYPE …>` is.

The DocBook reader asks before anything is parsed or loaded: an `.xml` file whose root is
not a DocBook element (a Maven pom, a settings file) is not a document and is left alone
at the cost of a scan of its first bytes; and a chapter with no DOCTYPE of its own borrows
its book's (`doctype_span` of the sibling `index.docbook`). One forward scan with `find`,
no regular expression: linear in the prolog, however it is written. The bytes are read as
ASCII-compatible (UTF-8, Latin-1): a UTF-16 or UTF-32 file (a BOM, or `<?` in two or four
bytes, as the XML spec detects it) is first rewritten as UTF-8 by `as_utf8`, which the
readers call on every XML file they read, so its root is found and the rest of the reader
sees the bytes it sees for any other file (before, such a file was "XML (root < ? x m l >)
is not a document").
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from ragd.ingest.document import SkipFile

_NAME_ENDS = b" \t\r\n/>"
# What a file in a wide encoding starts with: its BOM, or `<?` (the XML declaration) when
# it has none (the XML spec's Appendix F). UTF-32 first: its LE BOM starts like UTF-16's.
_WIDE = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    ("<?".encode("utf-32-le"), "utf-32-le"),
    ("<?".encode("utf-32-be"), "utf-32-be"),
    ("<?".encode("utf-16-le"), "utf-16-le"),
    ("<?".encode("utf-16-be"), "utf-16-be"),
)
_DECLARATION_MAX = 512  # characters an XML declaration (`<?xml … ?>`) takes at most


def as_utf8(data: bytes) -> bytes:
    """`data` as UTF-8 when it is UTF-16 or UTF-32, its declaration's `encoding` said so
    (libxml2 would otherwise read UTF-8 bytes as the encoding the file named); line breaks
    stay where they were, so every line number is the file's. A file whose `<?xml` is one
    byte a character but whose declaration names a wide encoding (a header copied from
    another file) is not wide: its declaration says UTF-8 too (libxml2 believed it, and
    the file was "not well-formed"). Other bytes unchanged."""
    encoding = next((name for start, name in _WIDE if data.startswith(start)), None)
    if encoding is None:
        return _narrow_declared(data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SkipFile(f"unreadable XML (invalid {encoding.upper()}: {exc.reason})") from None
    text = text.removeprefix("\ufeff")
    if text.startswith("<?xml"):
        end = text.find("?>", 0, _DECLARATION_MAX)
        if end > 0:
            text = _utf8_declared(text[:end]) + text[end:]
    return text.encode("utf-8")


def _narrow_declared(data: bytes) -> bytes:
    """`data`, its declaration naming UTF-8 where it named UTF-16 or UTF-32."""
    if not data.startswith(b"<?xml"):
        return data
    end = data.find(b"?>", 0, _DECLARATION_MAX)
    declaration = data[: max(end, 0)].decode("latin-1")
    span = _encoding_span(declaration)
    if span is None or not declaration[span[0] : span[1]].upper().startswith(("UTF-16", "UTF-32")):
        return data
    return _utf8_declared(declaration).encode("latin-1") + data[end:]


def _encoding_span(declaration: str) -> tuple[int, int] | None:
    """Where the value of `encoding="…"` lies in an XML declaration, if it names one."""
    at = declaration.find("encoding")
    if at < 0:
        return None
    quote_at = min(
        (i for i in (declaration.find('"', at), declaration.find("'", at)) if i > 0), default=-1
    )
    if quote_at < 0:
        return None
    close = declaration.find(declaration[quote_at], quote_at + 1)
    return None if close < 0 else (quote_at + 1, close)


def _utf8_declared(declaration: str) -> str:
    """`<?xml version="1.0" encoding="UTF-16"` with its encoding named UTF-8."""
    span = _encoding_span(declaration)
    if span is None:
        return declaration
    return declaration[: span[0]] + "UTF-8" + declaration[span[1] :]


@dataclass(frozen=True)
class Prolog:
    root: str | None  # the root element's name as written (`chapter`, `db:book`)
    root_at: int  # where its start tag begins (len(data) when there is none)
    doctype: tuple[int, int] | None  # the `<!DOCTYPE …>` declaration's span


def read_prolog(data: bytes) -> Prolog:
    """Skip the XML declaration, comments, processing instructions and the DOCTYPE (its
    internal subset included) up to the first start tag."""
    at, doctype = 0, None
    if data.startswith(b"\xef\xbb\xbf"):
        at = 3
    while True:
        at = data.find(b"<", at)
        if at < 0:
            return Prolog(None, len(data), doctype)
        if data.startswith(b"<?", at):
            end = data.find(b"?>", at + 2)
            at = -1 if end < 0 else end + 2
        elif data.startswith(b"<!--", at):
            end = data.find(b"-->", at + 4)
            at = -1 if end < 0 else end + 3
        elif data.startswith(b"<!DOCTYPE", at):
            end = _declaration_end(data, at)
            doctype = None if end < 0 else (at, end)
            at = end
        elif data.startswith(b"<!", at):
            return Prolog(None, len(data), doctype)  # CDATA or markup no prolog holds
        else:
            return Prolog(_name_at(data, at + 1), at, doctype)
        if at < 0:
            return Prolog(None, len(data), doctype)


def _declaration_end(data: bytes, start: int) -> int:
    """Where the `<!DOCTYPE` at `start` ends (just past its `>`), or -1: quotes, comments
    and the bracketed internal subset are stepped over, so a `>` inside them is not it."""
    at, depth = start + 2, 0
    while at < len(data):
        byte = data[at : at + 1]
        if byte in (b'"', b"'"):
            end = data.find(byte, at + 1)
            if end < 0:
                return -1
            at = end + 1
            continue
        if data.startswith(b"<!--", at):
            end = data.find(b"-->", at + 4)
            if end < 0:
                return -1
            at = end + 3
            continue
        if byte == b"[":
            depth += 1
        elif byte == b"]":
            depth -= 1
        elif byte == b">" and depth <= 0:
            return at + 1
        at += 1
    return -1


def _name_at(data: bytes, at: int) -> str | None:
    end = at
    while end < len(data) and data[end] not in _NAME_ENDS:
        end += 1
    name = data[at:end].decode("utf-8", "replace")
    return name or None


def local_name(name: str) -> str:
    """`db:book` → `book`."""
    return name.rpartition(":")[2]
