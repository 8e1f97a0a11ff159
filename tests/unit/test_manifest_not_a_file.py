"""The manifest (or its -wal) in the data dir that is a FIFO or a folder.

Before: SQLite opened a FIFO named manifest.sqlite3 and waited on its first read for ever,
so `ragd check` and `ragd reset` hung (killed by `timeout` after 30 s by hand); a folder of
that name ended `ragd reset` in an IsADirectoryError traceback. Now the manifest is
"damaged (… is not a regular file)", `ragd reset` replaces a FIFO and refuses, in one
line, to remove a folder. The subprocess timeout guards against the old hang.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ragd.app.resetting import reset_data_dir
from ragd.core.layout import DataDir
from ragd.index.manifest import Manifest, ManifestDamaged
from ragproto.errors import ConfigError
from tests.support.commands import run_python

OPEN = """
import sys
from pathlib import Path
from ragd.index.manifest import Manifest, ManifestDamaged
for read_only in (True, False):
    try:
        Manifest(Path(sys.argv[1]), read_only=read_only)
    except ManifestDamaged as exc:
        print(exc)
"""


def _data_dir(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    return data


@pytest.mark.parametrize("name", ["manifest.sqlite3", "manifest.sqlite3-wal"])
def test_a_fifo_manifest_is_damaged_not_a_hang(tmp_path: Path, name: str) -> None:
    data = _data_dir(tmp_path)
    manifest = DataDir(data).manifest
    manifest.touch()
    (data / name).unlink(missing_ok=True)
    os.mkfifo(data / name)
    out = run_python(OPEN, manifest)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"{name} is not a regular file"] * 2, out.stdout
    # `ragd reset` replaces it with a fresh manifest.
    assert reset_data_dir(data) == []
    assert Manifest(manifest).files() == [] and manifest.is_file()
    assert not (data / name).exists() or (data / name).is_file()


def test_reset_never_removes_a_folder_named_as_the_manifest(tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    folder = DataDir(data).manifest
    folder.mkdir()
    (folder / "mine.txt").write_text("not ragd's\n")
    with pytest.raises(ManifestDamaged, match="is a folder"):
        Manifest(folder, read_only=True)
    with pytest.raises(ConfigError, match="is a folder, not ragd's manifest; move it away"):
        reset_data_dir(data)
    assert (folder / "mine.txt").read_text() == "not ragd's\n"
