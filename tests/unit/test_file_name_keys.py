"""A name that is not UTF-8 is spelled by its key on both sides (`ragproto.file_names`):
the way `rag` sends a path typed on its command line is the way the daemon prints it and
reads it back."""

from __future__ import annotations

import os
from pathlib import Path

from ragd.core.names import existing_path
from ragproto.file_names import is_undecodable, name_key, name_of

NAMES = [b"caf\xe9.md", b"d\xffir/inner.md", b"back\\slash\xe9.md", b"plain.md"]


def test_every_name_reads_back_from_its_key() -> None:
    for raw in NAMES:
        name = os.fsdecode(raw)
        key = name_key(name)
        key.encode("utf-8")  # the wire, SQLite and tantivy take it
        assert name_of(key) == name, raw
    assert name_key(os.fsdecode(b"caf\xe9.md")) == "caf\\xe9.md"  # as sources are printed


def test_a_valid_name_is_its_own_key_backslashes_included() -> None:
    for name in ("plain.md", "a\\b.md", "café.md"):
        assert name_key(name) == name and name_of(name) == name
        assert not is_undecodable(name)


def test_a_name_spelling_an_escape_is_itself_when_it_exists(tmp_path: Path) -> None:
    # `caf\xe9.md` is also the key of caf<0xE9>.md: the file that exists as spelled wins.
    literal = tmp_path / "caf\\xe9.md"
    assert existing_path(str(literal)) == str(tmp_path / os.fsdecode(b"caf\xe9.md"))
    literal.write_text("x")
    assert existing_path(str(literal)) == str(literal)
