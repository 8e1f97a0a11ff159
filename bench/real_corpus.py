"""A large folder of real documents from this machine: the texts Debian put in /usr/share/doc.

Every regular text file under /usr/share/doc (README, NEWS, changelogs, FAQs, HTML manuals,
Markdown and reStructuredText docs), gzip-decompressed, is written under OUT/<package>/…
with a suffix ragd indexes (`.txt` for suffix-less names such as `README` or `NEWS`). Left
out: the `copyright` files (mostly the same licence texts over and over), exact duplicate
contents, binary files, and files ragd's own loader refuses. Files are taken in a seeded
shuffle of their paths (so the first N files are a sample of the whole, not the packages
starting with `a`), until the chunks counted by ragd's own chunker reach `min_chunks`.

Nothing is invented: the text is what the packages ship. The spec and the per-file counts
go to OUT/../real-corpus.json, so a second run reuses the folder.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import shutil
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

from ragd.ingest.chunking import ChunkParams, chunk_document
from ragd.ingest.loaders import SkipFile, parse

DOC = Path("/usr/share/doc")
TEXT_SUFFIXES = {".txt", ".md", ".markdown", ".rst", ".html", ".htm"}
# Suffix-less (or oddly suffixed) files that are prose: README, NEWS.Debian, changelog, …
TEXT_NAMES = ("readme", "news", "changelog", "changes", "todo", "faq", "authors", "thanks")
TEXT_NAMES += ("bugs", "history", "notes", "install", "credits", "usage", "upgrading")
VERSION = 1


@dataclass(frozen=True)
class CorpusFile:
    path: str  # relative to the corpus folder
    source: str  # the file under /usr/share/doc it came from
    bytes: int  # decompressed size
    chunks: int  # by ragd's chunker (loaders.parse → chunk_document, default ChunkParams)


def corpus_name(source: Path) -> str | None:
    """The name under OUT for a /usr/share/doc file, or None when it is not prose."""
    name = source.name[:-3] if source.name.endswith(".gz") else source.name
    if name == "copyright":
        return None
    suffix = Path(name).suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return name
    if name.lower().startswith(TEXT_NAMES):
        return name + ".txt"
    return None


def candidates(seed: int) -> list[Path]:
    paths = [p for p in DOC.rglob("*") if p.is_file() and not p.is_symlink()]
    paths = [p for p in paths if corpus_name(p) is not None]
    paths.sort()
    random.Random(f"{seed}:real-corpus").shuffle(paths)
    return paths


def read(source: Path) -> bytes | None:
    data = source.read_bytes()
    if source.name.endswith(".gz"):
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return None
    return None if b"\0" in data[:8192] else data


def build(out: Path, min_chunks: int, seed: int) -> list[CorpusFile]:
    """Write the corpus under `out` (reused when `out`'s spec matches); the files in order."""
    marker = out.parent / "real-corpus.json"
    spec = {"min_chunks": min_chunks, "seed": seed, "version": VERSION}
    if marker.exists() and out.exists():
        saved = json.loads(marker.read_text())
        if saved["spec"] == spec:
            return [CorpusFile(**row) for row in saved["files"]]
    shutil.rmtree(out, ignore_errors=True)
    files: list[CorpusFile] = []
    seen: set[bytes] = set()
    names: set[str] = set()
    total = 0
    for source in candidates(seed):
        if total >= min_chunks:
            break
        data = read(source)
        digest = hashlib.sha256(data or b"").digest()
        if not data or digest in seen:
            continue
        seen.add(digest)
        name = corpus_name(source)
        assert name is not None
        rel = (source.parent.relative_to(DOC) / name).as_posix()
        if rel in names:  # README and README.gz side by side
            continue
        names.add(rel)
        try:
            chunks = len(chunk_document(parse(rel, data), ChunkParams()))
        except SkipFile:
            continue
        if not chunks:
            continue
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        files.append(CorpusFile(rel, str(source), len(data), chunks))
        total += chunks
    marker.write_text(json.dumps({"spec": spec, "files": [asdict(f) for f in files]}))
    return files


def summary(files: list[CorpusFile]) -> dict[str, int]:
    return {
        "files": len(files),
        "bytes": sum(f.bytes for f in files),
        "chunks": sum(f.chunks for f in files),
        "packages": len({f.path.split("/", 1)[0] for f in files}),
    }
