"""The evaluation corpora: real documents nobody on this project wrote, built at eval time.

Each corpus is assembled from files Debian installed on this machine (man pages and
`/usr/share/doc` texts) or from the long descriptions of Python packages installed next to
ragd (`*.dist-info/METADATA`), pinned by package name and version. A missing file or a
different package version makes the corpus *unavailable* with a reason, never silently
different: the questions in `bench/corpora/<name>.jsonl` were written against exactly these
texts. Nothing is copied into the repository; a Debian package's licence is in
`/usr/share/doc/<package>/copyright` on the machine the corpus is built on, a Python
package's is named in its pin below and its licence file is in its `*.dist-info/`.

Man pages are rendered with `man` (80 columns) and turned into Markdown so the chunker
sees their sections: the page title becomes the H1, each unindented section name (NAME,
OPTIONS, …) an H2 and each three-space subsection an H3. The text itself is untouched.

`sample_corpus/` (written for this project) is listed too, so one loop runs them all.
Usage: python bench/corpora.py OUT_DIR   (builds every available corpus under OUT_DIR)
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS_DIR = ROOT / "bench" / "corpora"
MAN = Path("/usr/share/man")
DOC = Path("/usr/share/doc")


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
        found = installed_version(self.package)
        if found != self.version:
            return f"{self.package} {self.version} is pinned; this machine has {found or 'none'}"
        if not self.path.is_file():
            return f"{self.path} ({self.package}) is missing"
        return None

    def text(self) -> str:
        return render_man(self.path) if self.path.is_relative_to(MAN) else read_text(self.path)


@dataclass(frozen=True)
class Distribution:
    """A Python package installed next to ragd (the project's .venv): its long description,
    the body of its `*.dist-info/METADATA`, as the package's author wrote it."""

    package: str  # distribution name on PyPI
    version: str  # exact version the questions were written against
    name: str  # file name inside the corpus; its suffix follows the description's format
    licence: str  # as the package declares it (METADATA License / License-Expression)

    def problem(self) -> str | None:
        try:
            found = metadata.version(self.package)
        except metadata.PackageNotFoundError:
            found = None
        if found != self.version:
            return (
                f"Python package {self.package}=={self.version} is pinned; "
                f"this environment has {found or 'none'}"
            )
        return None

    def text(self) -> str:
        description = metadata.metadata(self.package).get_payload()
        return description if isinstance(description, str) else ""


@dataclass(frozen=True)
class Corpus:
    name: str
    questions: Path
    sources: tuple[Source | Distribution, ...] = ()
    fixed: Path | None = None  # a folder in the repository, used as it is

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
            (target / source.name).write_text(source.text(), encoding="utf-8")
        return target


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
    env = dict(os.environ, MANWIDTH="80", LANG="C.UTF-8", LC_ALL="C.UTF-8")
    done = subprocess.run(
        ["man", "--no-hyphenation", "--no-justification", "-P", "cat", "-l", str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return man_to_markdown(done.stdout, path.name.split(".gz")[0])


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
)


def question_problems(folder: Path, questions_path: Path) -> list[str]:
    """Questions that do not fit the built corpus: a missing source, a heading the chunker
    never produces, a `contains` string not in the file, a fact no expected file holds, or
    an answer found where the question claims it is absent
    (see ragd.evaluation.absence_violations)."""
    from ragd.evaluation import absence_violations, document_text, load_questions
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import parse

    questions = load_questions(questions_path)
    chunks: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file():
            document = parse(path.name, path.read_bytes())
            chunks[path.name] = [(c.heading_path, c.text) for c in chunk_document(document)]
    problems = absence_violations(folder, questions)
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


def by_name(name: str) -> Corpus:
    for corpus in CORPORA:
        if corpus.name == name:
            return corpus
    raise KeyError(name)


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "bench" / "out" / "corpora"
    status = 0
    for corpus in CORPORA:
        try:
            folder = corpus.build(out)
        except CorpusUnavailable as exc:
            print(f"{corpus.name}: unavailable — {exc}")
            status = 1
            continue
        files = sorted(p.name for p in folder.iterdir() if p.is_file())
        size = sum((folder / f).stat().st_size for f in files)
        print(f"{corpus.name}: {len(files)} files, {size / 1024:.0f} KB in {folder}")
        for problem in question_problems(folder, corpus.questions):
            print(f"  PROBLEM {problem}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
