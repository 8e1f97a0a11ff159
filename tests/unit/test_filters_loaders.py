import codecs
from pathlib import Path, PurePosixPath

import pytest

from ragd.core.no_text import EMPTY
from ragd.ingest.filters import PathFilter
from ragd.ingest.loaders import SkipFile, is_blank, parse

INCLUDE = ("*.md", "*.markdown", "*.txt", "*.pdf")


@pytest.mark.parametrize(
    ("path", "accepted"),
    [
        ("notes.md", True),
        ("deep/er/Guide.MD", True),
        ("a.markdown", True),
        ("b.txt", True),
        ("c.pdf", True),
        ("image.png", False),
        (".hidden.md", False),
        (".git/config.md", False),
        ("docs/.obsidian/x.md", False),
        ("notes.md.swp", False),
        ("notes.md~", False),
        (".#notes.md", False),
        ("notes.tmp", False),
        ("draft.md.tmp", False),
        ("4913", False),
        ("toolz.egg-info/PKG-INFO.txt", False),  # generated: repeats the README
        ("pkg/node_modules/x/README.md", False),
        ("docs/egg-info-notes.md", True),
    ],
)
def test_path_filter(path: str, accepted: bool) -> None:
    assert PathFilter(INCLUDE).accepts(PurePosixPath(path)) is accepted


def test_data_dir_is_never_indexed(tmp_path: Path) -> None:
    data = tmp_path / "root" / "data"
    f = PathFilter(INCLUDE, data_dir=data)
    assert not f.accepts(PurePosixPath("data/manifest.md"), data / "manifest.md")
    assert f.accepts(PurePosixPath("notes.md"), tmp_path / "root" / "notes.md")


def test_exclude_globs() -> None:
    f = PathFilter(INCLUDE, exclude=("drafts/*",))
    assert not f.accepts(PurePosixPath("drafts/a.md"))
    assert f.accepts(PurePosixPath("final/a.md"))


def test_binary_named_md_is_skipped_with_a_reason() -> None:
    with pytest.raises(SkipFile, match="binary"):
        parse("x.md", bytes(range(256)) * 10)


def test_empty_file_is_skipped() -> None:
    with pytest.raises(SkipFile, match="empty"):
        parse("x.md", b"  \n")


BLANK_NAMES = [
    "a.md",
    "a.txt",
    "a.pdf",
    "a.docx",
    "a.py",
    "README",
    "fortunes",
    "tar.1",
    "tar.1.gz",
    "ChangeLog.1",
    "ChangeLog.1.gz",
    "NEWS.gz",
    "notes.txt.gz",
    "book.xml",
    "a.info",
    "a.info-2.gz",
    "a.epub",
    "a.ipynb",
    "index.d.ts",
    "x.gz.gz",
    "a.tar.gz",
]


@pytest.mark.parametrize("name", BLANK_NAMES)
@pytest.mark.parametrize("data", [b"", b" \n\t\r\n"])
def test_is_blank_says_what_the_parse_would(name: str, data: bytes) -> None:
    """The writer skips a file `is_blank` calls empty without a parse worker: it must be
    exactly the files the parse itself calls empty (a blank gzip is a broken archive)."""
    try:
        parse(name, data)
        reason = None
    except SkipFile as exc:
        reason = str(exc)
    assert is_blank(name, data) == (reason == EMPTY), reason


def test_invalid_utf8_is_decoded_with_replacement_and_noted() -> None:
    """Bytes no encoding of Latin letters explains (a control byte Windows-1252 leaves
    undefined) are replaced, and the file says so."""
    doc = parse("x.txt", b"caf\x81 fine text here")
    assert "caf\ufffd fine" in doc.text
    assert doc.notes == ["invalid UTF-8 at byte 3: 1 character(s) replaced"]


def test_utf16_with_bom_is_decoded() -> None:
    doc = parse("x.md", codecs.BOM_UTF16_LE + "# Título\n\nhola".encode("utf-16-le"))
    assert "Título" in doc.text


def test_broken_pdf_is_a_reason_not_a_crash() -> None:
    with pytest.raises(SkipFile, match="PDF"):
        parse("x.pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >>\ntruncated")


def test_a_blank_pdf_is_a_file_with_no_text_not_an_error() -> None:
    import io

    from pypdf import PdfWriter

    from ragd.core.no_text import is_no_text

    writer = PdfWriter()
    writer.add_blank_page(200, 200)  # no text layer and no image OCR could read
    buf = io.BytesIO()
    writer.write(buf)
    with pytest.raises(SkipFile) as skipped:
        parse("blank.pdf", buf.getvalue())
    assert is_no_text(str(skipped.value)), skipped.value


def test_sample_pdf_has_text_on_both_pages() -> None:
    data = (Path(__file__).parents[2] / "sample_corpus" / "safety-summary-2023.pdf").read_bytes()
    doc = parse("safety-summary-2023.pdf", data)
    assert [n for n, _ in doc.pages] == [1, 2]


def test_generated_lock_files_are_not_settings_files() -> None:
    # *.yaml and *.yml are indexed by default since settings files are; a lock file a
    # package manager writes is not a setting, and a mid-sized JavaScript project's
    # pnpm-lock.yaml (~2 MB of integrity hashes) chunks into about 900 chunks.
    from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS

    f = PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS)
    assert f.accepts(PurePosixPath("app/settings.yaml"))
    assert f.accepts(PurePosixPath("ci/environment.yml"))
    assert not f.accepts(PurePosixPath("web/pnpm-lock.yaml"))
    assert not f.accepts(PurePosixPath("conda-lock.yml"))
    assert not f.accepts(PurePosixPath("env/linux.conda-lock.yml"))


def test_a_minified_bundle_is_not_indexed_its_source_is() -> None:
    # Haddock ships `haddock-bundle.min.js` beside every package's reference, mdBook its
    # `elasticlunr.min.js`: a library squeezed onto a few lines, no document, had been
    # indexed as JavaScript (136 such files on this machine, 1,522 chunks) (review66).
    from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS

    f = PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS)
    assert not f.accepts(PurePosixPath("html/haddock-bundle.min.js"))
    assert not f.accepts(PurePosixPath("book/elasticlunr.min.js"))
    assert not f.accepts(PurePosixPath("dist/lib.min.mjs"))
    assert f.accepts(PurePosixPath("src/clipboard.js"))
    assert f.accepts(PurePosixPath("src/admin.js"))


def test_a_generated_file_is_said_to_be_generated_whatever_its_case(tmp_path: Path) -> None:
    """`rag ingest jquery.min.js` had said "its name is a temporary file's (an editor's or
    a download's)": the minified bundles and lock files were added to the temporaries'
    patterns, and told as one. A bundle named in capitals (`JQUERY.MIN.JS`, included
    since include globs match in any case) had been indexed."""
    from ragd.core.config import CODE_PATTERNS, DOCUMENT_PATTERNS

    f = PathFilter(DOCUMENT_PATTERNS + CODE_PATTERNS)
    for name in ("jquery.min.js", "web/pnpm-lock.yaml", "JQUERY.MIN.JS"):
        relative = PurePosixPath(name)
        assert not f.accepts(relative), name
        why = f.left_out_because(str(tmp_path), relative, tmp_path / name, is_dir=False)
        assert why is not None and "generated" in why and "temporary" not in why, why
    why = f.left_out_because(
        str(tmp_path), PurePosixPath("notes.tmp"), tmp_path / "notes.tmp", False
    )
    assert why is not None and "temporary" in why
