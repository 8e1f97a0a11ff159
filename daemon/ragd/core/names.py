"""File names that are not valid UTF-8: a printable key for the index, and the way back.

Linux names are bytes. Python hands an undecodable byte to us as a lone surrogate
(``os.fsdecode``'s surrogateescape: byte 0xE9 becomes U+DCE9), which SQLite, tantivy,
hashing and JSON all refuse to encode. Such a name is therefore *keyed* by a printable
form: each undecodable byte shown as ``\\xe9`` and, so the key can be turned back into
the name, each backslash of that name doubled. That key is what the manifest stores and
`rag status` / search results show; `disk_path` finds the file again.

Names that are valid UTF-8 (nearly all) are their own key, backslashes included. A key
is ambiguous only if a valid name happens to spell another name's escape literally
(``caf\\xe9.md`` beside ``caf<0xE9>.md``); `clashes` lets the walk skip the undecodable
one with a reason rather than have the two files overwrite each other's chunks.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

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


def _unescape(key: str) -> str:
    def back(match: re.Match[str]) -> str:
        code = match.group(1)
        return "\\" if code == "\\" else chr(0xDC00 + int(code[1:], 16))

    return _ESCAPE.sub(back, key)


def disk_path(root: str, key: str) -> Path:
    """The path on disk a key names: the key itself when that exists (or cannot be an
    escape), else the undecodable name it escapes."""
    literal = Path(root) / key if key else Path(root)
    if "\\" not in key or os.path.lexists(literal):
        return literal
    candidate = _unescape(key)
    if is_undecodable(candidate):
        return Path(root) / candidate
    return literal


def clashes(root: str, key: str, name: str) -> bool:
    """True when an undecodable `name`'s key is also the literal name of another file."""
    return key != name and os.path.lexists(Path(root) / key)


def shown(label: str) -> str:
    """A label for a log line: control characters (newlines…) escaped, the rest as is.
    File names are the user's: escaped, one event stays one line and a name cannot
    forge another."""
    if label.isprintable():
        return label
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in label)
