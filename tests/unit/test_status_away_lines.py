"""`rag status`'s lines for roots that are away (`render.away_lines`), and its counts."""

from __future__ import annotations

import time

from ragcli.render import away_lines, clock, status


def idle_status(**extra: object) -> dict[str, object]:
    """A `status` reply of an idle daemon over one root, with `extra` fields."""
    return {
        "state": "idle",
        "pending": 0,
        "embeddings": {"computed": 0, "reused": 0},
        "model": "m",
        "version": "v",
        "uptime_s": 1,
        "socket": "s",
    } | extra


def test_each_root_away_has_a_line_with_its_local_time() -> None:
    since = time.mktime((2026, 12, 4, 10, 2, 0, 0, 0, -1))
    roots = [
        {"name": "notes", "files": 2, "chunks": 4, "away": {"why": "gone", "since": since}},
        {"name": "docs", "files": 1, "chunks": 1, "away": None},
        {"name": "usb", "files": 3, "chunks": 3, "away": {"why": "unmounted", "since": since}},
    ]
    lines = away_lines(roots, now=since + 60)
    assert len(lines) == 2  # docs is there: no line
    assert lines[0].startswith("  notes: folder gone since 10:02;")
    assert lines[1].startswith("  usb: its file system was unmounted at 10:02;")
    # Another day: the date too, or "since 10:02" would read as today's.
    assert clock(since, now=since + 2 * 86400) == "2026-12-04 10:02"


def test_status_shows_them_under_the_roots_row() -> None:
    away = {"why": "gone", "since": 0}
    data = idle_status(
        roots=[{"name": "notes", "files": 2, "chunks": 4, "away": away}], files=2, chunks=4
    )
    out = status(data).splitlines()
    at = next(i for i, line in enumerate(out) if line.startswith("roots "))
    assert out[at + 1].startswith("  notes: folder gone since ")


def test_status_groups_every_count_in_thousands_as_its_roots_row_does() -> None:
    """newuser39: "spf13 (176 files, 2,708 chunks)" stood over "chunks     2799"."""
    data = {
        "state": "idle",
        "roots": [{"name": "spf13", "files": 1176, "chunks": 2708, "away": None}],
        "files": 1176,
        "chunks": 2708,
        "pending": 1200,
        "embeddings": {"computed": 4423, "reused": 1031},
        "model": "m",
        "version": "v",
        "uptime_s": 1,
        "socket": "s",
    }
    rows = {line[:11].strip(): line[11:] for line in status(data).splitlines()}
    assert rows["roots"] == "spf13 (1,176 files, 2,708 chunks)"
    assert (rows["files"], rows["chunks"], rows["pending"]) == ("1,176", "2,708", "1,200")
    assert rows["embeddings"] == "4,423 computed, 1,031 reused since start"


def test_links_not_followed_have_their_own_row_not_errors() -> None:
    """newuser44: etckeeper's one link, not followed by default, read as `errors 1`."""
    link = {"source": "commit.d/20store-metadata", "reason": "symbolic link (not followed: …)"}
    data = idle_status(
        roots=[{"name": "etc", "files": 2, "chunks": 4, "away": None}],
        files=2,
        chunks=4,
        errors=[],
        not_followed=[link],
        not_followed_files=1,
    )
    out = status(data).splitlines()
    at = out.index("links      1 not followed (follow_symlinks = true reads it)")
    assert out[at + 1] == "  commit.d/20store-metadata"
    assert "errors     none" in out
