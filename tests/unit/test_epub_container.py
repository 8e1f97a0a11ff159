"""EPUBs as Debian's packages ship them, which EbookLib alone refused whole (newuser56): one
zipped from the folder above the book, one whose manifest lists a part the zip lacks."""

from __future__ import annotations

import io
import zipfile

import pytest

from ragd.ingest.document import SkipFile
from ragd.ingest.loaders import parse
from tests.support import formats as files


def _under(folder: str, data: bytes) -> bytes:
    """`data`'s zip with every part moved under `folder/`, as Debian Edu's manuals are."""
    moved = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as book, zipfile.ZipFile(moved, "w") as out:
        for info in book.infolist():
            out.writestr(f"{folder}/{info.filename}", book.read(info))
    return moved.getvalue()


def test_a_book_under_one_top_folder_is_read_from_it() -> None:
    # debian-edu-doc-legacy-en's audacity-manual.epub: `epub/META-INF/container.xml`,
    # `epub/OEBPS/content.opf`; all three of its books were skipped as unreadable
    document = parse("tales.epub", _under("epub", files.epub_bytes()))
    assert "Ferry Tales" in document.title
    assert "Lanterns swung in the wheelhouse" in document.text


def test_a_book_whose_container_is_at_the_root_is_read_as_before() -> None:
    document = parse("tales.epub", files.epub_bytes())
    assert "Lanterns swung in the wheelhouse" in document.text


def test_two_top_folders_with_a_container_each_are_still_unreadable() -> None:
    book = files.epub_bytes()
    both = io.BytesIO()
    with zipfile.ZipFile(both, "w") as out:
        for folder in ("one", "two"):
            with zipfile.ZipFile(io.BytesIO(_under(folder, book))) as part:
                for info in part.infolist():
                    out.writestr(info.filename, part.read(info))
    with pytest.raises(SkipFile, match="unreadable EPUB book"):
        parse("twice.epub", both.getvalue())


def _opf_edited(data: bytes, old: str, new: str) -> bytes:
    """`data`'s zip with `old` replaced by `new` in its package file."""
    edited = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as book, zipfile.ZipFile(edited, "w") as out:
        for info in book.infolist():
            part = book.read(info)
            if info.filename.endswith(".opf"):
                part = part.replace(old.encode(), new.encode())
            out.writestr(info.filename, part)
    return edited.getvalue()


def test_a_part_the_manifest_lists_but_the_zip_lacks_leaves_the_rest_readable() -> None:
    # debmake-doc 1.17-7: the cover `xslt/debian-openlogo.png` is not in the zip
    lacking = _opf_edited(
        files.epub_bytes(),
        "<manifest>",
        '<manifest><item href="xslt/logo.png" id="cover-image" media-type="image/png"/>',
    )
    document = parse("tales.epub", lacking)
    assert "Lanterns swung in the wheelhouse" in document.text


def _storm_listed_again(href: str, idref: str) -> bytes:
    """The book with its storm chapter listed again in its manifest and spine."""
    again = _opf_edited(
        files.epub_bytes(),
        '<itemref idref="chapter_1"/>',
        f'<itemref idref="chapter_1"/><itemref idref="{idref}"/>',
    )
    item = f'<item href="{href}" id="{idref}" media-type="application/xhtml+xml"/>'
    return _opf_edited(again, "</manifest>", item + "</manifest>")


def test_a_chapter_listed_again_with_an_anchor_is_read_once() -> None:
    # live-manual-epub: `about-manual.xhtml#o8` in the manifest and the spine
    document = parse("tales.epub", _storm_listed_again("storm.xhtml#o8", "storm#o8"))
    assert document.text.count("Lanterns swung in the wheelhouse") == 1


def test_a_chapter_listed_twice_under_two_ids_is_read_once() -> None:
    document = parse("tales.epub", _storm_listed_again("storm.xhtml", "again"))
    assert document.text.count("Lanterns swung in the wheelhouse") == 1


def _without(data: bytes, ending: str) -> bytes:
    """`data`'s zip without its parts whose names end in `ending`."""
    without = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as book, zipfile.ZipFile(without, "w") as out:
        for info in book.infolist():
            if not info.filename.endswith(ending):
                out.writestr(info.filename, book.read(info))
    return without.getvalue()


def test_a_book_without_its_package_file_is_still_unreadable() -> None:
    with pytest.raises(SkipFile, match="unreadable EPUB book"):
        parse("tales.epub", _without(files.epub_bytes(), ".opf"))


def test_a_table_of_contents_the_zip_lacks_leaves_the_book_readable() -> None:
    # the EPUB 3 nav, or the NCX the spine names in a book without a nav, listed but
    # absent: EbookLib parsed the empty part (or read the NCX again) and gave up the book
    no_nav = _without(files.epub_bytes(), "nav.xhtml")
    no_ncx = _without(_opf_edited(files.epub_bytes(), ' properties="nav"', ""), "toc.ncx")
    for lacking in (no_nav, no_ncx):
        document = parse("tales.epub", lacking)
        assert "Lanterns swung in the wheelhouse" in document.text


def test_a_book_whose_chapters_the_zip_all_lacks_has_no_text() -> None:
    # read as empty, every chapter was skipped and the book indexed as its title alone
    with pytest.raises(SkipFile, match="no text"):
        parse("tales.epub", _without(_without(files.epub_bytes(), "crossing.xhtml"), "storm.xhtml"))


def test_the_ebooklib_methods_overridden_here_exist() -> None:
    """`epub._read` overrides EbookLib's private reader methods: an upgrade that renames
    one would silently make a book with a missing part unreadable again."""
    import inspect

    from ebooklib import epub

    for name in ("_load_manifest", "_load_spine", "_parse_nav", "_parse_ncx", "read_file"):
        assert callable(getattr(epub.EpubReader, name, None)), name
    assert "self.read_file(" in inspect.getsource(epub.EpubReader._load_manifest)
    assert "self.read_file(" in inspect.getsource(epub.EpubReader._load_spine)
