"""The tantivy folder holding something that is not a regular file (a FIFO named
meta.json), or a file where the folder should be.

Before: tantivy read the FIFO by name and waited for a writer for ever: `ragd serve` stayed
at "starting (loading the embedding model)" with nothing in the log (by hand, 80 s), and
`ragd check` with it. The index is a cache of the manifest, so the daemon rebuilds it, as
for any index that will not open; the read-only reader (`ragd check`) says it will not
open. The subprocess timeout guards against the old hang.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.index.lexical import LexicalDoc, LexicalUnreadable, TantivyIndex
from tests.support.commands import run_python

OPEN = """
import sys
from pathlib import Path
from ragd.index.lexical import LexicalUnreadable, TantivyIndex
try:
    TantivyIndex(Path(sys.argv[1]), read_only=True)
except LexicalUnreadable as exc:
    print("unreadable:", str(exc).rpartition(": ")[2])
index = TantivyIndex(Path(sys.argv[1]))
print("rebuilt:", index.rebuilt_because, index.num_docs())
index.close()
"""


def _built(path: Path) -> None:
    index = TantivyIndex(path)
    index.add([LexicalDoc(chunk_id="c1", source="a.md", heading="A", text="capstan")])
    index.commit()
    index.close()


def _open_both_ways(path: Path) -> list[str]:
    out = run_python(OPEN, path)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_a_fifo_named_meta_json_is_an_index_that_will_not_open(tmp_path: Path) -> None:
    path = tmp_path / "tantivy"
    _built(path)
    (path / "meta.json").unlink()
    os.mkfifo(path / "meta.json")
    assert _open_both_ways(path) == [
        "unreadable: meta.json is not a regular file",
        "rebuilt: the lexical index would not open (meta.json is not a regular file) 0",
    ]
    reopened = TantivyIndex(path)  # the rebuilt index is an ordinary one
    try:
        assert reopened.rebuilt_because == "" and (path / "meta.json").is_file()
    finally:
        reopened.close()


def test_a_file_where_the_folder_should_be_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "tantivy"
    path.write_text("not an index\n")
    index = TantivyIndex(path)
    try:
        assert "it is not a folder" in index.rebuilt_because and path.is_dir()
    finally:
        index.close()
    with pytest.raises(LexicalUnreadable):
        TantivyIndex(tmp_path / "absent", read_only=True)
