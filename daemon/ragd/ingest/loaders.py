"""Bytes → a `Document` the chunker understands, or `SkipFile` with a one-line reason.

The indexer reads each file exactly once, hashes those bytes and hands them here, so the
hash in the manifest always describes the text that was indexed. Loaders never raise
anything but SkipFile for bad input: a broken PDF or a binary file named `.md` is a
reason in `rag status`, not a crash.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from ragd.core.config import DOC_NAMES, VERSIONED_NOTES, in_capitals
from ragd.core.no_text import EMPTY, has_no_text, not_a_document
from ragd.ingest import ocr, pdf_words
from ragd.ingest.document import (
    DEFAULT_CAP,
    Document,
    Kind,
    SkipFile,
    decode_text,
    looks_binary,
    without_nul,
)
from ragd.ingest.entry_list import read_entries
from ragd.ingest.formats import FORMAT_MODULES, convert, module_name
from ragd.ingest.formats.asciidoc import declared_asciidoc
from ragd.ingest.formats.c_family import written_as_prose
from ragd.ingest.formats.code import LANGUAGES, TEMPLATE_SUFFIXES, opens_a_form
from ragd.ingest.formats.man import NotAManPage, is_man_page, page_name
from ragd.ingest.formats.myst import convert as myst_convert
from ragd.ingest.formats.roff_doc import written_in_roff
from ragd.ingest.formats.ruby_code import written_in_another_alphabet
from ragd.ingest.gzipped import gunzip, inner_name
from ragd.ingest.heading_text import with_rendered_headings
from ragd.ingest.hoogle import hoogle_to_markdown, is_hoogle
from ragd.ingest.markdown_comments import without_comments
from ragd.ingest.paged_text import read_paged
from ragd.ingest.pdf_outline import read_outline
from ragd.ingest.r_markdown import r_markdown_shown
from ragd.ingest.rdoc import is_rdoc, rdoc_to_markdown
from ragd.ingest.setext import underlined_to_atx
from ragd.ingest.shebang import script_suffix
from ragd.ingest.terminal_text import as_displayed
from ragd.ingest.text_headings import written_in_markdown
from ragd.ingest.vim_help import is_vim_help, vim_help_to_markdown

__all__ = ["FORMAT_MODULES", "Document", "SkipFile", "decode_text", "looks_binary", "parse"]

# Markdown's other suffixes: ikiwiki's `.mdwn` (its pages, and the docs of packages written
# with it: etckeeper's README.mdwn.gz, read as text, was one `(untitled)` section), `.mkd`,
# `.mkdn` and `.mdown`, as editors and GitHub name them.
MARKDOWN_SUFFIXES = {".md", ".markdown", ".mdwn", ".mkd", ".mkdn", ".mdown", ".rmd", ".qmd"}
TEXT_SUFFIXES = {".txt"}
PDF_SUFFIXES = {".pdf"}
MB = 1024 * 1024
Progress = Callable[[int, int], None]  # (pages done, pages in all) of a slow parse

# pypdf reports recoverable damage through logging at WARNING; one line per file from us
# is enough, so its chatter is kept out of the daemon's log.
logging.getLogger("pypdf").setLevel(logging.ERROR)


def kind_for(name: str) -> Kind | None:
    """The kind read here, or None: `formats` converts it (by suffix, else as code)."""
    suffix = PurePath(name).suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in TEXT_SUFFIXES:
        return "text"
    if suffix in PDF_SUFFIXES:
        return "pdf"
    if is_doc_name(name) and suffix not in FORMAT_MODULES and suffix not in LANGUAGES:
        return None if is_man_page(name) else "text"
    return None


def is_doc_name(name: str) -> bool:
    """`README`, `ChangeLog`, `NEWS.Debian`, `changelog.Debian.amd64`: a conventional
    documentation name (config.DOC_NAMES, any case; config.in_capitals: `COMPAT`; or
    config.VERSIONED_NOTES: `v2.31-ReleaseNotes`),
    alone or followed by words after
    dots (letters, digits, `-`, `_`, `+`: `README.libstdc++`). Which reader a tail such as
    `.md` asks for is kind_for's question."""
    name = PurePath(name).name
    if in_capitals(name) or _versioned_notes(name):
        return True
    base, dot, tail = name.lower().partition(".")
    if base not in DOC_NAMES:
        return False
    return not dot or all(part and _is_word(part) for part in tail.split("."))


def _versioned_notes(name: str) -> bool:
    """`v2.31-ReleaseNotes`: one release's notes, named by its version (config.VERSIONED_NOTES)."""
    lowered = name.lower()
    return lowered.endswith(VERSIONED_NOTES) and lowered[: -len(VERSIONED_NOTES)][-1:].isdigit()


def _is_word(part: str) -> bool:
    return all(c.isalnum() or c in "-_+" for c in part)


def parse(
    name: str,
    data: bytes,
    max_text_chars: int | None = None,
    deadline: float | None = None,
    progress: Progress | None = None,
    folder: str | None = None,
) -> Document:
    """Parse a file's bytes; `folder` is the folder the file is in (a DocBook chapter's
    DTDs are read from there, nothing outside it; None: nothing beside the file is read);
    `max_text_chars` caps the text extracted from it (a PDF can
    expand a few kilobytes into hundreds of megabytes), past which the file is skipped.
    `deadline` (time.monotonic) bounds the slow part, OCR of scanned pages, and `progress`
    hears of each page read that way (done, total). A gzipped document (`NEWS.gz`, not a
    man page: formats.man reads those) is decompressed within the same cap and read as the
    file inside it."""
    cap = DEFAULT_CAP if max_text_chars is None else max_text_chars
    rotated_log = _rotated_log(name)
    inner = _gzipped_inner(name)
    if inner is not None:
        data = gunzip(data, cap)
        name = inner
    name = _document_templated(name) or name
    if _built_search_index(name, data):
        raise SkipFile(not_a_document("a built book's search index (searchindex.js)"))
    kind = kind_for(name)
    if kind is None and _prose_named_like_code(name, data):
        kind = "text"
    stem = PurePath(name).stem
    if kind is None and rotated_log:
        try:
            document = convert(name, data, max_text_chars, folder)
        except NotAManPage:  # a rotated change log: text, not troff (and not empty)
            document = _text_document("text", stem, data)
    elif kind is None:
        document = _entries_without_suffix(name, data) or convert(
            name, data, max_text_chars, folder
        )
    elif not data.strip():
        raise SkipFile(EMPTY)
    elif kind == "pdf":
        document = _parse_pdf(stem, data, max_text_chars, deadline, progress)
    elif kind == "text" and declared_asciidoc(data):  # git's how-tos: titles, listings
        document = convert(f"{stem}.adoc", data, max_text_chars, folder)
    elif kind == "text" and is_hoogle(data):  # Haddock's split.txt
        text, notes = decode_text(data)
        text = hoogle_to_markdown(text)
        document = Document(kind="markdown", title=stem, text=text, notes=notes)
    elif kind == "text" and is_vim_help(data):  # Vim's `doc/*.txt`: tags, rules, examples
        text, notes = decode_text(data)
        text, origins = vim_help_to_markdown(text)
        document = Document(
            kind="markdown", title=stem, text=text, notes=notes, located="lines", origins=origins
        )
    elif kind == "text" and is_rdoc(name):  # a gem's README.rdoc: its `==` headings
        text, notes = decode_text(data)
        text = with_rendered_headings(rdoc_to_markdown(text))
        document = Document(kind="markdown", title=stem, text=text, notes=notes, located="lines")
    else:
        document = _text_document(kind, stem, data, sniff=kind == "text" and is_doc_name(name))
        if PurePath(name).suffix.lower() == ".mdwn":
            document = replace(document, text=_ikiwiki_shown(document.text))
        elif PurePath(name).suffix.lower() in (".rmd", ".qmd"):  # YAML header, chunks, divs
            document = replace(document, text=r_markdown_shown(document.text))
    check_text_cap(text_size(document), max_text_chars)
    # The decoders drop a stray NUL (`decode_text`); a format can still spell one (a
    # notebook's JSON "\u0000"). No chunk holds one, whatever the reader.
    if "\x00" in document.text:
        text, notes = without_nul(document.text, document.notes)
        document = replace(document, text=text, notes=notes)
    return document


# Readers of documents a Jinja template may render to. Not DocBook's `.xml` (a template
# of one is far more often a settings file, which that reader skips as "not a document").
TEMPLATED_DOCUMENT_MODULES = frozenset(("html", "rst", "asciidoc", "org", "latex"))


# How the search index a book generator writes beside its pages opens: mdBook's and
# Sphinx's `searchindex.js`, the book's text again as one line of JSON for the search box.
# Read as JavaScript it was 534 of the 1,213 chunks of two mdBook books (`(untitled)`,
# line 1), and the best support of questions the chapters answer (newuser59).
SEARCH_INDEX_NAME = "searchindex.js"
SEARCH_INDEX_HEADS = (b"Object.assign(window.search,", b"Search.setIndex(")


def _built_search_index(name: str, data: bytes) -> bool:
    if PurePath(name).name.lower() != SEARCH_INDEX_NAME:
        return False
    return data[:64].lstrip().startswith(SEARCH_INDEX_HEADS)


def _document_templated(name: str) -> str | None:
    """`README.md` for `README.md.j2`: a Jinja template of a document is read by that
    document's reader, its `{{ … }}` and `{% … %}` as words of its text (formats.code
    reads a template of a settings file, `values.yaml.j2`, as that file); None for any
    other name."""
    path = PurePath(name)
    if path.suffix.lower() not in TEMPLATE_SUFFIXES:
        return None
    rendered = path.stem
    suffix = PurePath(rendered).suffix.lower()
    read_as_text = bool(suffix) and kind_for(rendered) in ("markdown", "text")
    if read_as_text or FORMAT_MODULES.get(suffix) in TEMPLATED_DOCUMENT_MODULES:
        return str(path.with_name(rendered))
    return None


def _prose_named_like_code(name: str, data: bytes) -> bool:
    """`.ru` is Rack's `config.ru` (read as Ruby) and Russian's language code, `.cs` C#'s
    suffix and Czech's, `.el` Emacs Lisp's and Greek's, `.sls` an R6RS library's and a Salt
    state's (YAML): a `manual.ru` in Cyrillic, vim's Czech `tutor.cs` and Greek `tutor.el`,
    a Salt `top.sls`, is read as text, not as one block of code; a `READ.ME` or `notes.ms`
    with no troff request in it is read as text, not as troff."""
    suffix = PurePath(name).suffix.lower()
    if FORMAT_MODULES.get(suffix) == "roff_doc":
        return not written_in_roff(decode_text(data)[0])
    if suffix == ".ru":
        return written_in_another_alphabet(decode_text(data)[0])
    if suffix in (".el", ".sls"):  # `.sls`: an R6RS library, or Salt's state in YAML
        return not opens_a_form(decode_text(data)[0])
    return suffix == ".cs" and written_as_prose(decode_text(data)[0])


def is_blank(name: str, data: bytes) -> bool:
    """Would `parse` skip these bytes as an empty file without reading anything? Blank
    bytes are that whatever the reader, unless they are gzip's (`NEWS.gz`: an empty
    archive is a broken one). The writer asks before handing a file to a parse worker:
    an empty `__init__.py` costs a round trip to another process otherwise, and a folder
    of 100,000 empty files took minutes."""
    return not data.strip() and _gzipped_inner(name) is None


def _ikiwiki_shown(text: str) -> str:
    """An ikiwiki page's text as the wiki shows it: a backslash before `[[` escapes a
    wikilink or directive, and the page shows `[[!img image1.jpg size="200x200"]]` without
    it. ikiwiki's own directive pages write every example so (`\\[[!inline …]]`, 54 of its
    99 English pages), and a quote of one kept the backslash a user copying it must not
    type (newuser57)."""
    return text.replace("\\[[", "[[")


def _gzipped_inner(name: str) -> str | None:
    """The name of the document inside a gzipped `name` (`NEWS.gz` → `NEWS`, a rotated
    `ChangeLog.1.gz` too), or None: not gzipped, or a man page, which formats.man unpacks."""
    return inner_name(name) if _rotated_log(name) or not is_man_page(name) else None


def _rotated_log(name: str) -> bool:
    """`ChangeLog.1(.gz)`: named like a man page, but a rotated change log."""
    return is_man_page(name) and is_doc_name(page_name(name))


def _text_document(kind: Kind, stem: str, data: bytes, sniff: bool = False) -> Document:
    """Markdown or plain text read as it is (Sphinx's MyST Markdown: its directives and
    roles read as text; underlined headings as `#` ones: ingest.setext; HTML comments
    not at all: ingest.markdown_comments; a `%`-separated entry list, Crawl's descriptions
    or fortunes, entry by entry: ingest.entry_list; paginated formatter output, an nroff
    manual or an RFC, without its running headers and hyphenation: ingest.paged_text;
    Markdown headings' titles as the page renders them: ingest.heading_text;
    plain text's terminal bold and underline, overstruck or ANSI, as a terminal shows
    it: ingest.terminal_text). `sniff`: a `changelog` or `README` that is Markdown
    (text_headings.written_in_markdown) is read as Markdown, its HTML comments kept: such
    a file is read as text by whoever opens it, and a comment there is words on the
    screen (a guess must not lose them)."""
    text, notes = decode_text(data)
    guessed = sniff and written_in_markdown(text)
    if guessed:
        kind = "markdown"
    if kind == "text":
        text = as_displayed(text)
        entries = read_entries(text, stem, notes)
        if entries is not None:
            return entries
        paged = read_paged(text, stem, notes)
        if paged is not None:
            return paged
    if kind == "markdown" and not guessed:
        text, dropped = without_comments(text)
        notes = [*notes, *dropped]
    if kind == "markdown":
        text = with_rendered_headings(underlined_to_atx(text))
        myst = myst_convert(text)
        if myst is not None:
            return replace(myst, title=stem, notes=notes)
    return Document(kind=kind, title=stem, text=text, notes=notes, located="lines")


def _entries_without_suffix(name: str, data: bytes) -> Document | None:
    """A fortune file (`fortunes`, `zippy`: no suffix, which the code reader would take
    as one block of code in no known language) as its entries (ingest.entry_list), or
    None for any other file."""
    path = PurePath(name)
    if path.suffix or module_name(name, data) != "code" or script_suffix(data) or not data.strip():
        return None
    text, notes = decode_text(data)
    return read_entries(text, path.stem, notes)


def text_size(document: Document) -> int:
    return len(document.text) + sum(len(text) for _, text in document.pages)


def check_text_cap(size: int, max_text_chars: int | None) -> None:
    if max_text_chars is not None and size > max_text_chars:
        # A PDF stops at the first page past the cap, so the total is not known.
        raise SkipFile(f"too much text (over the {max_text_chars / MB:.4g} MB max_text_mb cap)")


def _parse_pdf(
    stem: str,
    data: bytes,
    max_text_chars: int | None,
    deadline: float | None,
    progress: Progress | None,
) -> Document:
    from pypdf.errors import PdfReadError

    try:
        reader = _open_pdf(data)
        pages, scanned = [], []
        extracted = 0
        for number, page in enumerate(reader.pages, start=1):
            text = (page.extract_text() or "").replace("\x00", "")
            extracted += len(text)
            check_text_cap(extracted, max_text_chars)  # stop at the cap, not after the last page
            if text.strip():
                pages.append((number, text))
            elif ocr.has_images(page):
                scanned.append((number, page))
        notes = _read_scans(scanned, pages, deadline, progress) if scanned else []
        pages = [(number, pdf_words.unligated(text)) for number, text in pages]
    except SkipFile:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, AssertionError) as exc:
        raise SkipFile(f"unreadable PDF ({type(exc).__name__}: {str(exc)[:120]})") from None
    except Exception as exc:  # pypdf raises a wide variety on damaged files
        raise SkipFile(f"unreadable PDF ({type(exc).__name__}: {str(exc)[:120]})") from None
    if not pages and not scanned:
        # Blank pages: no text layer and no image OCR could read — a file with no text.
        raise SkipFile(has_no_text("PDF"))
    if not pages:
        raise SkipFile(notes[-1] if notes else "PDF has no text layer (scanned image?)")
    outline = read_outline(reader)
    return Document(kind="pdf", title=stem, pages=sorted(pages), notes=notes, outline=outline)


def _open_pdf(data: bytes) -> Any:
    from pypdf import PdfReader

    pdf_words.install()  # word spaces in fonts without a space glyph
    reader = PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted:
        # Many PDFs are "encrypted" with an empty user password; those we can read.
        try:
            readable = bool(reader.decrypt(""))
        except Exception:
            readable = False
        if not readable:
            raise SkipFile("encrypted PDF (needs a password)")
    return reader


def _read_scans(
    scanned: list[tuple[int, Any]],
    pages: list[tuple[int, str]],
    deadline: float | None,
    progress: Progress | None,
) -> list[str]:
    """OCR the pages that are only images into `pages`; what could not be read, as notes."""
    if not ocr.available():
        return [f"{ocr.NO_OCR} ({len(scanned)} page(s))" if pages else ocr.NO_OCR]
    notes = []
    for done, (number, page) in enumerate(scanned, start=1):
        try:
            text = ocr.read_page(page, deadline)
        except ocr.PageUnreadable as exc:
            notes.append(f"page {number}: {exc}")
            text = ""
        if text.strip():
            pages.append((number, text))
        if progress is not None:
            progress(done, len(scanned))
    return notes
