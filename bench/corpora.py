"""The evaluation corpora: real documents nobody on this project wrote, built at eval time.

Each corpus is assembled from files Debian installed on this machine (man pages and
`/usr/share/doc` texts), pinned by package name and version. A missing file or a different
package version makes the corpus *unavailable* with a reason, never silently different:
the questions in `bench/corpora/<name>.jsonl` were written against exactly these texts.
Nothing is copied into the repository; each package's licence is in
`/usr/share/doc/<package>/copyright` on the machine the corpus is built on.

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

    @property
    def is_man_page(self) -> bool:
        return self.path.is_relative_to(MAN)


@dataclass(frozen=True)
class Corpus:
    name: str
    questions: Path
    sources: tuple[Source, ...] = ()
    fixed: Path | None = None  # a folder in the repository, used as it is

    def build(self, out: Path) -> Path:
        """The corpus folder: `fixed` itself, or a fresh build under `out/<name>`."""
        if self.fixed is not None:
            return self.fixed
        check_versions(self.sources)
        target = out / self.name
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for source in self.sources:
            text = render_man(source.path) if source.is_man_page else read_text(source.path)
            (target / source.name).write_text(text, encoding="utf-8")
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


def check_versions(sources: tuple[Source, ...]) -> None:
    for package, version in sorted({(s.package, s.version) for s in sources}):
        found = installed_version(package)
        if found != version:
            raise CorpusUnavailable(
                f"{package} {version} is pinned; this machine has {found or 'none'}"
            )
    for source in sources:
        if not source.path.is_file():
            raise CorpusUnavailable(f"{source.path} ({source.package}) is missing")


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
)


def question_problems(folder: Path, questions_path: Path) -> list[str]:
    """Questions that do not fit the built corpus: a missing source, a heading the chunker
    never produces, a `contains` string not in the file, or an answer found where the
    question claims it is absent (see ragd.evaluation.absence_violations)."""
    from ragd.evaluation import absence_violations, load_questions
    from ragd.ingest.chunking import chunk_document
    from ragd.ingest.loaders import parse

    questions = load_questions(questions_path)
    chunks: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file():
            document = parse(path.name, path.read_bytes())
            chunks[path.name] = [(c.heading_path, c.text) for c in chunk_document(document)]
    problems = absence_violations(folder, questions)
    for q in questions:
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
