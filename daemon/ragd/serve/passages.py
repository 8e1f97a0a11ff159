"""Read back what the index holds: a document, one of its sections, or a range of its lines.

This serves the `get` and `documents` ops (used by `rag mcp`, so an agent can read around
a search hit). Everything here is read-only and starts from a *source label* as replies
show it (``howto.md``, or ``notes/howto.md`` with several roots): a label only resolves to
a file the manifest has indexed, so a request cannot name anything outside the roots or
anything the filter keeps out. Sections come from the manifest's stored chunk texts;
only a line range reads the file itself, and only a text file inside its root.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragd.core.names import disk_path
from ragd.index.manifest import ChunkRow
from ragd.ingest.chunking import HEADING_SEPARATOR
from ragd.ingest.document import SkipFile, decode_text, split_lines
from ragd.ingest.gzipped import GZIP_MAGIC, gunzip
from ragproto.errors import NotAFile

MAX_TEXT_CHARS = 200_000  # one reply's passage; the rest is reported as truncated
MAX_LINES = 5_000


class PassageError(Exception):
    """The request names something that cannot be read; str(exc) says why."""


@dataclass(frozen=True)
class Passage:
    text: str
    truncated: bool
    lines: tuple[int, int] | None = None  # the 1-based line range a `read_lines` returned


def under_heading(heading: str, wanted: str) -> bool:
    """True for the section `wanted` itself and every section nested below it."""
    return heading == wanted or heading.startswith(wanted + HEADING_SEPARATOR)


def strip_overlap(previous: str, text: str) -> str:
    """`text` without the leading paragraphs it repeats from the end of `previous`.

    The chunker starts a chunk with a few whole trailing paragraphs of the one before it
    (overlap for the answer's context); read back in order they would appear twice.
    """
    before = previous.split("\n\n")
    current = text.split("\n\n")
    for n in range(min(len(before) - 1, len(current) - 1), 0, -1):
        if current[:n] == before[-n:]:
            return "\n\n".join(current[n:])
    return text


def join_chunks(rows: Sequence[ChunkRow], with_headings: bool) -> Passage:
    """Chunks in file order → one text, overlap removed, a heading line where the path changes."""
    parts: list[str] = []
    previous: ChunkRow | None = None
    for row in rows:
        same_place = (
            previous is not None and previous.heading == row.heading and previous.page == row.page
        )
        if with_headings and not same_place:
            page = f" (page {row.page})" if row.page else ""
            parts.append(f"## {row.heading}{page}")
        parts.append(
            strip_overlap(previous.text, row.text) if same_place and previous else row.text
        )
        previous = row
    return cap("\n\n".join(parts))


def cap(text: str) -> Passage:
    if len(text) <= MAX_TEXT_CHARS:
        return Passage(text, False)
    return Passage(text[:MAX_TEXT_CHARS], True)


def section(rows: Sequence[ChunkRow], heading: str) -> Passage:
    """The section at `heading` (and its subsections), as indexed."""
    wanted = " ".join(heading.split())
    picked = [r for r in rows if under_heading(r.heading, wanted)]
    if not picked:
        headings = list(dict.fromkeys(r.heading for r in rows))
        shown = "; ".join(headings[:20]) + (" …" if len(headings) > 20 else "")
        raise PassageError(f"no section {heading!r} in this document; its sections: {shown}")
    nested = any(r.heading != wanted for r in picked)
    return join_chunks(picked, with_headings=nested)


def read_lines(
    root: str, relpath: str, start: int, end: int, max_bytes: int, follow_symlinks: bool = False
) -> Passage:
    """Lines `start`..`end` (1-based, inclusive) of a text file inside `root`; of a
    gzipped one (`NEWS.gz`, `tar.1.gz`), the lines inside it, as its chunks count them."""
    if start < 1 or end < start:
        raise PassageError("'lines' must be [start, end] with 1 ≤ start ≤ end")
    end = min(end, start + MAX_LINES - 1)
    fd = open_inside(root, relpath, follow_symlinks)
    try:
        data = read_capped(fd, max_bytes)
    finally:
        os.close(fd)
    try:
        if relpath.lower().endswith(".gz") and data.startswith(GZIP_MAGIC):
            data = gunzip(data, max_bytes)  # the same cap as a file read plain
        text, _ = decode_text(data)
    except SkipFile as exc:
        raise PassageError(f"line ranges need a text file ({exc}); ask by heading") from None
    lines = split_lines(text)  # counted as the chunker counts them, so a hit's lines match
    if lines and not lines[-1]:
        lines.pop()  # the newline that ends the last line does not start another
    if start > len(lines):
        raise PassageError(f"the file has {len(lines)} lines; line {start} does not exist")
    end = min(end, len(lines))
    passage = cap("\n".join(lines[start - 1 : end]))
    return Passage(passage.text, passage.truncated, (start, end))


def open_inside(root: str, relpath: str, follow_symlinks: bool) -> int:
    """A descriptor of the regular file `relpath` (an index key) names inside `root`.

    Never blocks and never reads through a link the index would not follow: the file is
    opened O_NONBLOCK (a FIFO swapped in does not wait for a writer) and checked with
    fstat on the descriptor itself; without follow_symlinks every folder below the root is
    opened O_NOFOLLOW relative to the one above, so no component can be a link, whatever
    changes between the index and this read. The key's escaped bytes are turned back into
    the real name (`names.disk_path`)."""
    path = disk_path(root, relpath)
    try:
        if follow_symlinks:
            fd = _open_followed(root, path)
        else:
            fd = _open_unfollowed(root, path.relative_to(root).parts)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            why = "this document is now a symbolic link; ragd does not follow it"
            raise NotAFile(why) from None
        raise PassageError(f"cannot read the file now ({exc.strerror or exc})") from None
    kind = os.fstat(fd).st_mode
    if not stat.S_ISREG(kind):
        os.close(fd)
        raise NotAFile(f"this document is no longer a regular file (now {_kind(kind)})")
    return fd


def _open_followed(root: str, path: Path) -> int:
    real_root = Path(os.path.realpath(root))
    if real_root not in Path(os.path.realpath(path)).parents:
        raise PassageError("this document lies outside its watched folder (a link); ask by heading")
    return os.open(path, _FILE_FLAGS)


def _open_unfollowed(root: str, parts: Sequence[str]) -> int:
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            try:
                below = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=folder)
            except OSError as exc:  # a link there fails as ENOTDIR (O_DIRECTORY) or ELOOP
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    why = "a folder on this document's path is now a symbolic link or a file"
                    raise NotAFile(f"{why}; ragd does not follow it") from None
                raise
            os.close(folder)
            folder = below
        return os.open(parts[-1], _FILE_FLAGS | os.O_NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)


_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC


def read_capped(fd: int, max_bytes: int) -> bytes:
    """Up to `max_bytes` of the file; PassageError if it holds more."""
    chunks: list[bytes] = []
    size = 0
    try:
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise PassageError(f"cannot read the file now ({exc.strerror or exc})") from None
    if size > max_bytes:
        raise PassageError("the file is larger than max_file_mb; ask by heading")
    return b"".join(chunks)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISDIR, "a folder"),
    ):
        if test(mode):
            return name
    return "not a file"
