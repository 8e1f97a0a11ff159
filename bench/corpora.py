"""The evaluation corpora: real documents nobody on this project wrote, built at eval time.

Each corpus is assembled from files Debian installed on this machine (man pages,
`/usr/share/doc` texts, the licences in `/usr/share/common-licenses`), from the long
descriptions of Python packages installed next to ragd (`*.dist-info/METADATA`), pinned by
package name and version, or from part of a source distribution on PyPI (a Sphinx docs
tree, a code repository), pinned by version and archive sha256 (bench/sdists.py). A
missing file, a different package version or an archive that cannot be fetched makes the
corpus *unavailable* with a reason, never silently different: the questions in
`bench/corpora/<name>.jsonl` were written against exactly these texts. Nothing is copied
into the repository; a Debian package's licence is in `/usr/share/doc/<package>/copyright`
on the machine the corpus is built on, a Python package's is named in its pin below and
its licence file is in its `*.dist-info/` or its sdist.

Man pages are rendered with `man` (80 columns) and turned into Markdown so the chunker
sees their sections: the page title becomes the H1, each unindented section name (NAME,
OPTIONS, …) an H2 and each three-space subsection an H3. The text itself is untouched.

`sample_corpus/` (written for this project) is listed too, so one loop runs them all.
Usage: python bench/corpora.py OUT_DIR   (builds every available corpus under OUT_DIR)
"""

from __future__ import annotations

import email
import gzip
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.npm_packs import NpmPack  # noqa: E402
from bench.sdists import Sdist, pip_download  # noqa: E402

if TYPE_CHECKING:
    from ragd.ingest.document import Document

QUESTIONS_DIR = ROOT / "bench" / "corpora"
MAN = Path("/usr/share/man")
DOC = Path("/usr/share/doc")
WHEELS = ROOT / "bench" / "out" / "wheels"


class CorpusUnavailable(Exception):
    """A pinned source is missing or has another version; str(exc) says which."""


@dataclass(frozen=True)
class Source:
    package: str  # Debian package that ships the file
    version: str  # exact version the questions were written against
    path: Path  # where the package installs it
    name: str  # file name inside the corpus

    def problem(self) -> str | None:
        """Why this file cannot be used as pinned, or None."""
        if (wrong := version_problem(self.package, self.version)) is not None:
            return wrong
        if not self.path.is_file():
            return f"{self.path} ({self.package}) is missing"
        return None

    def text(self) -> str:
        return render_man(self.path) if self.path.is_relative_to(MAN) else read_text(self.path)

    def files(self) -> Iterator[tuple[str, bytes]]:
        yield self.name, self.text().encode("utf-8")


@dataclass(frozen=True)
class InstalledBytes(Source):
    """A file Debian installed, copied as its bytes: a gzipped Info manual stays gzipped,
    an HTML page keeps its encoding."""

    def files(self) -> Iterator[tuple[str, bytes]]:
        yield self.name, self.path.read_bytes()


@dataclass(frozen=True)
class PlainMan(Source):
    """A man page as `man -P cat -l PAGE > NAME` saves it (80 columns, hyphenated and
    justified as man prints it, no Markdown headings): a user's own text copy of a page."""

    def text(self) -> str:
        return run_man(self.path, typeset=True)


@dataclass(frozen=True)
class InstalledTree(Source):
    """A folder Debian installed, copied whole with links followed (`cp -rL`) under
    `name/`, as bytes. `also` pins the other packages whose files the folder holds or its
    links lead to (python3-dev's pages in /usr/share/doc/python3, libjs-* scripts)."""

    also: tuple[tuple[str, str], ...] = ()  # (package, version)

    def problem(self) -> str | None:
        for package, version in ((self.package, self.version), *self.also):
            if (wrong := version_problem(package, version)) is not None:
                return wrong
        if not self.path.is_dir():
            return f"{self.path} ({self.package}) is missing"
        return None

    def files(self) -> Iterator[tuple[str, bytes]]:
        for top, _dirs, names in os.walk(self.path, followlinks=True):
            for file_name in names:
                path = Path(top) / file_name
                if path.is_file():  # a dangling link is left out, as cp -rL fails on it
                    rel = path.relative_to(self.path).as_posix()
                    yield f"{self.name}/{rel}", path.read_bytes()


@dataclass(frozen=True)
class Distribution:
    """A Python package's long description, the body of its `*.dist-info/METADATA`, as the
    package's author wrote it: read from the copy installed next to ragd when it is the
    pinned version, else from the pinned version's wheel fetched with pip into a cache
    under bench/out/ (a fresh machine resolves newer releases than the ones the questions
    were written against)."""

    package: str  # distribution name on PyPI
    version: str  # exact version the questions were written against
    name: str  # file name inside the corpus; its suffix follows the description's format
    licence: str  # as the package declares it (METADATA License / License-Expression)

    def problem(self) -> str | None:
        if self._installed():
            return None
        try:
            self._wheel()
        except OSError as exc:
            return f"Python package {self.package}=={self.version}: {exc}"
        return None

    def _installed(self) -> bool:
        try:
            return metadata.version(self.package) == self.version
        except metadata.PackageNotFoundError:
            return False

    def _wheel(self) -> Path:
        """The pinned version's wheel in the cache; raises OSError with pip's reason."""
        folder = WHEELS / f"{self.package}-{self.version}"
        found = sorted(folder.glob("*.whl")) if folder.is_dir() else []
        if not found:
            pip_download(f"{self.package}=={self.version}", folder, "--only-binary")
            found = sorted(folder.glob("*.whl"))
        if not found:
            raise OSError(f"no wheel in {folder}")
        return found[0]

    def text(self) -> str:
        if self._installed():
            raw = metadata.distribution(self.package).read_text("METADATA") or ""
        else:
            with zipfile.ZipFile(self._wheel()) as wheel:
                inside = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
                raw = wheel.read(inside[0]).decode("utf-8") if inside else ""
        description = email.message_from_string(raw).get_payload()
        return description if isinstance(description, str) else ""

    def files(self) -> Iterator[tuple[str, bytes]]:
        yield self.name, self.text().encode("utf-8")


@dataclass(frozen=True)
class Corpus:
    name: str
    questions: Path
    sources: tuple[Source | Distribution | Sdist | NpmPack, ...] = ()
    fixed: Path | None = None  # a folder in the repository, used as it is
    digest: str = ""  # tree_digest of the built folder, when pinned as a whole

    def has_questions(self) -> bool:
        """False while the corpus's question file is still empty (a corpus is added
        first, its questions are written afterwards by someone who has not read it)."""
        return self.questions.is_file() and bool(self.questions.read_text("utf-8").strip())

    def kept(self, out: Path) -> Path:
        """The corpus folder a run of `make eval` left under `out/<name>` (or `fixed`),
        built only if it is missing: the replay scripts re-read what the eval indexed."""
        folder = self.fixed if self.fixed is not None else out / self.name
        return folder if folder.exists() else self.build(out)

    def build(self, out: Path) -> Path:
        """The corpus folder: `fixed` itself, or a fresh build under `out/<name>`."""
        if self.fixed is not None:
            return self.fixed
        for source in self.sources:
            if (problem := source.problem()) is not None:
                raise CorpusUnavailable(problem)
        target = out / self.name
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for source in self.sources:
            for name, data in source.files():
                (target / name).parent.mkdir(parents=True, exist_ok=True)
                (target / name).write_bytes(data)
        if self.digest and (found := tree_digest(target)) != self.digest:
            shutil.rmtree(target)  # kept() must not find a folder the questions do not fit
            raise CorpusUnavailable(
                f"{self.name}: the folder built here has digest {found}, {self.digest} is pinned"
            )
        return target


def tree_digest(folder: Path) -> str:
    """sha256 of the folder's sorted `sha256sum` listing, exactly as
    `cd FOLDER && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum`
    prints it: one `HASH  ./PATH` line per regular file, in byte order of the paths."""
    listing = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            name = "./" + path.relative_to(folder).as_posix()
            listing.append((name.encode("utf-8", "surrogateescape"), path))
    lines = bytearray()
    for shown, path in sorted(listing):
        digest = hashlib.sha256(path.read_bytes()).hexdigest().encode()
        if b"\\" in shown or b"\n" in shown:  # sha256sum escapes such names, marks the line
            shown = shown.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
            digest = b"\\" + digest
        lines += digest + b"  " + shown + b"\n"
    return hashlib.sha256(bytes(lines)).hexdigest()


def version_problem(package: str, version: str) -> str | None:
    """Why the Debian package is not as pinned (another version, or none), or None."""
    found = installed_version(package)
    if found != version:
        return f"{package} {version} is pinned; this machine has {found or 'none'}"
    return None


def installed_version(package: str) -> str | None:
    try:
        done = subprocess.run(
            ["dpkg-query", "-W", "-f=${Version}", package],
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def read_text(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="replace")


_SECTION = re.compile(r"^[A-Z][A-Z0-9 /_-]*$")
_SUBSECTION = re.compile(r"^ {3}(\S.{0,60})$")


def render_man(path: Path) -> str:
    return man_to_markdown(run_man(path), path.name.split(".gz")[0])


def run_man(path: Path, width: int = 80, typeset: bool = False) -> str:
    """What `man -l` prints for the page, as plain text (no hyphenation, no justification
    unless `typeset`: then as man prints it by default)."""
    env = dict(os.environ, MANWIDTH=str(width), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    plain = [] if typeset else ["--no-hyphenation", "--no-justification"]
    done = subprocess.run(
        ["man", *plain, "-P", "cat", "-l", str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout


def man_to_markdown(rendered: str, page: str) -> str:
    """Rendered man page → Markdown headings around the untouched text."""
    lines = rendered.splitlines()
    name, _, section = page.rpartition(".")
    out = [f"# {name}({section})", ""]
    body = lines[1:-1]  # the first and last lines are the page header and footer
    for line in body:
        if line and not line[0].isspace() and _SECTION.match(line.strip()):
            out.append(f"## {line.strip()}")
        elif (m := _SUBSECTION.match(line)) is not None:
            out.append(f"### {m.group(1).strip()}")
        else:
            out.append(line[7:] if line.startswith(" " * 7) else line.strip())
    return "\n".join(out).strip() + "\n"


def _man(package: str, version: str, page: str, section: int = 1) -> Source:
    return Source(package, version, MAN / f"man{section}" / f"{page}.{section}.gz", f"{page}.md")


def _doc(package: str, version: str, rel: str, name: str) -> Source:
    return Source(package, version, DOC / package / rel, name)


GIT = "1:2.39.5-0+deb12u3"
SSH = "1:9.2p1-2+deb12u6"
FIND, GREP, SED, COREUTILS = "4.9.0-4", "3.8-5", "4.9-1", "9.1-1"
XZ, ZSTD, GZIP = "5.4.1-1", "1.5.4+dfsg2-5", "1.12-1"
GIT_PAGES = ("stash", "bisect", "worktree", "cherry-pick", "reflog", "clean", "revert", "tag")

# Long descriptions of Python packages installed next to ragd: 21 authors, Markdown and
# reStructuredText, READMEs and change logs; about 750 KB, the scale of the folder that
# first broke the fixed floor (docs/calibration.md).
PYDOCS = tuple(
    Distribution(package, version, f"{package}.{suffix}", licence)
    for package, version, suffix, licence in (
        ("pydantic", "2.14.4", "md", "MIT"),
        ("watchdog", "7.1.0", "rst", "Apache-2.0"),
        ("tqdm", "4.70.1", "rst", "MPL-2.0 AND MIT"),
        ("pypika", "0.51.1", "rst", "Apache-2.0"),
        ("charset-normalizer", "3.5.3", "md", "MIT"),
        ("orjson", "3.13.0", "md", "MPL-2.0 AND (Apache-2.0 OR MIT)"),
        ("regex", "2026.11.19", "rst", "Apache-2.0 AND CNRI-Python"),
        ("defusedxml", "0.7.1", "rst", "PSF-2.0"),
        ("python-dotenv", "1.2.4", "md", "BSD-3-Clause"),
        ("threadpoolctl", "3.8.0", "md", "BSD-3-Clause"),
        ("rich", "15.0.0", "md", "MIT"),
        ("typer", "0.29.2", "md", "MIT"),
        ("h11", "0.16.0", "rst", "MIT"),
        ("httpx", "0.28.1", "md", "BSD-3-Clause"),
        ("sortedcontainers", "2.4.0", "rst", "Apache-2.0"),
        ("pathspec", "1.1.1", "rst", "MPL-2.0"),
        ("mmh3", "5.3.1", "md", "MIT"),
        ("annotated-types", "0.8.0", "md", "MIT"),
        ("sse-starlette", "3.7.0", "md", "BSD-3-Clause"),
        ("huggingface-hub", "2.4.0", "md", "Apache-2.0"),
        ("attrs", "26.1.0", "md", "MIT"),
    )
)

# A Sphinx tree each (reStructuredText with autodoc, domain directives, version notes):
# the whole docs folder of the sdist as its authors keep it, with the top-level files its
# pages `.. include::`.
MARSHMALLOW_DOCS = Sdist(
    "marshmallow",
    "4.4.0",
    "9e6ffa8511012ca89732324c1c253efd7b4d35632dcbdf80aa793fe01804af3e",
    keep=("docs/*.rst", "CHANGELOG.rst", "AUTHORS.rst"),
    licence="MIT",
)
COVERAGE_DOCS = Sdist(
    "coverage",
    "7.17.5",
    "4f41d35b798714a2e79ec2097d6b03c92cd3b7de58e422fce7a1ca2c0c25b276",
    keep=("doc/*.rst", "CHANGES.rst"),  # doc/changes.rst includes the newest from CHANGES
    licence="Apache-2.0",
)
# A code repository: the library's source, its READMEs and Sphinx docs, as shipped (tests
# left out: they would outnumber the code; NEWS too: the daemon indexes no suffix-less file).
DATEUTIL_CODE = Sdist(
    "python-dateutil",
    "4.0.0",
    "d7295ff14fdc0f92f662100bfb6c551d160ca090f2939f1ec5b9794265c03f06",
    keep=("src/*.py", "docs/*.rst", "*.md", "README.rst"),
    drop=("src/dateutil/test/*", "changelog.d/*"),
    licence="Apache-2.0 AND BSD-3-Clause",
)

BASE_FILES = "12.4+deb12u11"
LICENCES = (
    "Apache-2.0", "Artistic", "BSD", "CC0-1.0", "GFDL-1.2", "GFDL-1.3", "GPL-1", "GPL-2",
    "GPL-3", "LGPL-2", "LGPL-2.1", "LGPL-3", "MPL-1.1", "MPL-2.0",
)  # fmt: skip
# Prose that is policy: the licence texts every Debian system carries (the GPL, LGPL and
# GFDL links to the newest version are left out) and Debian's policy on users and groups.
POLICY = (
    *(
        Source("base-files", BASE_FILES, Path("/usr/share/common-licenses") / name, f"{name}.txt")
        for name in LICENCES
    ),
    _doc("base-passwd", "3.6.1", "users-and-groups.html", "users-and-groups.html"),
)

# A notes-like folder: short files of mixed formats (Markdown, reST, HTML, plain text) in
# one folder per topic, the way a person's collected notes look.
NOTES = (
    _doc("procps", "2:4.0.2-3", "bugs.md", "procps/bugs.md"),
    _doc("procps", "2:4.0.2-3", "README.Debian", "procps/README.Debian.txt"),
    _doc("libsodium23", "1.0.18-1+deb12u1", "README.markdown", "libsodium/README.md"),
    *(
        _doc("dpkg", "1.21.22", f"spec/{spec}.txt", f"dpkg/{spec}.txt")
        for spec in ("frontend-api", "protected-field", "rootless-builds", "triggers")
    ),
    _doc("yq", "3.1.0-3", "README.rst.gz", "yq/README.rst"),
    _doc("man-db", "2.11.2-2", "README.md.gz", "man-db/README.md"),
    _doc("python3-yaml", "6.0-3+b2", "README.md", "pyyaml/README.md"),
    _doc("file", "1:5.44-3", "README.Debian", "file/README.Debian.txt"),
    _doc("e2fsprogs", "1.47.0-2", "README", "e2fsprogs/README.txt"),
    *(
        _doc("libffi8", "3.4.4-1", f"html/{page}.html", f"libffi/{page}.html")
        for page in (
            "Introduction", "Using-libffi", "The-Basics", "Memory-Usage", "Thread-Safety",
            "Missing-Features", "Multiple-ABIs", "Closure-Example", "Structures",
        )
    ),
)  # fmt: skip

CORPORA = (
    Corpus("sample", ROOT / "bench" / "questions.jsonl", fixed=ROOT / "sample_corpus"),
    Corpus(
        "git",
        QUESTIONS_DIR / "git.jsonl",
        (
            *(_man("git-man", GIT, f"git-{page}") for page in GIT_PAGES),
            _man("git-man", GIT, "gitignore", 5),
        ),
    ),
    Corpus(
        "ssh",
        QUESTIONS_DIR / "ssh.jsonl",
        (
            _man("openssh-client", SSH, "ssh"),
            _man("openssh-client", SSH, "scp"),
            _man("openssh-client", SSH, "ssh-keygen"),
            _man("openssh-client", SSH, "ssh-agent"),
            _man("openssh-client", SSH, "ssh_config", 5),
            _doc("openssh-client", SSH, "README.dns", "README.dns.txt"),
            _doc("openssh-client", SSH, "README.tun.gz", "README.tun.txt"),
        ),
    ),
    Corpus(
        "compression",
        QUESTIONS_DIR / "compression.jsonl",
        (
            _doc("xz-utils", XZ, "faq.txt.gz", "xz-faq.txt"),
            _doc("xz-utils", XZ, "history.txt.gz", "xz-history.txt"),
            _doc("xz-utils", XZ, "README.gz", "xz-README.txt"),
            _doc("zstd", ZSTD, "README.md.gz", "zstd-README.md"),
            _doc("gzip", GZIP, "README.gz", "gzip-README.txt"),
            _man("gzip", GZIP, "gzip"),
            _man("zstd", ZSTD, "zstd"),
        ),
    ),
    Corpus(
        "textutils",
        QUESTIONS_DIR / "textutils.jsonl",
        (
            _man("findutils", FIND, "find"),
            _man("findutils", FIND, "xargs"),
            _man("grep", GREP, "grep"),
            _man("sed", SED, "sed"),
            _man("coreutils", COREUTILS, "sort"),
            _man("coreutils", COREUTILS, "du"),
        ),
    ),
    Corpus("pydocs", QUESTIONS_DIR / "pydocs.jsonl", PYDOCS),
    Corpus("marshmallow", QUESTIONS_DIR / "marshmallow.jsonl", (MARSHMALLOW_DOCS,)),
    Corpus("coverage", QUESTIONS_DIR / "coverage.jsonl", (COVERAGE_DOCS,)),
    Corpus("dateutil", QUESTIONS_DIR / "dateutil.jsonl", (DATEUTIL_CODE,)),
    Corpus("policy", QUESTIONS_DIR / "policy.jsonl", POLICY),
    Corpus("notes", QUESTIONS_DIR / "notes.jsonl", NOTES),
)


def question_problems(folder: Path, questions_path: Path, require_absent: bool = True) -> list[str]:
    """Questions that do not fit the built corpus: a missing source, a heading the chunker
    never produces, a `contains` string not in the file, a fact no expected file holds, or
    an answer found where the question claims it is absent
    (see ragd.harness.evaluation.absence_violations)."""
    from ragd.harness.evaluation import absence_violations, document_text, load_questions
    from ragd.ingest.chunking import chunk_document

    questions = load_questions(questions_path)
    chunks: dict[str, list[tuple[str, str]]] = {}
    for rel, document in documents(folder):
        chunks[rel] = [(c.heading_path, c.text) for c in chunk_document(document)]
    problems = absence_violations(folder, questions, require_absent)
    texts = {name: " ".join(document_text(folder / name).lower().split()) for name in chunks}
    for q in questions:
        for fact in q.facts:  # a fact the expected files do not hold could never be quoted
            if not any(
                " ".join(fact.lower().split()) in texts.get(e.source, "") for e in q.expected
            ):
                problems.append(f"{q.question!r}: fact {fact!r} is in no expected file")
        for e in q.expected:
            if e.source not in chunks:
                problems.append(f"{q.question!r}: no file {e.source}")
            elif not any(e.matches(e.source, h, text) for h, text in chunks[e.source]):
                problems.append(
                    f"{q.question!r}: no chunk of {e.source} under {e.heading!r}"
                    f" holds {e.contains!r}"
                )
    return problems


def documents(folder: Path) -> Iterator[tuple[str, Document]]:
    """(path relative to the folder, parsed document) of every file the indexer would
    read, in path order; a file the loaders skip is left out, as the indexer leaves it."""
    from ragd.ingest.loaders import SkipFile, parse

    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = path.relative_to(folder).as_posix()
        try:
            yield rel, parse(rel, path.read_bytes())
        except SkipFile:
            continue


def by_name(name: str) -> Corpus:
    for corpus in CORPORA:
        if corpus.name == name:
            return corpus
    raise KeyError(name)


def built(
    corpora: Iterable[Corpus], out: Path, names: Collection[str] = ()
) -> Iterator[tuple[Corpus, Path | None]]:
    """(corpus, its folder freshly built under `out`) for each corpus named (every one if
    none is); the folder is None when the corpus is unavailable, and the reason printed."""
    for corpus in corpora:
        if names and corpus.name not in names:
            continue
        try:
            yield corpus, corpus.build(out)
        except CorpusUnavailable as exc:
            print(f"{corpus.name}: unavailable — {exc}")
            yield corpus, None


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "bench" / "out" / "corpora"
    status = 0
    for corpus, folder in built(CORPORA, out):
        if folder is None:
            status = 1
            continue
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        size = sum(f.stat().st_size for f in files)
        print(f"{corpus.name}: {len(files)} files, {size / 1024:.0f} KB in {folder}")
        for problem in question_problems(folder, corpus.questions):
            print(f"  PROBLEM {problem}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
