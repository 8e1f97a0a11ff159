"""Small tmpfs mounts for tests of what a mount does (a full disk, a mount inside a root).

Mounting needs root; elsewhere, or where the kernel refuses it (a container without
CAP_SYS_ADMIN), the test is skipped, saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


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
