"""Gzipped files: which names are a gzipped document, and their bytes decompressed within a cap.

Debian installs almost every text under /usr/share/doc gzipped (`NEWS.gz`,
`changelog.Debian.gz`, `README.md.gz`, `faq.txt.gz`), and man pages too (`tar.1.gz`,
read by formats.man). A gzipped document is read as the file inside it: `X.gz` is a
document when `X` is one (`inner_name`), never an archive (`*.tar.gz`) and never a second
layer (`X.gz.gz`). Decompression happens in the parse worker, in steps, and stops past
the daemon's cap on extracted text: a gzip bomb is one skip reason, not a gigabyte held.
"""

from __future__ import annotations

import zlib
from pathlib import PurePath

from ragd.ingest.document import SkipFile

CHUNK = 1 << 16  # bytes decompressed per step, and the most input given at once
FIRST_STEP = 256  # input first given to a member (doubled until CHUNK)
GZIP_MAGIC = b"\x1f\x8b"  # how a gzip member starts
SUFFIX = ".gz"
# Archives gzip carries; their members are files of their own, not one text.
ARCHIVE_SUFFIXES = (".tar",)


def inner_name(name: str) -> str | None:
    """`NEWS.gz` → `NEWS`, `docs/faq.txt.gz` → `docs/faq.txt`: the name of the file a
    gzipped document holds; None when `name` is not one (no `.gz`, an archive, `X.gz.gz`,
    or nothing before the `.gz`)."""
    if not name.lower().endswith(SUFFIX):
        return None
    inner = name[: -len(SUFFIX)]
    base = PurePath(inner).name.lower()
    if not base or base.endswith(SUFFIX) or base.endswith(ARCHIVE_SUFFIXES):
        return None
    return inner


def gunzip(data: bytes, cap: int, what: str = "file") -> bytes:
    """The bytes inside a gzip file, refused past `cap` bytes without holding more. Every
    member is read, as `zcat` does: `cat a.gz b.gz > c.gz` is one text; bytes after the
    last member that start no other one are ignored, as gzip does. `what` names the file
    in the skip reason (`gzipped man page expands past …`).

    Linear in the file whatever its members: each member is given its input in pieces
    that start at FIRST_STEP bytes and double, so what zlib hands back at a member's end
    (`unused_data`, a copy) is at most twice the member's own size. Handing it the rest
    of the file at once copied that rest at every member's end: 80,000 one-word members
    (2 MB) took 4.3 s, and this runs in the daemon for `get`'s line ranges."""
    view = memoryview(data)
    parts: list[bytes] = []
    size = 0
    at = 0  # the first byte of `data` no inflater has been given
    try:
        while True:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            step = FIRST_STEP
            pending: bytes | memoryview = b""
            while not inflater.eof:
                if not pending:
                    if at >= len(view):
                        raise SkipFile("unreadable gzip (the file ends early)")
                    pending = view[at : at + step]
                    at += len(pending)
                    step = min(2 * step, CHUNK)
                part = inflater.decompress(pending, CHUNK)
                pending = inflater.unconsumed_tail
                size += len(part)
                if size > cap:
                    raise SkipFile(
                        f"gzipped {what} expands past the {cap / (1024 * 1024):.4g} MB "
                        "max_text_mb cap"
                    )
                parts.append(part)
            at -= len(inflater.unused_data)  # given to this member, but past its end
            if view[at : at + len(GZIP_MAGIC)] != GZIP_MAGIC:
                return b"".join(parts)
    except zlib.error as exc:
        raise SkipFile(f"unreadable gzip ({exc})") from None
