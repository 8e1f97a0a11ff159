"""Man pages (`tar.1`, `openssl.1ssl`, and gzipped as installed, `tar.1.gz`) → Markdown.

Read in Python from the page's troff source, with no `man` or `groff` process (a machine
may have neither): `roff_reader` follows troff's requests, `man_macros` the man(7) macro
package and `mdoc` the BSD one (ssh(1) is mdoc). The page's title heads it as `# tar(1)`
(`tar` as the file is named), its sections (`.SH`/`.Sh`) are `##` and subsections `###`; an
option and its description are one list item. Every block keeps the source lines it was
read from (`located` "lines": the lines of the decompressed page, which is what `zcat`/`man
-l` show).

Only names of man pages are read as man pages (`is_man_page`): a section digit, up to
eight letters of section suffix, optionally `.gz`; `backup.tar.gz` and `data.gz` are not.
A gzipped page is decompressed to at most `max_text_chars` bytes (the daemon's
`max_text_mb`) by `ingest.gzipped`, which reads every other gzipped document too: a gzip
bomb is one skip reason, not a gigabyte allocated.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from ragd.ingest.document import DEFAULT_CAP, Document, SkipFile, decode_text, split_lines
from ragd.ingest.formats.man_macros import ManReader
from ragd.ingest.formats.mdoc import MdocReader
from ragd.ingest.formats.roff_reader import RoffReader
from ragd.ingest.gzipped import gunzip

FORMAT = "man page"
CAPPED = True  # `parse` takes the daemon's cap on extracted text
# `3readline`: the longest section suffix read. The default `include` globs stop at four
# letters (`3perl`, `3type`); a longer one (`3const`) is read once a glob names it.
SECTION_LETTERS = 8
# The end of a man page's name (matched on the lower-cased name).
MAN_NAME = re.compile(rf"\.[1-9][a-z]{{0,{SECTION_LETTERS}}}(\.gz)?$")
# A line only a man page opens with: a title, a section, or an include.
_MAN_MARKUP = re.compile(r"^[.'][ \t]*(TH|Dd|Dt|SH|Sh|so)([ \t]|$)", re.M)
# mdoc's own opening macros; a page with none is man(7).
_MDOC = re.compile(r"^\.[ \t]*(Dd|Dt|Sh)([ \t]|$)", re.M)


class NotAManPage(SkipFile):
    """A file named like a man page whose text has no man markup (`ChangeLog.1`, a
    rotated change log: loaders reads a documentation name like that as plain text)."""


def is_man_page(name: str) -> bool:
    return MAN_NAME.search(PurePath(name).name.lower()) is not None


def page_name(name: str) -> str:
    """`CA.pl.1ssl.gz` → `CA.pl`: the file's name without its section and compression."""
    base = PurePath(name).name
    base = base[:-3] if base.lower().endswith(".gz") else base
    return base.rpartition(".")[0] or base


def parse(name: str, data: bytes, max_text_chars: int | None = None) -> Document:
    if name.lower().endswith(".gz"):
        data = gunzip(data, DEFAULT_CAP if max_text_chars is None else max_text_chars, FORMAT)
    text, notes = decode_text(data)
    return read(name, text, notes)


def read(name: str, text: str, notes: list[str]) -> Document:
    """A man page's decoded text (`parse`; roff_doc's `ls.roff`, decoded already)."""
    if _MAN_MARKUP.search(text) is None:
        raise NotAManPage(f"not a {FORMAT} (no .TH, .Dd, .SH or .so line)")
    page = page_name(name)  # a title that names the file is written as the file is named
    reader: RoffReader = MdocReader(page) if _MDOC.search(text) else ManReader(page)
    writer = reader.read(split_lines(text)).finish()
    return Document(
        kind="markdown",
        title=page,
        text=writer.text(),
        notes=notes,
        located="lines",
        origins=writer.origins(),
        reaches=writer.reaches(),
    )
