"""The targets of a DocBook chapter's cross references that live in its sibling files.

A manual split into chapter files (GnuCash's guide: `ch_basics.xml`, `ch_txns.xml`, …
beside `index.docbook`) refers from one chapter to another (`<xref
linkend="chapter_txns"/>`); the chapter being read does not hold that id, and the reader
showed the id itself ("see chapter_txns"). A reader of the built manual sees the other
chapter's title, so the ids of the `.xml` and `.docbook` files beside this one are looked
up, lazily: only when a reference misses in the file itself, each sibling parsed at most
once per file read, in name order (the first file holding an id wins), each through the
same confinement as the file (`xml_confined`: DTDs beside it, nothing outside the folder)
and only when its prolog says it is a DocBook document. The siblings read for one file
are bounded in number and bytes; past that, a reference shows its id as before.

The index is keyed by each file's own bytes: a sibling's title that changes is shown by
the chapters that refer to it when they are next read (as a DTD beside them).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

from ragd.ingest.document import SkipFile
from ragd.ingest.formats.xml_blocks import ids_of
from ragd.ingest.formats.xml_confined import read_beside
from ragd.ingest.formats.xml_prolog import as_utf8, read_prolog

SUFFIXES = (".xml", ".docbook")
MAX_SIBLINGS = 256  # files parsed for one file read (GnuCash's guide has 26)
MAX_SIBLING_BYTES = 16 * 1024 * 1024  # bytes of them (the guide's are 0.9 MB)


class SiblingTargets:
    """The elements of the DocBook files beside `own` in `folder`, by id, found on demand.
    `parse` reads a sibling's bytes into its root element (SkipFile when it cannot);
    `is_document` says whether a prolog's root name makes a file a DocBook document."""

    def __init__(
        self,
        folder: str | None,
        own: str,
        is_document: Callable[[str], bool],
        parse: Callable[[bytes], Any],
    ) -> None:
        self.ids: dict[str, Any] = {}
        self.is_document = is_document
        self.parse = parse
        self.budget = MAX_SIBLING_BYTES
        self.folder = folder
        self.pending: Iterator[str] = iter(_sibling_names(folder, own))

    def find(self, key: str) -> Any:
        """The element whose id is `key` in a sibling, or None."""
        while key not in self.ids:
            name = next(self.pending, None)
            if name is None or self.budget <= 0:
                return None
            self._read(name)
        return self.ids[key]

    def _read(self, name: str) -> None:
        data = read_beside(self.folder, name, limit=self.budget)
        if data is None:
            return
        self.budget -= len(data)
        try:
            data = as_utf8(data)
            if not self.is_document(read_prolog(data).root or ""):
                return
            root = self.parse(data)
        except SkipFile:
            return  # said when that file is read itself
        for key, element in ids_of(root).items():
            self.ids.setdefault(key, element)  # the first file holding an id wins


def _sibling_names(folder: str | None, own: str) -> list[str]:
    if folder is None:
        return []
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if e.name.lower().endswith(SUFFIXES)]
    except OSError:
        return []
    return sorted(name for name in names if name != own)[:MAX_SIBLINGS]
