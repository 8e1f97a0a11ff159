"""`--in PATH`: which folders and files a question or search is limited to.

The request's `in` argument is a list of paths. An absolute path (the client resolves
relative ones against its own working directory) must lie inside a watched root, or be a
folder holding roots (then it means those roots); a relative one is read as a source
label as results show it (`flask/docs`, or `notes/flask` with several roots). Each
becomes (root, prefix) and then a scope key (`index/chunk_paths.py`) both retrievers
filter on. A path in no root is a usage error naming the roots; no absolute path is
echoed, the scope comes back as labels.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ragd.core.roots import Roots
from ragd.index.chunk_paths import scope_key
from ragd.serve.arguments import arg_str
from ragproto.errors import BadRequest, OutsideRoots

MAX_SCOPES = 32


@dataclass(frozen=True)
class Scope:
    keys: list[str]  # what the indexes filter on
    labels: list[str]  # what the reply echoes: each scope as a source label (or root name)


def resolve_scope(args: dict[str, Any], roots: Roots) -> Scope | None:
    """The request's `in` scopes, or None when it searches everything."""
    raw = args.get("in")
    if raw is None or raw == []:
        return None
    if not isinstance(raw, list) or len(raw) > MAX_SCOPES:
        raise BadRequest(f"'in' must be a list of at most {MAX_SCOPES} paths")
    places: dict[tuple[str, str], None] = {}
    for n in range(len(raw)):
        value = arg_str({"in": raw[n]}, "in")
        places.update(dict.fromkeys(_places(value, roots)))
    return Scope(
        keys=[scope_key(root, prefix) for root, prefix in places],
        labels=[roots.label(root, prefix) for root, prefix in places],
    )


def _places(value: str, roots: Roots) -> list[tuple[str, str]]:
    """(root, prefix) pairs one `in` value names."""
    if os.path.isabs(value):
        path = os.path.normpath(value)
        located = roots.locate(path)
        if located is not None:
            return [located]
        below = [root for root in roots if _is_under(root, path)]
        if below:
            return [(root, "") for root in below]
        raise _outside(PurePosixPath(path).name or path, roots)
    return [_label_place(value, roots)]


def _label_place(label: str, roots: Roots) -> tuple[str, str]:
    """(root, prefix) of a relative path read as a source label (or a root's name);
    labels show names already in their printable form, so they are used as they are."""
    parts = [p for p in PurePosixPath(label).parts if p not in (".", "")]
    if ".." in parts or not parts:
        raise _outside(label, roots)
    names = roots.names()
    if len(names) == 1:
        (root,) = names
        if parts == [names[root]]:
            return root, ""
        return root, "/".join(parts)
    for root, name in names.items():
        if parts[0] == name:
            return root, "/".join(parts[1:])
    raise _outside(label, roots)


def _is_under(root: str, folder: str) -> bool:
    return os.path.commonpath([root, folder]) == folder


def _outside(shown: str, roots: Roots) -> OutsideRoots:
    names = ", ".join(roots.names().values()) or "none"
    return OutsideRoots(
        f"--in {shown}: not inside a watched root (roots: {names}); give a folder or file "
        "inside one, or a source as results show it"
    )
