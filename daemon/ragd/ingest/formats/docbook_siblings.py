"""The targets of a file's cross references that live in its sibling files: a DocBook
chapter's `xref` to another chapter, a Mallard page's `link xref` to another page.

A manual split into chapter files (GnuCash's guide: `ch_basics.xml`, `ch_txns.xml`, …
beside `index.docbook`) refers from one chapter to another (`<xref
linkend="chapter_txns"/>`); the chapter being read does not hold that id, and the reader
showed the id itself ("see chapter_txns"). A reader of the built manual sees the other
chapter's title, so the ids of the files beside this one (`.xml` and `.docbook` for
DocBook, `.page` for Mallard) are looked up, lazily: only when a reference misses in the
file itself, in name order (the first file holding an id wins), each through the same
confinement as the file (`xml_confined`: DTDs beside it, nothing outside the folder) and
only when its prolog says it is the reader's kind of document. The siblings looked at for
one file are bounded in number and bytes; past that, a reference shows its id as before.

Each sibling's ids are learnt once per version of its bytes (and of the DTDs it read) and
kept by the parse worker (`sibling_index`), so a folder whose chapters all miss costs one
parse of each, not one of each per chapter. `depended` tells the document what its
text depends on besides its own bytes (the siblings shown, the ids found nowhere), so the
index reads it again when they change (`ingest/dependents.py`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ragd.ingest.document import Document, SkipFile
from ragd.ingest.formats.file_version import FileVersion, look, read_version
from ragd.ingest.formats.sibling_index import SIBLINGS, Indexed
from ragd.ingest.formats.xml_confined import ABSENT, MAX_COMPANION_BYTES, Reads, read_beside
from ragd.ingest.formats.xml_prolog import as_utf8, read_prolog

MAX_SIBLINGS = 256  # files looked at for one file read (GnuCash's guide has 26)
MAX_SIBLING_BYTES = 16 * 1024 * 1024  # bytes of them (the guide's are 0.9 MB)

Targets = dict[str, Any]  # id → element


@dataclass(frozen=True)
class SiblingReader:
    """How one reader looks at the files beside the one it reads."""

    name: str  # the reader ("DocBook"): what one reader learnt is not another's
    suffixes: tuple[str, ...]  # the names that can be its documents
    is_document: Callable[[str], bool]  # a prolog's root name makes a file one
    parse: Callable[[bytes, str, Reads], Any]  # (bytes, folder, reads) → root; SkipFile
    targets: Callable[[Any], Targets]  # what a reference can find in a parsed sibling


class SiblingTargets:
    """The elements of the files beside `own` in `folder`, by id, found on demand."""

    def __init__(self, folder: str | None, own: str, reader: SiblingReader) -> None:
        self.reader = reader
        self.folder = folder
        self.budget = MAX_SIBLING_BYTES
        self.pending: Iterator[str] = iter(_sibling_names(folder, own, reader.suffixes))
        self.holders: dict[str, str] = {}  # id → the sibling that holds it (the first)
        self.entries: dict[str, Indexed] = {}  # the siblings looked at, by name
        self.parsed: dict[str, Targets] = {}  # siblings parsed again for this file read
        self.shown: set[str] = set()  # siblings a reference found its target in
        self.missed: set[str] = set()  # ids looked for beside the file in vain

    def find(self, key: str) -> Any:
        """The element whose id is `key` in a sibling, or None."""
        while key not in self.holders:
            name = next(self.pending, None)
            if name is None or self.budget <= 0:
                self.missed.add(key)
                return None
            self._look_at(name)
        name = self.holders[key]
        found = self._targets(name).get(key)
        if found is not None:
            self.shown.add(name)
        return found

    def depended(self, document: Document, own: Reads, holds: Iterable[str]) -> None:
        """Tell `document` what its text depends on beside it (`Document.reads`, `wants`,
        `holds`): the files its own parse read (`own`), the siblings a reference showed a
        target of and the DTDs they read, the ids found nowhere; `holds`, its own ids."""
        reads = {name: digest.hex() for name, digest in own.items()}
        for name in sorted(self.shown):
            entry = self.entries[name]
            reads[name] = reads.get(name) or entry.version.digest.hex()  # (read, not absent)
            for companion, version in entry.companions:
                reads[companion] = reads.get(companion) or version.digest.hex()
        document.reads = sorted(reads.items())
        document.wants = sorted(self.missed)
        document.holds = sorted(holds)

    def _look_at(self, name: str) -> None:
        assert self.folder is not None  # (no folder: no siblings pending)
        st = look(self.folder, name)
        if st is None or st.st_size > self.budget:
            return  # (read_beside would refuse it)
        entry = SIBLINGS.current((self.reader.name, self.folder, name))
        if entry is None:
            entry = self._learn(name)
            if entry is None:
                return
        self.budget -= entry.size
        self.entries[name] = entry
        for key in entry.ids:
            self.holders.setdefault(key, name)  # the first file holding an id wins

    def _learn(self, name: str) -> Indexed | None:
        """Parse a sibling not known in this version; kept unless a DTD it read changed
        while it was parsed."""
        assert self.folder is not None
        got = read_version(self.folder, name, self.budget)
        if got is None:
            return None
        data, version = got
        reads: Reads = {}
        targets = self._parse(data, reads)
        entry = Indexed(version, frozenset(targets or ()), (), targets, len(data))
        companions = _companions(self.folder, reads)
        if companions is not None:
            entry.companions = companions
            SIBLINGS.keep((self.reader.name, self.folder, name), entry)
        return entry

    def _parse(self, data: bytes, reads: Reads) -> Targets | None:
        assert self.folder is not None
        try:
            data = as_utf8(data)
            if not self.reader.is_document(read_prolog(data).root or ""):
                return None
            return self.reader.targets(self.reader.parse(data, self.folder, reads))
        except SkipFile:
            return None  # said when that file is read itself

    def _targets(self, name: str) -> Targets:
        """A sibling's targets: its kept tree's, else parsed again (once per file read)."""
        kept = self.entries[name].targets
        if kept is not None:
            return kept
        if name not in self.parsed:
            data = read_beside(self.folder, name, limit=MAX_SIBLING_BYTES)
            self.parsed[name] = (self._parse(data, {}) if data is not None else None) or {}
        return self.parsed[name]


def _companions(folder: str, reads: Reads) -> tuple[tuple[str, FileVersion], ...] | None:
    """The versions of the files a parse read beside it, or None if one has changed
    since (what was learnt is then not kept)."""
    companions = []
    for name, digest in reads.items():
        got = read_version(folder, name, MAX_COMPANION_BYTES)
        if got is None and digest == ABSENT:
            continue  # (looked for and still not there: no version to keep)
        if got is None or got[1].digest != digest:
            return None
        companions.append((name, got[1]))
    return tuple(companions)


def _sibling_names(folder: str | None, own: str, suffixes: tuple[str, ...]) -> list[str]:
    if folder is None:
        return []
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries if e.name.lower().endswith(suffixes)]
    except OSError:
        return []
    return sorted(name for name in names if name != own)[:MAX_SIBLINGS]
