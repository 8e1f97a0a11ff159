"""The rule that tells a root's drive that is away from a folder the user emptied
(`ingest/away_drives.py`), on a real manifest and a mountinfo table written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragd.index.manifest import Manifest
from ragd.ingest.away_drives import MountedRoots, drive_away


@pytest.mark.parametrize(
    ("was_mounted", "mounted_now", "empty_now", "away"),
    [
        (True, False, True, True),  # the drive is not mounted: its empty folder shows
        (True, True, True, False),  # the drive is mounted and empty: the user emptied it
        (False, False, True, False),  # never a mount point: an emptied folder
        (True, False, False, False),  # unmounted, the folder has files: its contents
    ],
)
def test_the_rule(was_mounted: bool, mounted_now: bool, empty_now: bool, away: bool) -> None:
    assert drive_away(was_mounted, mounted_now, empty_now) is away


def _mountinfo(path: Path, points: list[Path]) -> Path:
    lines = ["22 1 8:1 / / rw - ext4 /dev/sda1 rw"]
    for i, point in enumerate(points):
        lines.append(f"{40 + i} 22 8:1 /d {point.resolve()} rw - ext4 /dev/sda1 rw")
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_root_is_away_only_if_it_was_a_mount_point_when_scanned(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "m.sqlite3")
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("a\n")
    info = tmp_path / "mountinfo"
    mounted = MountedRoots(manifest, manifest.set_meta, _mountinfo(info, [root]))
    assert not mounted.away(str(root))  # mounted: scanned, and recorded as a mount point
    (root / "a.md").unlink()
    assert not mounted.away(str(root))  # emptied while mounted: the user's doing
    _mountinfo(info, [])
    # Recorded in the manifest: a new process (another MountedRoots) knows it too.
    assert MountedRoots(manifest, manifest.set_meta, info).away(str(root))
    (root / "own.md").write_text("own\n")
    assert not mounted.away(str(root))  # files of its own: its contents, no longer recorded
    (root / "own.md").unlink()
    assert not mounted.away(str(root))  # an emptied folder that is no mount point now


def test_a_forgotten_root_is_no_longer_recorded(tmp_path: Path) -> None:
    manifest = Manifest(tmp_path / "m.sqlite3")
    root = tmp_path / "notes"
    root.mkdir()
    info = _mountinfo(tmp_path / "mountinfo", [root])
    mounted = MountedRoots(manifest, manifest.set_meta, info)
    assert not mounted.away(str(root))
    mounted.forget(str(root))
    _mountinfo(info, [])
    assert not mounted.away(str(root))  # before the forget, this was a drive away
