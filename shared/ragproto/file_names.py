"""File names that are not valid UTF-8, as both sides spell them on the wire.

Linux names are bytes. Python hands an undecodable byte to us as a lone surrogate
(``os.fsdecode``'s surrogateescape: byte 0xE9 becomes U+DCE9), which the UTF-8 wire
format, SQLite, tantivy and hashing all refuse to encode. Such a name is therefore
spelled by a printable *key*: each undecodable byte shown as ``\\xe9`` and, so the key
can be turned back into the name, each backslash of that name doubled. The daemon keys
its index and prints sources that way; `rag` sends a path typed on its command line
(`ingest`, `forget`, `--in`) that way; `name_of` is the way back.

Names that are valid UTF-8 (nearly all) are their own key, backslashes included.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\udc80-\udcff]")
_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


def is_undecodable(name: str) -> bool:
    return _SURROGATE.search(name) is not None


def name_key(name: str) -> str:
    """The printable, valid-UTF-8 key of a name as `os` returns it (surrogateescape)."""
    if not is_undecodable(name):
        return name
    doubled = name.replace("\\", "\\\\")
    return _SURROGATE.sub(lambda m: f"\\x{ord(m.group()) - 0xDC00:02x}", doubled)


def name_of(key: str) -> str:
    """The name a key escapes, as `os` takes it (surrogateescape); a key that escapes no
    undecodable byte is a name already, and is returned as it is."""

    def back(match: re.Match[str]) -> str:
        code = match.group(1)
        return "\\" if code == "\\" else chr(0xDC00 + int(code[1:], 16))

    name = _ESCAPE.sub(back, key) if "\\" in key else key
    return name if is_undecodable(name) else key
