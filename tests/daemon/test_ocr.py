"""Scanned PDFs (pages with no text layer) are read by tesseract in the parse worker, and
their chunks cite the page; without tesseract the file's reason says what to install."""

from __future__ import annotations

import logging
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ragd.ingest.document import SkipFile
from ragd.ingest.ocr import NO_OCR
from tests.support.daemon import Daemon
from tests.support.scans import scanned_pdf, text_and_scan_pdf

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


@dataclass
class Scans:
    """The module's daemon, and what its first start (without tesseract) reported."""

    daemon: Daemon
    first_status: dict[str, Any]
    first_shown: str


@pytest.fixture(scope="module")
def scans(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scans]:
    """A scanned PDF, first served with no tesseract on PATH (held back with its reason),
    then by a daemon that has it, on the same data dir: one pair of starts for the module."""
    tmp = tmp_path_factory.mktemp("ocr")
    root = tmp / "scans"
    root.mkdir()
    (root / "harbour-notice.pdf").write_bytes(scanned_pdf(PAGES))
    bare = str(Path(sys.executable).parent)  # no tesseract on this PATH
    daemon = Daemon(tmp, [root], env={"PATH": bare}).start()
    try:
        first_status = daemon.wait_idle()
        first_shown = daemon.rag("status").stdout
    finally:
        daemon.stop()
    daemon = Daemon(tmp, [root]).start()
    daemon.wait_idle()
    yield Scans(daemon, first_status, first_shown)
    daemon.stop()


@needs_tesseract
def test_a_scanned_pdf_is_read_by_ocr_and_cites_its_pages(scans: Scans) -> None:
    scan_daemon = scans.daemon
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
def test_without_tesseract_the_reason_says_what_to_install(scans: Scans) -> None:
    status = scans.first_status
    reasons = [(e["source"], e["reason"]) for e in status["errors"]]
    assert reasons == [("harbour-notice.pdf", NO_OCR)]
    assert status["files"] == 0
    assert f"harbour-notice.pdf: {NO_OCR}" in scans.first_shown
    # Installed since: the next daemon reads the unchanged file instead of holding it back.
    status = scans.daemon.status()
    assert status["errors"] == [] and status["files"] == 1
    hit = scans.daemon.search("ledger of moorings", 1, mode="bm25")["results"][0]
    assert (hit["source"], hit["page"]) == ("harbour-notice.pdf", 1)


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


@needs_tesseract
@pytest.mark.parametrize(
    ("entries", "note"),
    [
        ({"Width": 100_000, "Height": 100_000}, "page image too large to OCR (100000×100000"),
        ({"Filter": "/JBIG2Decode"}, "page image is JBIG2: install jbig2dec to OCR it"),
        ({"Filter": "/RunLengthDecode"}, "page image could not be decoded (ValueError"),
    ],
)
def test_a_page_image_that_cannot_be_read_costs_that_page_only(
    entries: dict[str, object], note: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Judged before decoding (a 10-gigapixel image is never allocated), and a page's bad
    # image is a note on that page: the file's text page is still indexed.
    from ragd.ingest import loaders

    if "JBIG2" in note:  # the machine may have jbig2dec; the reason is for one without
        real_which = shutil.which
        monkeypatch.setattr(shutil, "which", lambda n: None if n == "jbig2dec" else real_which(n))
    data = text_and_scan_pdf("Pilots board at the outer buoy.", PAGES[0], **entries)
    document = loaders.parse("mixed.pdf", data)
    assert [number for number, _ in document.pages] == [1]
    assert "outer buoy" in document.pages[0][1]
    assert any(n.startswith("page 2: ") and note in n for n in document.notes), document.notes


@needs_tesseract
def test_closing_the_pool_during_ocr_cancels_the_file_without_an_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A shutdown (SIGTERM) while a scan is read: the child ends, the file is "cancelled"
    # (read again at the next start), and nothing pulls the pipe from under the worker's
    # thread (it used to log "parse worker failed on a file … OSError: [Errno 9] Bad file
    # descriptor").
    from ragd.ingest.parse_pool import ParsePool

    pool = ParsePool(workers=1)
    ticket = pool.submit("long-scan.pdf", scanned_pdf([PAGES[0]] * 6))
    try:
        while ticket.progress is None:  # bounded: the scan reports its first page
            assert not ticket.wait(0.05), "the scan finished before it could be interrupted"
    finally:
        pool.close()
    assert ticket.wait(30)
    with pytest.raises(SkipFile, match=r"^cancelled$"):
        ticket.result()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
