"""One module per file format: bytes → a Markdown `Document` whose headings carry the structure.

Each module exposes ``parse(name, data) -> Document`` (the file's name and bytes; pure: no
file system, no globals) and names its format in ``FORMAT`` for skip reasons; anything it
raises besides `SkipFile` is turned into one here. Converting to Markdown lets one
chunker serve every format: a docx heading style, an HTML ``h2``, an rst section title or
a Python class all become a Markdown heading, so chunks get heading paths the same way.
`FORMAT_MODULES` maps file suffixes to these modules; `loaders.parse` sends every file
that is not Markdown, plain text or PDF here.
"""

from __future__ import annotations

import importlib
from pathlib import PurePath

from ragd.core.no_text import EMPTY, has_no_text
from ragd.ingest.document import Document, OutOfMemory, SkipFile

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
    ".epub": "epub",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
}


def convert(name: str, data: bytes) -> Document:
    """Parse `data` (the bytes of the file `name`) with the module for its suffix."""
    path = PurePath(name)
    module = importlib.import_module(
        f"ragd.ingest.formats.{FORMAT_MODULES.get(path.suffix.lower(), 'code')}"
    )
    if not data.strip():
        raise SkipFile(EMPTY)
    label = getattr(module, "FORMAT", path.suffix or "file")
    try:
        document: Document = module.parse(path.name, data)
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
