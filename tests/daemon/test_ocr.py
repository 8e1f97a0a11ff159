"""Scanned PDFs (pages with no text layer) are read by tesseract in the parse worker, and
their chunks cite the page; without tesseract the file's reason says what to install."""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.ingest.ocr import NO_OCR
from tests.support.daemon import Daemon
from tests.support.scans import scanned_pdf

PAGES = [
    [
        "The harbour master keeps the ledger of moorings.",
        "Ferries leave the northern quay at seven sharp.",
        "Visiting yachts pay their dues at the kiosk.",
    ],
    [
        "Winter tide tables are posted beside the chandlery.",
        "Lanterns hang above the pilot office door.",
        "Divers must register before entering the basin.",
    ],
]

needs_tesseract = pytest.mark.skipif(
    shutil.which("tesseract") is None, reason="tesseract-ocr is not installed (.ci/run installs it)"
)


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


@pytest.fixture(scope="module")
def scan_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    tmp = tmp_path_factory.mktemp("ocr")
    root = tmp / "scans"
    root.mkdir()
    (root / "harbour-notice.pdf").write_bytes(scanned_pdf(PAGES))
    daemon = Daemon(tmp, [root]).start()
    daemon.wait_idle()
    yield daemon
    daemon.stop()


@needs_tesseract
def test_a_scanned_pdf_is_read_by_ocr_and_cites_its_pages(scan_daemon: Daemon) -> None:
    assert scan_daemon.status()["errors"] == []
    found: set[str] = set()
    for page, lines in enumerate(PAGES, start=1):
        for line in lines:
            hit = scan_daemon.search(line, 1, mode="bm25")["results"][0]
            assert (hit["source"], hit["page"]) == ("harbour-notice.pdf", page), line
            found |= words(hit["text"])
    expected = words(" ".join(line for lines in PAGES for line in lines))
    recall = len(expected & found) / len(expected)
    assert recall >= 0.9, sorted(expected - found)


@needs_tesseract
def test_without_tesseract_the_reason_says_what_to_install(tmp_path: Path) -> None:
    root = tmp_path / "scans"
    root.mkdir()
    (root / "receipt.pdf").write_bytes(scanned_pdf([PAGES[0]]))
    bare = str(Path(sys.executable).parent)  # no tesseract on this PATH
    daemon = Daemon(tmp_path, [root], env={"PATH": bare}).start()
    try:
        daemon.wait_idle()
        status = daemon.status()
        assert [(e["source"], e["reason"]) for e in status["errors"]] == [("receipt.pdf", NO_OCR)]
        assert status["files"] == 0
        assert f"receipt.pdf: {NO_OCR}" in daemon.rag("status").stdout
    finally:
        daemon.stop()
    # Installed since: the next daemon reads the unchanged file instead of holding it back.
    daemon = Daemon(tmp_path, [root]).start()
    try:
        daemon.wait_idle()
        status = daemon.status()
        assert status["errors"] == [] and status["files"] == 1
        hit = daemon.search("ledger of moorings", 1, mode="bm25")["results"][0]
        assert (hit["source"], hit["page"]) == ("receipt.pdf", 1)
    finally:
        daemon.stop()


@needs_tesseract
def test_ocr_past_the_files_deadline_is_a_reason_not_a_hang() -> None:
    import time

    from ragd.ingest.loaders import SkipFile, parse
    from ragd.ingest.ocr import TOO_SLOW

    with pytest.raises(SkipFile, match="parse_timeout_s") as caught:
        parse("late.pdf", scanned_pdf([PAGES[1]]), deadline=time.monotonic())
    assert str(caught.value) == TOO_SLOW
    text = parse("late.pdf", scanned_pdf([PAGES[1]]), deadline=time.monotonic() + 60).pages
    assert "pilot office" in text[0][1]  # with time left, the same page is read


@needs_tesseract
def test_the_parse_worker_reports_ocr_progress_page_by_page() -> None:
    from ragd.ingest.parse_pool import ParsePool

    pool = ParsePool(workers=1)
    try:
        ticket = pool.submit("three-pages.pdf", scanned_pdf([PAGES[0], PAGES[1], PAGES[0]]))
        seen = set()
        while not ticket.wait(0.05):  # bounded by the pool's own parse_timeout_s
            if ticket.progress is not None:
                seen.add(ticket.progress)
        document = ticket.result()
        assert [number for number, _ in document.pages] == [1, 2, 3]
        assert ticket.progress == (3, 3)  # the last frame before the reply
        assert seen <= {(1, 3), (2, 3), (3, 3)}
    finally:
        pool.close()
