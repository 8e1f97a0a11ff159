"""What an XML file's prolog says, read without parsing the file: its root element's name
and where its `<!DOCTYPE …>` is.

The DocBook reader asks before anything is parsed or loaded: an `.xml` file whose root is
not a DocBook element (a Maven pom, a settings file) is not a document and is left alone
at the cost of a scan of its first bytes; and a chapter with no DOCTYPE of its own borrows
its book's (`doctype_span` of the sibling `index.docbook`). One forward scan with `find`,
no regular expression: linear in the prolog, however it is written. The bytes are read as
ASCII-compatible (UTF-8, Latin-1); a UTF-16 file has no root found here.
"""

from __future__ import annotations

from dataclasses import dataclass

_NAME_ENDS = b" \t\r\n/>"


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
