"""Source distributions from PyPI as corpus sources, pinned by version and archive sha256.

A corpus built from an sdist is the part of the archive its pattern keeps (a package's
`docs/` tree, or its source code and README), written out under the same relative paths.
The archive is fetched once with pip (`pip download --no-deps --no-binary :all:`, the
ordinary client, so an index mirror configured for pip is obeyed) into a cache under
bench/out/, and checked against its pinned sha256 before anything is read from it: an
archive that cannot be fetched or has other bytes makes the corpus unavailable with the
reason, never silently different.
"""

from __future__ import annotations

import fnmatch
import hashlib
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

CACHE = Path(__file__).resolve().parent / "out" / "sdists"


@dataclass(frozen=True)
class Sdist:
    package: str  # distribution name on PyPI
    version: str  # exact version the questions are written against
    sha256: str  # of the archive PyPI serves for that version
    keep: tuple[str, ...]  # fnmatch patterns on paths inside the archive's top folder
    drop: tuple[str, ...] = ()  # patterns taken out of what `keep` matched
    licence: str = ""  # as the package declares it
    under: str = ""  # a folder of the archive whose contents become the corpus ("docs")

    def problem(self) -> str | None:
        """Why the pinned archive cannot be used (fetching it first if needed), or None."""
        return pinned_problem(f"sdist {self.package}=={self.version}", self.archive, self.sha256)

    def archive(self) -> Path:
        """The downloaded archive in the cache; raises OSError with pip's reason."""
        folder = CACHE / f"{self.package}-{self.version}"
        if not _archives(folder):
            pip_download(f"{self.package}=={self.version}", folder, "--no-binary")
        found = _archives(folder)
        if len(found) != 1:
            raise OSError(f"expected one archive in {folder}, found {len(found)}")
        return found[0]

    def files(self) -> Iterator[tuple[str, bytes]]:
        """(path inside the top folder, or inside `under`, bytes) of every kept regular
        file, in archive order."""
        for name, data in archive_members(self.archive()):
            if ".." not in PurePosixPath(name).parts and self.wanted(name):
                yield (name.removeprefix(f"{self.under}/") if self.under else name), data

    def wanted(self, name: str) -> bool:
        matches = any(fnmatch.fnmatchcase(name, p) for p in self.keep)
        return matches and not any(fnmatch.fnmatchcase(name, p) for p in self.drop)


def pinned_problem(label: str, fetch: Callable[[], Path], sha256: str) -> str | None:
    """Why the file `fetch` gives (fetching it into the cache if needed; OSError with the
    fetcher's reason) cannot be used: not fetched, or bytes other than the pinned sha256."""
    try:
        path = fetch()
    except OSError as exc:
        return f"{label}: {exc}"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != sha256:
        return f"{label.split()[0]} {path.name} has sha256 {digest}, {sha256} is pinned"
    return None


def pip_download(pin: str, folder: Path, kind: str) -> None:
    """`pip download` of `pin` alone into `folder`; `kind` is "--no-binary" (the sdist) or
    "--only-binary" (a wheel). Raises OSError with pip's last line when it fails."""
    folder.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
    done = subprocess.run(
        [*pip, kind, ":all:", "--dest", str(folder), pin],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["pip download failed"])[-1]
        raise OSError(last)


def _archives(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.endswith((".tar.gz", ".zip")))


def archive_members(archive: Path) -> Iterator[tuple[str, bytes]]:
    """Regular files of an sdist or an npm tarball with the top folder (`name-version/`,
    `package/`) cut off; nothing is extracted to disk, so a member's path can never point
    outside the corpus."""
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as zipped:
            for info in zipped.infolist():
                if not info.is_dir():
                    yield _inner(info.filename), zipped.read(info)
        return
    with tarfile.open(archive, "r:gz") as tarred:
        for member in tarred:
            handle = tarred.extractfile(member) if member.isfile() else None
            if handle is not None:
                yield _inner(member.name), handle.read()


def _inner(name: str) -> str:
    return name.partition("/")[2]
