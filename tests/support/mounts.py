"""Small tmpfs mounts for tests of what a mount does (a full disk, a mount inside a root).

Mounting needs root; elsewhere, or where the kernel refuses it (a container without
CAP_SYS_ADMIN), the test is skipped, saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.support.daemon import Daemon


def mount_tmpfs(path: Path, size: str) -> None:
    """Mount a tmpfs of `size` (mount's spelling: `40m`) on the folder `path`, or skip."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip(f"mounting a {size} tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")


def bind_mount(folder: Path, path: Path) -> None:
    """Mount `folder` again at the folder `path` (`mount --bind`: a drive of its files), or skip."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("a bind mount needs root")
    done = subprocess.run(
        ["mount", "--bind", str(folder), str(path)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {done.stderr.strip()}")


def unmount(path: Path, lazy: bool = False) -> None:
    """Unmount `path` (lazily, for clean-up: whatever still holds it cannot stop it)."""
    subprocess.run(["umount", *(["-l"] if lazy else []), str(path)], check=not lazy)


def mounted_drive_of_two_notes(tmp_path: Path) -> tuple[Path, Path]:
    """A drive's folder with a.md (axolotl) and b.md (bongo), bind-mounted on the folder
    of a root: (drive, root)."""
    drive, root = tmp_path / "drive", tmp_path / "notes"
    drive.mkdir()
    root.mkdir()
    (drive / "a.md").write_text("# A\n\nThe axolotl lives on the drive.\n")
    (drive / "b.md").write_text("# B\n\nThe bongo lives there too.\n")
    bind_mount(drive, root)
    return drive, root


def both_notes_answer(d: Daemon) -> None:
    """The two notes of `mounted_drive_of_two_notes` are indexed and answer."""
    assert d.wait_idle()["files"] == 2
    assert d.sources("axolotl") == ["a.md"] and d.sources("bongo") == ["b.md"]


def mount_again_with_a_new_note(d: Daemon, drive: Path, root: Path, after: int) -> None:
    """The drive of `mounted_drive_of_two_notes`, a note added to it while away, mounted again:
    the note is indexed, and the unchanged a.md is not read again (its log since `after`)."""
    (drive / "c.md").write_text("# C\n\nThe caracal was added elsewhere.\n")
    bind_mount(drive, root)
    d.wait_searchable("caracal", "c.md")
    assert d.wait_idle()["files"] == 3
    assert "indexed a.md" not in d.log()[after:]  # unchanged: not read again
