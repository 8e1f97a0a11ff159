"""Checks for the zip containers docx, odt and epub are: refuse a bomb before unpacking it."""

from __future__ import annotations

import io
import zipfile

from ragd.ingest.document import SkipFile

MAX_UNPACKED_BYTES = 256 * 1024 * 1024  # what a container may declare it unpacks to
MAX_MEMBERS = 10_000
# Compound File Binary: what Office writes for a password-protected docx/xlsx/pptx (the
# zip is encrypted inside it) and for the old .doc/.xls/.ppt; not damage, and not readable.
OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")


def check_zip(data: bytes, label: str) -> None:
    """SkipFile unless `data` is a zip whose declared contents are of a sane size."""
    if data.startswith(OLE_MAGIC):
        raise SkipFile(
            f"{label} is password-protected, or in Office's old binary format (not readable)"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise SkipFile(f"damaged {label}: not a readable zip container ({exc})") from None
    if len(members) > MAX_MEMBERS:
        raise SkipFile(f"{label} holds {len(members)} parts (more than {MAX_MEMBERS})")
    unpacked = sum(m.file_size for m in members)
    if unpacked > MAX_UNPACKED_BYTES:
        raise SkipFile(
            f"{label} unpacks to {unpacked / 2**20:.0f} MB "
            f"(more than {MAX_UNPACKED_BYTES / 2**20:.0f} MB; a zip bomb?)"
        )
