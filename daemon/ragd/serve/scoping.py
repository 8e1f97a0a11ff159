"""`--in PATH`: which folders and files a question or search is limited to.

The request's `in` argument is a list of paths. An absolute path (the client resolves
relative ones against its own working directory) must lie inside a watched root, or be a
folder holding roots (then it means those roots); a relative one is read as a source
label as results show it (`flask/docs`, or `notes/flask` with several roots). Each
becomes (root, prefix) and then a scope key (`index/chunk_paths.py`) both retrievers
filter on. A path in no root is a usage error naming the roots; no absolute path is
echoed, the scope comes back as labels.

A relative path that is not there where the client stands is sent as written, with the
client's working folder (`cwd`). Read as a label it may name no root; read against that
folder it may lie inside one, where nothing is, and is said to be missing there (`--in
nosuchdir` typed in a folder of a root said "not inside a watched root").
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from functools import partial
from pathlib import PurePosixPath
from typing import Any

from ragd.core.names import as_on_disk, existing_path
from ragd.core.roots import Roots
from ragd.index.chunk_paths import scope_key
from ragd.index.manifest import Manifest
from ragd.serve.arguments import arg_str
from ragd.serve.disk_calls import Deadline, within_deadline
from ragproto.errors import BadRequest, OutsideRoots

MAX_SCOPES = 32


@dataclass(frozen=True)
class Scope:
    keys: list[str]  # what the indexes filter on
    labels: list[str]  # what the reply echoes: each scope as a source label (or root name)


def resolve_scope(
    args: dict[str, Any], roots: Roots, manifest: Manifest, disk_deadline_s: float
) -> Scope | None:
    """The request's `in` scopes, or None when it searches everything. A scope under
    which nothing is indexed (a typo, another letter case, an ignored file) is a usage
    error too: searched, it would be refused as if the documents did not say."""
    raw = args.get("in")
    if raw is None or raw == []:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_SCOPES:
        raise BadRequest(f"'in' must be a list of at most {MAX_SCOPES} paths")
    places: dict[tuple[str, str], None] = {}
    cwd = _client_folder(args)
    deadline = Deadline(disk_deadline_s)  # all the paths' look-ups together
    for n in range(len(raw)):
        value = arg_str({"in": raw[n]}, "in")
        if "\0" in value:  # no path holds one, and the file system calls would raise
            raise BadRequest("'in' holds a NUL character: no path can")
        located, path = _located(value, cwd, roots, manifest, deadline)
        found = _as_indexed(located, manifest)
        if not any(manifest.holds_files_under(root, prefix) for root, prefix in found):
            missing = path is not None and within_deadline(
                partial(_missing, path), _where(path), deadline
            )
            raise _not_there(found, roots) if missing else _nothing_indexed(found, roots)
        places.update(dict.fromkeys(found))
    return Scope(
        keys=[scope_key(root, prefix) for root, prefix in places],
        labels=[roots.label(root, prefix) for root, prefix in places],
    )


def _client_folder(args: dict[str, Any]) -> str | None:
    """The client's working folder (`cwd`), sent with a value it sent as written."""
    cwd = arg_str(args, "cwd", required=False)
    if not cwd:
        return None
    if "\0" in cwd or not os.path.isabs(cwd):
        raise BadRequest("'cwd' must be an absolute path")
    return cwd


def _located(
    value: str, cwd: str | None, roots: Roots, manifest: Manifest, deadline: Deadline
) -> tuple[list[tuple[str, str]], str | None]:
    """The (root, prefix) pairs `value` names, and the path it was read as on the disk
    (None: read as a source label)."""
    if os.path.isabs(value):  # looked up on the disk: a stalled mount must not hold
        located = within_deadline(  # the search pool (disk_calls)
            partial(_places, value, roots, manifest), _where(value), deadline
        )
        return located, value
    try:
        return _places(value, roots, manifest), None
    except OutsideRoots as outside:
        if cwd is None:
            raise
        # The client sends a relative path that is not there as written, as a label:
        # `--in nosuchdir` typed in a folder inside a root named no root, and was said to
        # be outside every root. Read against that folder it may lie in one after all.
        path = os.path.join(cwd, value)
        try:
            located = within_deadline(
                partial(_places, path, roots, manifest), _where(path), deadline
            )
        except OutsideRoots:
            raise outside from None  # outside from there too: as the label was refused
        return located, path


def _where(path: str) -> str:
    """How a path looked up on the disk is named if the look-up does not answer."""
    return PurePosixPath(path).name or path


def _missing(path: str) -> bool:
    """Is nothing at `path` (as typed, or its names in the other Unicode normal form)?"""
    return not os.path.lexists(as_on_disk(os.path.normpath(existing_path(path))))


def _places(value: str, roots: Roots, manifest: Manifest) -> list[tuple[str, str]]:
    """(root, prefix) pairs one `in` value names."""
    if not os.path.isabs(value):
        return [_label_place(value, roots, manifest)]
    value = existing_path(value)  # a name that is not UTF-8 comes as its key
    path = os.path.normpath(value)
    places = (
        _absolute_places(path, roots)
        or _physical_places(value, roots)
        or _absolute_places_in_nfc(path, roots)
    )
    if not places:
        raise _outside(PurePosixPath(path).name or path, roots)
    return places


def _absolute_places(path: str, roots: Roots) -> list[tuple[str, str]]:
    """The root and prefix `path` lies in, or the roots it holds, compared as written."""
    located = roots.locate(path)
    if located is not None:
        return [located]
    return [(root, "") for root in roots if _is_under(root, path)]


def _physical_places(value: str, roots: Roots) -> list[tuple[str, str]]:
    """The same, with symlinks resolved on both sides: a root watched through a symlink
    and a scope reached another way (a shell's working directory is the physical path,
    the root may be named through a link, or the other way round) still meet. Runs on a
    query worker, never on the server loop, so touching the file system here is fine."""
    physical = {os.path.realpath(root): root for root in roots}
    places = _absolute_places(os.path.realpath(value), Roots(physical))
    return [(physical[root], prefix) for root, prefix in places]


def _absolute_places_in_nfc(path: str, roots: Roots) -> list[tuple[str, str]]:
    """The same, both sides in NFC: a root folder named in NFD (`Re\u0301sume\u0301s`)
    typed in NFC. The prefix comes back in NFC; `_as_indexed` spells it as indexed."""
    normal = {unicodedata.normalize("NFC", root): root for root in roots}
    places = _absolute_places(unicodedata.normalize("NFC", path), Roots(normal))
    return [(normal[root], prefix) for root, prefix in places]


def _label_place(label: str, roots: Roots, manifest: Manifest) -> tuple[str, str]:
    """(root, prefix) of a relative path read as a source label (or a root's name);
    labels show names already in their printable form, so they are used as they are.
    With one root, labels carry no root name: a folder named like the root (`docs/` in
    the root `docs`) is what results show as `docs/…`, so it wins over the root."""
    parts = [p for p in PurePosixPath(label).parts if p not in (".", "")]
    if ".." in parts or not parts:
        raise _outside(label, roots)
    names = roots.names()
    if len(names) == 1:
        (root,) = names
        if parts == [names[root]] and not manifest.holds_files_under(root, parts[0]):
            return root, ""
        return root, "/".join(parts)
    for root, name in names.items():
        if parts[0] == name:
            return root, "/".join(parts[1:])
    raise _outside(label, roots)


def _as_indexed(found: list[tuple[str, str]], manifest: Manifest) -> list[tuple[str, str]]:
    """The places as written, or spelled in the other Unicode normal form when only that
    one is indexed. `café` typed on a keyboard is NFC (`é` one code point), while a name
    made on macOS or unpacked from its archives is often NFD (`e` and a combining
    accent); Linux keeps the bytes, so `--in café.md` named no indexed file though the
    results printed the same letters."""
    if any(manifest.holds_files_under(root, prefix) for root, prefix in found):
        return found
    for form in ("NFC", "NFD"):
        respelled = [(root, unicodedata.normalize(form, prefix)) for root, prefix in found]
        if any(manifest.holds_files_under(root, prefix) for root, prefix in respelled):
            return respelled
    return found


def _is_under(root: str, folder: str) -> bool:
    return os.path.commonpath([root, folder]) == folder


def _nothing_indexed(found: list[tuple[str, str]], roots: Roots) -> OutsideRoots:
    """`rag status` was the pointer here, and it counts what is ignored without naming it:
    emcee's sdist ignores its own tutorials (`docs/.gitignore`: `tutorials`), and
    `--in docs/tutorials` left a user no way to learn that (newuser51). `rag ingest` of the
    path names the reason: the ignore files, `exclude`, a type not indexed, no such file."""
    shown = ", ".join(roots.label(root, prefix) for root, prefix in found)
    return OutsideRoots(
        f"--in {shown}: nothing is indexed there (not there, named with other letters, "
        "ignored, or not indexed yet); `rag ingest` of that path says why"
    )


def _not_there(found: list[tuple[str, str]], roots: Roots) -> OutsideRoots:
    """Nothing indexed at a path inside a root that is not on the disk either: said as
    plainly as that (a folder of roots, or a root itself, is there or gone, not typed)."""
    if len(found) != 1 or not found[0][1]:
        return _nothing_indexed(found, roots)
    ((root, prefix),) = found
    return OutsideRoots(
        f"--in {roots.label(root, prefix)}: nothing is indexed there (no such folder or file "
        f"under root {roots.names()[root]})"
    )


def _outside(shown: str, roots: Roots) -> OutsideRoots:
    names = ", ".join(roots.names().values()) or "none"
    return OutsideRoots(
        f"--in {shown}: not inside a watched root (roots: {names}); give a folder or file "
        "inside one, or a source as results show it"
    )
