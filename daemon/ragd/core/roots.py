"""Watched roots and the labels sources are shown under.

A source label is always relative: ``howto.md`` with one root, ``notes/howto.md`` once
several roots are watched (the root's folder name, made unique). Absolute paths stay
inside the daemon.
"""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ragd.core import kernel_fs
from ragd.core.names import is_undecodable, name_key


def refusal(root: Path) -> str | None:
    """Why a folder cannot be a root (one line), or None when it can: its path is not
    UTF-8 (the index is keyed by the root's path, which SQLite, tantivy and ChromaDB
    store as text; files and folders *inside* a root may be named in any bytes), or it
    is the kernel's (`kernel_fs.refusal`)."""
    if is_undecodable(str(root.absolute())):
        return (
            f"{name_key(root.name)}: a root's path must be UTF-8 (the names inside it need "
            "not be); rename it, or add the folder above it"
        )
    return kernel_fs.refusal(root)


def configured_elsewhere(root: str, other: str, other_name: str) -> str:
    """The log line for a configured root that `Roots.named_otherwise` finds in `other`."""
    real, other_real = os.path.realpath(root), os.path.realpath(other)
    where = "the folder of root" if real == other_real else "a folder inside root"
    return (
        f"{name_key(Path(root).name)} in the configuration ({name_key(root)}) is {where} "
        f"{other_name} under another name; its files are indexed there, not as a new root"
    )


# Names kept of roots removed: a forget is logged and its files' removals labelled after
# the root has left, and a second `docs` (shown as `docs-2`) was logged as `docs`.
MAX_FORMER_NAMES = 64


class Roots:
    def __init__(self, roots: Iterable[str] = ()) -> None:
        self._roots: list[str] = []
        self._former: dict[str, str] = {}  # root removed → the name it was shown by
        for root in roots:
            self.add(root)

    def add(self, root: str) -> bool:
        root = str(Path(root).absolute())
        if root in self._roots:
            return False
        self._roots.append(root)
        return True

    def remove(self, root: str) -> bool:
        if root in self._roots:
            self._former[root] = self.name(root)
            while len(self._former) > MAX_FORMER_NAMES:
                del self._former[next(iter(self._former))]
            self._roots.remove(root)
            return True
        return False

    def insert(self, index: int, root: str) -> None:
        """Put a removed root back where it was (its label depends on the order)."""
        if root not in self._roots:
            self._roots.insert(index, root)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(list(self._roots))

    def __len__(self) -> int:
        return len(self._roots)

    def __contains__(self, root: object) -> bool:
        return root in self._roots

    def to_json(self) -> str:
        return json.dumps(self._roots)

    @classmethod
    def from_json(cls, text: str | None) -> Roots:
        return cls(json.loads(text) if text else [])

    def names(self) -> dict[str, str]:
        """root → a short unique display name (its folder name, suffixed on clashes)."""
        names: dict[str, str] = {}
        used: set[str] = set()
        for root in self._roots:
            base = _base_name(root)
            name, n = base, 2
            while name in used:
                name, n = f"{base}-{n}", n + 1
            used.add(name)
            names[root] = name
        return names

    def name(self, root: str) -> str:
        """The root's display name (`names`); a root removed keeps the one it had."""
        return self.names().get(root) or self._former.get(root) or _base_name(root)

    def label(self, root: str, relpath: str) -> str:
        if not relpath:  # the root itself (a failed scan of it)
            return self.name(root)
        if len(self._roots) <= 1:
            return relpath
        return f"{self.name(root)}/{relpath}"

    def resolve(self, label: str) -> tuple[str, str] | None:
        """(root, relpath) a source label names (the inverse of `label`), or None."""
        if len(self._roots) <= 1:
            return (self._roots[0], label) if self._roots and label else None
        name, _, relpath = label.partition("/")
        for root, root_name in self.names().items():
            if root_name == name and relpath:
                return root, relpath
        return None

    def locate(self, path: str | os.PathLike[str]) -> tuple[str, str] | None:
        """(root, relpath) for an absolute path inside a root (the deepest root wins); a
        name that is not UTF-8 comes back as its printable key (`ingest.names`)."""
        target = Path(path).absolute()
        best: tuple[str, str] | None = None
        for root in self._roots:
            try:
                rel = target.relative_to(root)
            except ValueError:
                continue
            if best is None or len(root) > len(best[0]):
                relpath = PurePosixPath(*rel.parts).as_posix() if rel.parts else ""
                best = (root, name_key(relpath))
        return best

    def indexed_by_another(self, root: str) -> str | None:
        """The other root whose folder `root` now leads to, or into, or None. A root's
        folder can become a link while the daemon runs (`rm -rf beta; ln -s alpha beta`):
        watched and walked, its files were indexed a second time under its name, and a
        search found every passage of alpha twice (`rag ingest` of such a link re-reads
        the root it leads to instead). A root inside another as written is no such
        case (the deepest root holds each file), nor is a root reached by no link; of two
        links to one folder the first root listed is kept. Looks at the disk (realpath):
        not for the server loop."""
        real = os.path.realpath(root)
        if real == root:  # a folder reached by no link: a root of its own
            return None
        order = self._roots.index(root) if root in self._roots else len(self._roots)
        for number, other in enumerate(self._roots):
            if other == root or root.startswith(other.rstrip("/") + "/"):
                continue
            other_real = os.path.realpath(other)
            if real != other_real and not real.startswith(other_real.rstrip("/") + "/"):
                continue
            if other_real == other or number < order:
                return other
        return None

    def named_otherwise(self, root: str) -> str | None:
        """The watched root whose folder `root` names under another spelling (a link to
        it or into it, `..` on the way), or None: a folder already indexed there, not a
        root of its own. A folder reached as written may be a root inside another (the
        deepest root holds each file), unless it is a root's own folder. Looks at the
        disk (realpath): not for the server loop."""
        spelled = str(Path(root).absolute())
        if spelled in self._roots:
            return None  # the root itself, by its own name
        real = os.path.realpath(spelled)
        for other in self._roots:
            other_real = os.path.realpath(other)
            if real == other_real or (
                real != spelled and real.startswith(other_real.rstrip("/") + "/")
            ):
                return other
        return None

    def by_name(self, name_or_path: str) -> str | None:
        """Find a root by its display name or its path; failing that, by the one whose
        name or path is the same text in another Unicode normal form (a keyboard's NFC
        `café` for a folder named in NFD, as macOS names them)."""
        names = self.names()
        for root, name in names.items():
            if name_or_path == name:
                return root
        candidate = str(Path(name_or_path).expanduser().absolute())
        if candidate in self._roots:
            return candidate
        wanted = {unicodedata.normalize("NFC", text) for text in (name_or_path, candidate)}
        alike = [
            root
            for root, name in names.items()
            if {unicodedata.normalize("NFC", text) for text in (name, root)} & wanted
        ]
        return alike[0] if len(alike) == 1 else None  # two such roots: neither is meant


def _base_name(root: str) -> str:
    return name_key(Path(root).name) or "root"  # printable, as file names are
