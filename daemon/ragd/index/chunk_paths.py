"""What the indexes keep of a chunk's file path: searchable words and scope keys.

* **Path words** — the root's folder name, the folders under it and the file's stem,
  split at `/ _ - .` and camelCase ("flask/docs/changeLog.rst" → "flask docs change Log").
  The lexical index searches them beside the text and the gate's coverage counts them,
  so "which Flask release…" prefers the chunks under `flask/`. They are never part of
  what is embedded: the embedding cache is keyed by window text, so a rename stays free.
* **Scope keys** — one key per level a `--in` scope can name: the root, each folder
  on the way down, the file itself. Both indexes store them (a tantivy raw field, a
  ChromaDB metadata list), so a scoped search filters inside each retriever before
  fusion with one exact-match test per scope. A root is named by a hash of its absolute
  path, so no absolute path reaches a vector-store server.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from pathlib import PurePosixPath

# A lower-case letter or digit followed by a capital, or the last capital of a run that
# starts a word ("HTTPServer" → "HTTP Server"): linear, one character of look-around.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[/_\-.\s]+")


@functools.lru_cache(maxsize=4096)
def path_words(root: str, relpath: str) -> str:
    """The words of a chunk's path: root folder name, folders, file stem. Cached: the
    gate scores every candidate of every question (the floor asks 288), and a file's
    chunks share one path."""
    parts = [PurePosixPath(root).name, *relpath.split("/")]
    if relpath:
        parts[-1] = PurePosixPath(parts[-1]).stem
    text = camel_split(" ".join(parts))
    return _SEPARATORS.sub(" ", text).strip()


def camel_split(text: str) -> str:
    """`text` with its camelCase names cut into words ("changeLog" → "change Log")."""
    return _CAMEL.sub(" ", text)


def root_key(root: str) -> str:
    """A root's name in the scope keys: stable, and not its absolute path."""
    return hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def scope_key(root: str, prefix: str) -> str:
    """The key of everything under `prefix` ("" = the whole root, else a folder or file
    relative to the root, '/'-separated)."""
    return f"{root_key(root)}:{prefix}" if prefix else root_key(root)


def parent_key(key: str) -> str | None:
    """The key of the folder holding what `key` names (None for a root's key)."""
    hashed, colon, prefix = key.partition(":")
    if not colon:
        return None
    folder = prefix.rpartition("/")[0]
    return f"{hashed}:{folder}" if folder else hashed


def place_of(key: str, roots: Iterable[str]) -> tuple[str, str] | None:
    """The (root, prefix) a scope key names, among `roots` (None: a root not among them)."""
    hashed, _, prefix = key.partition(":")
    for root in roots:
        if root_key(root) == hashed:
            return root, prefix
    return None


def scope_keys(root: str, relpath: str) -> list[str]:
    """Every scope a file lies in: its root, each folder above it, the file itself."""
    parts = relpath.split("/") if relpath else []
    return [scope_key(root, "/".join(parts[:n])) for n in range(len(parts) + 1)]
