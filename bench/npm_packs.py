"""npm packages as corpus sources, pinned by version and tarball sha256.

A folder a JavaScript developer points ragd at is often a package as npm installs it
(`node_modules/NAME`): its README, its code, its type declarations. The tarball is fetched
once with `npm pack NAME@VERSION` (the ordinary client, so the machine's configured
registry is obeyed) into a cache under bench/out/, and checked against its pinned sha256
before anything is read from it; its regular files are read from the archive with the
top folder (`package/`) cut off, never extracted to disk, so a member's path cannot point
outside the corpus. A tarball that cannot be fetched or has other bytes makes the corpus
unavailable with the reason, never silently different.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bench.sdists import archive_members, pinned_problem

CACHE = Path(__file__).resolve().parent / "out" / "npm"


@dataclass(frozen=True)
class NpmPack:
    package: str  # name in the npm registry
    version: str  # exact version the questions were written against
    sha256: str  # of the .tgz the registry serves for that version

    def problem(self) -> str | None:
        """Why the pinned tarball cannot be used (fetching it first if needed), or None."""
        return pinned_problem(f"npm {self.package}@{self.version}", self.tarball, self.sha256)

    def tarball(self) -> Path:
        """The packed tarball in the cache; raises OSError with npm's reason."""
        path = CACHE / f"{self.package}-{self.version}.tgz"
        if not path.is_file():
            CACHE.mkdir(parents=True, exist_ok=True)
            try:
                done = subprocess.run(
                    ["npm", "pack", "--silent", f"{self.package}@{self.version}"],
                    cwd=CACHE,
                    capture_output=True,
                    text=True,
                    check=False,
                    timeout=300,
                )
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise OSError(f"npm pack could not run: {exc}") from exc
            if done.returncode != 0 or not path.is_file():
                raise OSError((done.stderr.strip().splitlines() or ["npm pack failed"])[-1])
        return path

    def files(self) -> Iterator[tuple[str, bytes]]:
        """(path inside the package, bytes) of every regular file, in archive order."""
        for name, data in archive_members(self.tarball()):
            if name and ".." not in PurePosixPath(name).parts:
                yield name, data
