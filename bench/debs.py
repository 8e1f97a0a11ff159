"""Debian packages as corpus sources, pinned by version and .deb sha256, never installed.

Some folders are files a Debian package ships that this machine has not installed (a
game's manuals). The .deb is fetched once with `apt-get download PKG=VERSION` (the
ordinary client, so the machine's configured mirror is obeyed) into a cache under
bench/out/, and checked against its pinned sha256 before anything is read from it; its
files are read from `dpkg-deb --fsys-tarfile`, never extracted to disk, so a member's path
cannot point outside the corpus. A .deb that cannot be fetched or has other bytes makes
the corpus unavailable with the reason, never silently different.
"""

from __future__ import annotations

import fnmatch
import io
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bench.sdists import pinned_problem

CACHE = Path(__file__).resolve().parent / "out" / "debs"


@dataclass(frozen=True)
class Deb:
    package: str  # binary package name in the Debian archive
    version: str  # exact version the questions were written against
    sha256: str  # of the .deb the archive serves for that version
    keep: tuple[str, ...]  # fnmatch patterns on paths inside the package ("usr/share/…")
    drop: tuple[str, ...] = ()  # patterns taken out of what `keep` matched
    under: str = ""  # the package's folder whose contents are written …
    to: str = ""  # … under this folder of the corpus

    def problem(self) -> str | None:
        """Why the pinned .deb cannot be used (fetching it first if needed), or None."""
        return pinned_problem(f"deb {self.package}={self.version}", self.deb, self.sha256)

    def deb(self) -> Path:
        """The downloaded .deb in the cache; raises OSError with apt-get's reason."""
        folder = CACHE / f"{self.package}_{self.version.replace(':', '%3a')}"
        found = sorted(folder.glob("*.deb")) if folder.is_dir() else []
        if not found:
            folder.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(
                ["apt-get", "download", f"{self.package}={self.version}"],
                cwd=folder,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode != 0:
                raise OSError((done.stderr.strip().splitlines() or ["apt-get failed"])[-1])
            found = sorted(folder.glob("*.deb"))
        if len(found) != 1:
            raise OSError(f"expected one .deb in {folder}, found {len(found)}")
        return found[0]

    def files(self) -> Iterator[tuple[str, bytes]]:
        """(path in the corpus, bytes) of every kept regular file, in the package's order."""
        tar = subprocess.run(
            ["dpkg-deb", "--fsys-tarfile", str(self.deb())], capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as tarred:
            for member in tarred:
                name = member.name.removeprefix("./")
                handle = tarred.extractfile(member) if member.isfile() else None
                if handle is None or ".." in PurePosixPath(name).parts or not self.wanted(name):
                    continue
                inside = name.removeprefix(f"{self.under}/") if self.under else name
                yield (f"{self.to}/{inside}" if self.to else inside), handle.read()

    def wanted(self, name: str) -> bool:
        matches = any(fnmatch.fnmatchcase(name, p) for p in self.keep)
        return matches and not any(fnmatch.fnmatchcase(name, p) for p in self.drop)


@dataclass(frozen=True)
class DebJar(Deb):
    """Files inside a Java archive that a pinned Debian package ships: a Clojure library's
    `.clj` sources exist only inside its jar. `keep` names the one jar (with `under`, as
    for Deb), `members` the paths wanted inside it, written under `to`; the jar is read with
    zipfile from the checked .deb, never extracted, and a member whose path climbs out
    (`..`, absolute) is skipped."""

    members: tuple[str, ...] = ()  # fnmatch patterns on paths inside the jar

    def files(self) -> Iterator[tuple[str, bytes]]:
        for _name, data in super().files():
            with zipfile.ZipFile(io.BytesIO(data)) as jar:
                for info in jar.infolist():
                    inner = PurePosixPath(info.filename)
                    if info.is_dir() or inner.is_absolute() or ".." in inner.parts:
                        continue
                    if any(fnmatch.fnmatchcase(info.filename, p) for p in self.members):
                        yield (f"{self.to}/{inner}" if self.to else str(inner)), jar.read(info)
