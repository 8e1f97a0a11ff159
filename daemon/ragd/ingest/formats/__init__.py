"""One module per file format: bytes → a Markdown `Document` whose headings carry the structure.

Each module exposes ``parse(name, data) -> Document`` (the file's name and bytes; pure: no
file system, no globals) and names its format in ``FORMAT`` for skip reasons; anything it
raises besides `SkipFile` is turned into one here. Converting to Markdown lets one
chunker serve every format: a docx heading style, an HTML ``h2``, an rst section title or
a Python class all become a Markdown heading, so chunks get heading paths the same way.
`FORMAT_MODULES` maps file suffixes to these modules, a man page's name (`tar.1`,
`tar.1.gz`: no one suffix) goes to `man` and an Info manual's (`find.info-1`, `dir`) to
`info`; `loaders.parse` sends every file that is not
Markdown, plain text or PDF here. A module whose output size is not bounded by its input's
(a gzipped man page) sets ``CAPPED`` and is given the daemon's cap on extracted text. A
module that reads files beside the one it parses (DocBook's DTDs) sets ``READS_FOLDER`` and
is given the file's folder; it reads nothing outside it (`xml_confined`). A module that
names other files by their path from the file's own (Rust's `include_str!`) sets
``KNOWS_PATH`` and is given the file's path in its folder as `path` (a string: nothing
is read).
"""

from __future__ import annotations

import importlib
from pathlib import PurePath

from ragd.core.no_text import EMPTY, has_no_text
from ragd.ingest.document import Document, OutOfMemory, SkipFile
from ragd.ingest.formats.info import is_info_name
from ragd.ingest.formats.man import is_man_page
from ragd.ingest.shebang import script_suffix

# Formats converted to Markdown by their own module, ragd.ingest.formats.<module>; any
# other suffix the include patterns let through is read as source code (formats.code).
FORMAT_MODULES = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".rst": "rst",
    ".docx": "docx",
    ".ipynb": "notebook",
    ".odt": "odt",
    ".odp": "odp",
    ".ods": "ods",
    ".epub": "epub",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".csv": "delimited",  # read as the one-sheet table a spreadsheet shows
    ".tsv": "delimited",
    ".adoc": "asciidoc",
    ".asciidoc": "asciidoc",
    ".org": "org",
    ".tex": "latex",
    ".docbook": "docbook",
    ".xml": "docbook",  # only a DocBook root is a document (formats.docbook)
    ".page": "mallard",
    ".pm": "perl",
    ".pl": "perl",
    ".pod": "perl",
    # groff documents that are not man pages: ms, me, mom (formats.roff_doc)
    ".ms": "roff_doc",
    ".me": "roff_doc",
    ".mom": "roff_doc",
    ".roff": "roff_doc",
}


def module_name(name: str, data: bytes = b"") -> str:
    """The module under ragd.ingest.formats that reads the file `name` (its bytes `data`:
    a script with no suffix is read by its interpreter's language, ingest.shebang)."""
    if is_man_page(name):
        return "man"
    if is_info_name(name):
        return "info"
    return FORMAT_MODULES.get(suffix_for(name, data), "code")


def suffix_for(name: str, data: bytes) -> str:
    """The file's suffix, or for a script with none, its language's (`#!/usr/bin/perl`:
    `.pl`)."""
    return PurePath(name).suffix.lower() or script_suffix(data) or ""


def convert(
    name: str, data: bytes, max_text_chars: int | None = None, folder: str | None = None
) -> Document:
    """Parse `data` (the bytes of the file `name`) with the module for its name; a module
    that sets ``READS_FOLDER`` (DocBook: the DTDs beside a chapter) is given `folder`, the
    folder the file is in (None: it reads nothing beside the file)."""
    path = PurePath(name)
    module = importlib.import_module(f"ragd.ingest.formats.{module_name(name, data)}")
    if not data.strip():
        raise SkipFile(EMPTY)
    label = getattr(module, "FORMAT", path.suffix or "file")
    try:
        if getattr(module, "CAPPED", False):
            document: Document = module.parse(path.name, data, max_text_chars)
        elif getattr(module, "READS_FOLDER", False):
            document = module.parse(path.name, data, folder)
        elif getattr(module, "KNOWS_PATH", False):
            document = module.parse(path.name, data, path=name)
        else:
            document = module.parse(path.name, data)
    except SkipFile:
        raise
    except RecursionError:
        raise SkipFile(f"{label} nested too deeply to read") from None
    except MemoryError:
        raise OutOfMemory(f"{label} too large to read in memory") from None
    except Exception as exc:  # a damaged file makes each library raise its own way
        raise SkipFile(f"unreadable {label} ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not document.text.strip():
        raise SkipFile(has_no_text(label))
    return document
