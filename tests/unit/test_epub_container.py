"""An EPUB zipped from the folder above the book is read from that folder (newuser56)."""

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
