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
import unicodedata
from pathlib import Path

from ragproto.file_names import is_undecodable, name_key, name_of

__all__ = ["clashes", "disk_path", "existing_path", "is_undecodable", "name_key", "shown"]


def disk_path(root: str, key: str) -> Path:
    """The path on disk a key names: the key itself when that exists (or cannot be an
    escape), else the undecodable name it escapes."""
    literal = Path(root) / key if key else Path(root)
    if "\\" not in key or os.path.lexists(literal):
        return literal
    return Path(root) / name_of(key)


def existing_path(spelled: str) -> str:
    """A path as a request spells it (`rag` sends an undecodable name as its key, the
    way sources are printed), as `os` takes it: itself when it exists as spelled."""
    if "\\" not in spelled or os.path.lexists(spelled):
        return spelled
    return name_of(spelled)


def as_on_disk(path: str) -> str:
    """`path` as the disk spells it: itself when it exists, else with each missing name
    on the way replaced by the one name in its folder that is the same text in another
    Unicode normal form (`café` typed is NFC; macOS and its archives name it in NFD, and
    Linux keeps the bytes). Else `path` itself, for the caller's stat to call missing.
    Lists a folder per name that differs: the search pool's work, never the loop's."""
    if os.path.lexists(path):
        return path
    current, *names = Path(path).parts
    for name in names:
        candidate = os.path.join(current, name)
        if not os.path.lexists(candidate):
            nfc = unicodedata.normalize
            try:
                alike = [n for n in os.listdir(current) if nfc("NFC", n) == nfc("NFC", name)]
            except OSError:
                return path
            if len(alike) != 1:
                return path
            candidate = os.path.join(current, alike[0])
        current = candidate
    return current


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
