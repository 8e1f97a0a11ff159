"""A throwaway local user, for tests that need a second identity on the machine.

Tests run as root in CI, where root's permission checks are skipped (CAP_DAC_OVERRIDE):
a file with mode 000 is still readable and a 0700 directory still enterable. To test
what permissions really do, the test needs a process of *another* user: `throwaway_user`
creates one with `useradd` (and deletes it afterwards), or says why it cannot. A test
that is not root needs no new user: it already is the unprivileged side.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class User:
    name: str
    uid: int
    gid: int

    def popen_args(self) -> dict[str, object]:
        """subprocess keyword arguments that run the child as this user (no extra groups)."""
        return {"user": self.uid, "group": self.gid, "extra_groups": []}


@contextmanager
def throwaway_user() -> Iterator[tuple[User | None, str]]:
    """Yield (user, "") for a fresh local user, or (None, the reason there is none)."""
    if os.geteuid() != 0:
        yield None, "not running as root, so no second user can be created"
        return
    useradd, userdel = shutil.which("useradd"), shutil.which("userdel")
    if useradd is None or userdel is None:
        yield None, "useradd/userdel are not installed"
        return
    name = f"ragdt{uuid.uuid4().hex[:8]}"
    made = subprocess.run(
        [useradd, "--no-create-home", "--home-dir", "/nonexistent", "--user-group", name],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        yield None, f"useradd failed: {made.stderr.strip()}"
        return
    try:
        entry = pwd.getpwnam(name)
        yield User(name, entry.pw_uid, entry.pw_gid), ""
    finally:
        subprocess.run([userdel, name], capture_output=True)


PLANTER_UID = 54321  # a uid no account has: a link given to it is "another user's"


def planted_link(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """(ours, link): a folder of ours (mode 755) and `shared/NAME` -> it, a link another
    user owns in a sticky shared folder, as someone planted it in /tmp (this machine has
    `fs.protected_symlinks = 0`, so the kernel follows it). Needs root (lchown)."""
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    shared.chmod(0o1777)
    ours = tmp_path / "ours"
    ours.mkdir(mode=0o755)
    ours.chmod(0o755)
    link = shared / name
    link.symlink_to(ours)
    os.lchown(link, PLANTER_UID, PLANTER_UID)
    return ours, link
