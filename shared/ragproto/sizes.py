"""Sizes and counts as people read them, one formatter for the daemon's reasons and the
client's lines.

Each size gets the unit that suits it — bytes, KB, MB, GB, TB (of 1024: ragd's `max_file_mb`
counts MiB) — with three significant digits at most. One unit for every size had a small
file's "too large (0.0 MB, cap 0.000999451 MB)" in `rag status`.
"""

from __future__ import annotations

UNITS = ("KB", "MB", "GB", "TB")


def counted(count: int, noun: str) -> str:
    """ "1 file", "0 files", "1,200 chunks": a count with its noun (a regular plural), not
    "1 files" or "1 root(s)"."""
    return f"{count:,} {noun}{'s' * (count != 1)}"


def human_size(n_bytes: float) -> str:
    """ "512 bytes", "1.5 KB", "20 MB", "3.2 GB"."""
    if n_bytes < 1024:
        return counted(int(n_bytes), "byte")
    value = float(n_bytes)
    for unit in UNITS:
        value /= 1024
        if round(value) < 1024 or unit == UNITS[-1]:  # not "1,024 KB"
            break
    if value >= 9.95:  # would round to 10.0: whole units are enough from here
        return f"{value:,.0f} {unit}"
    return f"{value:.1f}".removesuffix(".0") + f" {unit}"


def size_over_cap(size: int, cap: int) -> str:
    """ "2 KB, cap 1 KB": the two apart even when they round to the same text."""
    shown, limit = human_size(size), human_size(cap)
    if shown == limit:
        return f"{size:,} bytes, cap {cap:,} bytes"
    return f"{shown}, cap {limit}"


def file_size_limit_line(limit: int) -> str:
    """What a cap on the size of every file the daemon writes (`ulimit -f`, systemd's
    `LimitFSIZE=`) means for its index: said in its log at start and by `rag status`."""
    return (
        f"the file size limit (ulimit -f / LimitFSIZE) is {human_size(limit)}: "
        "index files cannot grow past it"
    )
