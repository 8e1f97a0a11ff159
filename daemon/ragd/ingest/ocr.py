"""Scanned PDF pages read by OCR: the page's embedded images through the `tesseract` CLI.

A scanned page (a scan, a photo of a receipt) has no text layer; what it shows is one
image (or a few strips of one). pypdf gives the page's embedded images already encoded
(PNG, JPEG, TIFF), which tesseract reads as they are, so no page renderer (poppler) is
needed. This runs inside the parse worker, page by page: tesseract is a child of the
worker, inherits its address-space limit (`parse_memory_mb`), is killed with it if the
daemon kills the worker (PR_SET_PDEATHSIG), and each call is bounded by what is left of
the file's parse time (`parse_timeout_s`). Without tesseract a page is not guessed at:
the file's reason says what to install.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from typing import Any

from ragd.core import parent_death
from ragd.ingest.document import SkipFile

TESSERACT = "tesseract"
NO_OCR = "no text layer: install tesseract-ocr to index it"
TOO_SLOW = "scanned PDF: OCR takes longer than parse_timeout_s (raise it to index this file)"
MAX_IMAGES_PER_PAGE = 8  # a scan is one image, or a few strips; more is decoration
MAX_PIXELS = 60_000_000  # a 600 dpi A3 scan is 35 million; larger is not a page
DEFAULT_SECONDS = 60.0  # per image, when parsing in-process with no deadline


class PageUnreadable(SkipFile):
    """One page's images could not be read (the rest of the file may be)."""


def available() -> bool:
    return shutil.which(TESSERACT) is not None


def has_images(page: Any) -> bool:
    try:
        return len(page.images) > 0
    except Exception:  # an image dictionary pypdf cannot list: not an image page we can read
        return False


def read_page(page: Any, deadline: float | None) -> str:
    """The text tesseract reads in the page's images, in the order the page holds them.
    Each image is judged by its declared size and encoding before pypdf decodes it, and a
    decoding failure is this page's (a note), not the file's: its text pages stay."""
    texts = []
    for number, key in enumerate(page.images.keys()):
        if number == MAX_IMAGES_PER_PAGE:
            break
        _check_declared(_raw_image(page, key))
        try:
            data = page.images[key].data
        except Exception as exc:  # pypdf and Pillow raise their own way on a bad image
            raise PageUnreadable(
                f"page image could not be decoded ({type(exc).__name__}: {str(exc)[:100]})"
            ) from None
        texts.append(_tesseract(data, deadline))
    return "\n\n".join(t.strip() for t in texts if t.strip())


def _raw_image(page: Any, key: Any) -> Any:
    """The image's own dictionary, undecoded (`key` is a name, or the names of the forms
    leading to it); None for an inline image or one pypdf names some other way."""
    names = [key] if isinstance(key, str) else list(key)
    holder = page
    try:
        for name in names:
            holder = holder["/Resources"].get_object()["/XObject"].get_object()[name]
            holder = holder.get_object()
    except (KeyError, TypeError, AttributeError):
        return None
    return holder


def _check_declared(source: Any) -> None:
    """Refuse an image by what it declares, before anything is decoded."""
    if source is None:
        return
    try:
        width, height = int(source.get("/Width", 0)), int(source.get("/Height", 0))
    except (TypeError, ValueError):
        width = height = 0
    if width * height > MAX_PIXELS:
        raise PageUnreadable(f"page image too large to OCR ({width}×{height} pixels)")
    filters = source.get("/Filter", [])
    filters = [filters] if isinstance(filters, str) else list(filters or [])
    if "/JBIG2Decode" in filters and shutil.which("jbig2dec") is None:
        raise PageUnreadable("page image is JBIG2: install jbig2dec to OCR it")


def _tesseract(data: bytes, deadline: float | None) -> str:
    left = DEFAULT_SECONDS if deadline is None else deadline - time.monotonic()
    if left <= 0:
        raise SkipFile(TOO_SLOW)
    # One thread: the machine's cores belong to the daemon and the other parse worker.
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    try:
        done = subprocess.run(
            [TESSERACT, "stdin", "stdout"],
            input=data,
            capture_output=True,
            timeout=left,
            env=env,
            preexec_fn=parent_death.preexec(signal.SIGKILL),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SkipFile(TOO_SLOW) from None
    except OSError as exc:
        raise SkipFile(f"tesseract could not run ({exc.strerror})") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PageUnreadable(f"tesseract failed on a page image ({(message or ['?'])[-1][:120]})")
    return done.stdout.decode("utf-8", "replace")
