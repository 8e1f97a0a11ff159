"""XML through libxml2 (lxml) with every read outside the file's own folder refused.

A DocBook file's text entities (`&app;` → "GnuCash") are declared in its internal subset
or in DTD files beside it (GnuCash's `gnc-gui-C.dtd`, which pulls in two more through
parameter entities), so the parser must load DTDs; but a document may also declare
`<!ENTITY x SYSTEM "/etc/passwd">` or `"../../secret"`, and libxml2 left to itself reads
those (it even falls back to reading the file when a resolver answers "nothing"): the
other file's text would be indexed and quoted in answers. So every load goes through
`_Confined`, which always answers with bytes of its own:

- a DTD the file or a DTD already read names (the DOCTYPE's system id, a parameter entity
  `<!ENTITY % x SYSTEM "x.dtd">`) is read when it is a plain name in the same folder, a
  regular file (no link followed, no FIFO waited on), under `MAX_COMPANION_BYTES`, and at
  most `MAX_COMPANIONS` of them per file;
- a DTD that is not there (DocBook's own, named by a URL: nothing is fetched) stands in
  as the character entities it declares (`&ndash;`, `&rsquo;`: HTML5's table, which holds
  DocBook's ISO sets), once per file;
- anything else, an external *general* entity above all, is empty text: the entities
  `index.docbook` declares for its chapter files are not read into it (each chapter is
  indexed from its own file, once), and `/etc/passwd` never is.

A chapter with no DOCTYPE of its own whose entities its book declares borrows the sibling
`index.docbook`'s DOCTYPE (`_borrow_doctype`), written on the line the chapter's root starts
on, so every line number stays the file's. An entity declared nowhere is left out (with
one note naming it): libxml2's recovery drops it, and the file is read. Entity expansion
stays within libxml2's limits (`huge_tree` off: the amplification factor and depth limits
on), and a file that reaches one is skipped with one line saying so.
"""

from __future__ import annotations

import functools
import hashlib
import html.entities
import os
import re
import stat
from typing import Any

from ragd.ingest.document import SkipFile
from ragd.ingest.formats.xml_prolog import Prolog, as_utf8, read_prolog

MAX_COMPANION_BYTES = 4 * 1024 * 1024  # a DTD or included fragment read beside the file
MAX_COMPANIONS = 32  # DTD files read for one file (GnuCash's guide reads 3)
# What a DTD read beside the file may be named: a DTD, an entity set, a DTD module. A
# parameter entity naming any other file (`<!ENTITY % e SYSTEM "notes.txt">` then
# `<!ENTITY leak "%e;">`) would put that file's text in the document's (attack48: a
# gitignored `secret.txt` was indexed and quoted that way).
DTD_SUFFIXES = (".dtd", ".ent", ".mod")
BOOK = "index.docbook"  # the sibling whose DOCTYPE a chapter without one borrows
# What a DTD names that is itself a DTD: the DOCTYPE's external subset and parameter
# entities' files. (Run in the parse worker, on its time limit; not the daemon's process.)
_DTD_REFERENCE = re.compile(
    rb"<!(?:DOCTYPE\s+[^\s\[>]+|ENTITY\s+%\s+[^\s\"']+)\s+"
    rb"(?:SYSTEM|PUBLIC\s+(?:\"[^\"]*\"|'[^']*'))\s+(?:\"([^\"]*)\"|'([^']*)')"
)
_UNDECLARED = {"ERR_UNDECLARED_ENTITY", "WAR_UNDECLARED_ENTITY"}
_ENTITY_NAMED = re.compile(r"Entity '([^']+)'")
_PREDEFINED = {"amp", "lt", "gt", "quot", "apos"}


Reads = dict[str, bytes]  # a file read beside the one parsed → its bytes' sha256


def content_digest(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


# The digest noted for a file looked for beside and not read (not there, no regular file,
# too large): its coming is a change like any other, so the file that looked is read again
# (a DTD moved away and back, or written after the chapter that names it).
ABSENT = b""


def _note_read(reads: Reads | None, name: str, data: bytes | None) -> None:
    if reads is not None:
        name = name.removeprefix("./")
        if data is not None:
            reads[name] = content_digest(data)
        else:
            reads.setdefault(name, ABSENT)


def read_beside(folder: str | None, name: str, limit: int = MAX_COMPANION_BYTES) -> bytes | None:
    """The bytes of the regular file `name` in `folder`, or None: `name` must be a plain
    file name (no folder, no `..`), not hidden, the file no link, no larger than `limit`.
    A hidden name is never indexed, so it is never read into a file that is (attack48: a
    DocBook file's DTD read the `.env` beside it, and answers quoted the API key)."""
    name = name.removeprefix("./")
    if folder is None or not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(os.path.join(folder, name), flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(limit + 1)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def dtds_named(data: bytes) -> set[str]:
    """The system ids `data` names as DTDs (its DOCTYPE's, its parameter entities')."""
    return {
        (m.group(1) or m.group(2) or b"").decode("utf-8", "replace")
        for m in _DTD_REFERENCE.finditer(data)
    }


@functools.cache
def character_entities() -> bytes:
    """DocBook's character entities as declarations (`<!ENTITY ndash "&#8211;">`)."""
    lines = []
    for key, value in html.entities.html5.items():
        name = key[:-1]
        if key.endswith(";") and name.isalnum() and name not in _PREDEFINED:
            lines.append(f'<!ENTITY {name} "{"".join(f"&#{ord(c)};" for c in value)}">')
    return "\n".join(lines).encode("ascii")


def _resolver_class() -> Any:
    import lxml.etree

    class Confined(lxml.etree.Resolver):  # type: ignore[misc]
        def __init__(self, folder: str | None, dtds: set[str], reads: Reads | None) -> None:
            super().__init__()
            self.folder = folder
            self.dtds = dtds
            self.reads = reads
            self.loads = 0
            self.stood_in = False

        def resolve(self, url: str | None, public_id: str | None, context: Any) -> Any:
            if url is None or url not in self.dtds:
                return self.resolve_string(b"", context)  # never an external general entity
            if not url.lower().endswith(DTD_SUFFIXES):
                return self.resolve_string(b"", context)  # named as a DTD, some other file
            data = None
            if self.loads < MAX_COMPANIONS:
                data = read_beside(self.folder, url)
                _note_read(self.reads, url, data)
            if data is not None:
                self.loads += 1
                self.dtds |= dtds_named(data)
                return self.resolve_string(data, context)
            if self.stood_in:
                return self.resolve_string(b"", context)
            self.stood_in = True
            return self.resolve_string(character_entities(), context)

    return Confined


def parse_confined(
    data: bytes, folder: str | None, label: str, borrow: bool = True, reads: Reads | None = None
) -> tuple[Any, list[str]]:
    """The root element of `data` and notes on what was left out; SkipFile when libxml2
    stopped at one of its limits or read nothing. `folder`: where the file is (None: no
    file beside it is read); `reads`, if given, hears of each file read beside it (a DTD,
    the book whose DOCTYPE it borrows) and its bytes' sha256: what the result depends on."""
    import lxml.etree

    prolog = read_prolog(data)
    if borrow and prolog.doctype is None and folder is not None and b"&" in data:
        data = _borrow_doctype(data, prolog, folder, reads)
        prolog = read_prolog(data)
    parser = lxml.etree.XMLParser(
        load_dtd=True,
        no_network=True,
        resolve_entities=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        recover=True,
    )
    parser.resolvers.add(_resolver_class()(folder, dtds_named(data[: prolog.root_at]), reads))
    try:
        root = lxml.etree.fromstring(data, parser)
    except lxml.etree.XMLSyntaxError as exc:
        raise SkipFile(f"unreadable {label} ({exc})") from None
    undeclared: list[str] = []
    damage = ""
    for error in parser.error_log:
        if error.type_name == "ERR_RESOURCE_LIMIT":
            raise SkipFile(f"{label} beyond the XML parser's limits ({error.message.strip()})")
        if error.type_name in _UNDECLARED:
            named = _ENTITY_NAMED.search(error.message)
            if named and named.group(1) not in undeclared:
                undeclared.append(named.group(1))
        elif error.level_name == "FATAL" and not damage:
            message = error.message.strip()
            damage = f"not well-formed XML at line {error.line} ({message}): read as recovered"
    if root is None:
        raise SkipFile(f"unreadable {label} ({damage or 'no element'})")
    notes = [damage] if damage else []
    if undeclared:
        shown = ", ".join(f"&{name};" for name in undeclared[:5])
        more = f" and {len(undeclared) - 5} more" if len(undeclared) > 5 else ""
        notes.append(f"entities declared nowhere left out: {shown}{more}")
    return root, notes


def _borrow_doctype(data: bytes, prolog: Prolog, folder: str, reads: Reads | None) -> bytes:
    """`data` with its book's DOCTYPE (the sibling index.docbook's, named for this file's
    root) put before its root element, on the same line."""
    if prolog.root is None:
        return data
    book = read_beside(folder, BOOK)
    _note_read(reads, BOOK, book)
    if book is None:
        return data
    try:
        book = as_utf8(book)
    except SkipFile:
        return data
    span = read_prolog(book).doctype
    if span is None:
        return data
    declared = book[span[0] + len(b"<!DOCTYPE") : span[1]].lstrip()
    old_root = declared.split(None, 1)[0].split(b"[", 1)[0] if declared.strip() else b""
    declaration = b"<!DOCTYPE " + prolog.root.encode("utf-8") + declared[len(old_root) :]
    declaration = declaration.replace(b"\r", b" ").replace(b"\n", b" ")
    return data[: prolog.root_at] + declaration + data[prolog.root_at :]
