"""A data dir that belongs to another user is refused in one line.

Before: `ragd serve --data-dir /tmp/shared` on a folder another user made (mode 777) only
logged a warning and indexed into it; with mode 700 it said nothing at all. The folder's
owner can rename, delete and replace what ragd writes there (a folder's owner may), so a
manifest or an index of theirs would put their text in the answers.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.daemon import BIN, base_env
from tests.support.users import throwaway_user


def test_a_data_dir_of_another_user_is_refused(tmp_path: Path) -> None:
    with throwaway_user() as (other, reason):
        if other is None:
            pytest.skip(reason)
        shared = tmp_path / "shared"
        shared.mkdir()
        os.chown(shared, other.uid, other.gid)
        shared.chmod(0o777)
        for argv in (
            ["serve", tmp_path, "--data-dir", shared, "--socket", tmp_path / "s.sock"],
            ["reset", "--data-dir", shared],
        ):
            out = subprocess.run(
                [BIN / "ragd", *argv],
                env=base_env(tmp_path),
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert out.returncode != 0 and out.stderr.count("\n") == 1, out.stderr
            assert f"belongs to uid {other.uid}, not to you" in out.stderr, out.stderr
        assert list(shared.iterdir()) == []  # nothing written there
