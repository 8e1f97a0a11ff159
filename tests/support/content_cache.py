"""A result the tests rebuild at great cost, kept between runs under a key made of
everything it is computed from, so that it is rebuilt exactly when one of those changed.

The key is a sha256 over: every file of the daemon and the protocol (`daemon/ragd`,
`shared/ragproto`: the chunker, the index, the gate and the answerers alike, so any edit
to the code rebuilds), the name and version of every installed distribution (torch,
transformers, sentence-transformers, the packaged model, chromadb, tantivy, numpy, …),
the Python version, and the caller's own inputs (for the eval guard: the corpus folder's
`tree_digest` and its questions file). Nothing else is read by what is kept, so a hit
returns what a rebuild would compute.

Where: pytest's own cache folder (`.pytest_cache/d/ragd-content/`, left out of git), one
pickle per key, written to a temporary name and renamed, so two workers never read half a
file. No cache when pytest runs without its cache provider (`-p no:cacheprovider`), and
`RAGD_TEST_CONTENT_CACHE=0` rebuilds every time (and writes nothing).
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import platform
import tempfile
from collections.abc import Callable, Iterable
from importlib import metadata
from pathlib import Path
from typing import TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
CODE = ("daemon/ragd", "shared/ragproto")
FOLDER = "ragd-content"
T = TypeVar("T")


@functools.cache
def code_digest() -> str:
    """sha256 of every file (path and bytes) under CODE, bytecode caches left out."""
    digest = hashlib.sha256()
    for top in CODE:
        for path in sorted((REPO / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(REPO).as_posix().encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.cache
def installed_digest() -> str:
    """sha256 of the Python version and every installed distribution's name and version,
    each once (the checkout's own `ragd.egg-info` is found beside the venv's `ragd`
    dist-info when the checkout is on sys.path)."""
    found = sorted(
        {f"{dist.metadata['Name']}=={dist.version}".lower() for dist in metadata.distributions()}
    )
    return hashlib.sha256("\n".join([platform.python_version(), *found]).encode()).hexdigest()


def key_of(name: str, inputs: Iterable[str]) -> str:
    parts = [name, code_digest(), installed_digest(), *inputs]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def enabled(config: pytest.Config) -> bool:
    return os.environ.get("RAGD_TEST_CONTENT_CACHE", "1") != "0" and hasattr(config, "cache")


def cached(config: pytest.Config, name: str, inputs: Iterable[str], build: Callable[[], T]) -> T:
    """What `build()` returns, read from the cache when the key of `name`, the code, the
    installed packages and `inputs` was built before; built and kept otherwise."""
    if not enabled(config):
        return build()
    folder = config.cache.mkdir(FOLDER)
    path = folder / f"{name}-{key_of(name, inputs)}.pickle"
    try:
        with path.open("rb") as kept:
            value: T = pickle.load(kept)
        return value
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError):
        pass  # missing, or written by an older layout of the classes: rebuilt
    value = build()
    for old in folder.glob(f"{name}-*.pickle"):  # one kept per name: the older keys never hit again
        old.unlink(missing_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}-")
    with os.fdopen(handle, "wb") as out:
        pickle.dump(value, out)
    os.replace(temporary, path)
    return value
