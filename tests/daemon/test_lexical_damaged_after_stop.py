"""A lexical index damaged while ragd was stopped, in a way tantivy's open does not notice.

tantivy's open reads each segment's footer and metadata, not its postings, and a clean
stop lets the next start skip every comparison: bytes changed in the middle of a postings
file (a bad sector, a backup tool, a stray `dd`) pass both. Before (attack73) the first
search that read them ended in a Rust panic, which pyo3 raises as a BaseException: every
search, in every mode, and every `ask` got `handler returned no reply`, while `rag status`
said idle with no error and `ragd check` said consistent, for as long as the daemon ran.
attack73 made such a read say so and the writer rebuild the index; damage that still
decodes (field lengths) read on, ranking wrong.

Now (attack75) the start verifies the CRC-32 in each segment file's footer
(`index/segment_checksums.py`): the damaged index is refilled from the manifest's rows before
the daemon is ready (nothing parsed or embedded again), and BM25 finds every note. Damage
made under a running daemon is still met by the read (tests/component/test_store_damage.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.daemon import Daemon, wait_for

pytestmark = pytest.mark.slow

NOTES = 6


def write_notes(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(NOTES):
        (root / f"note{i}.md").write_text(
            f"# Ferry note {i}\n\nThe quartz gauge on vessel {i} is calibrated every "
            f"morning; serial QG-{i:03d}.\n\n## Crew\n\nCrew {i} signs the gauge log "
            "before the ferry leaves the harbour.\n"
        )


def damage_postings(tantivy: Path) -> Path:
    """The middle half of the largest postings file zeroed, its size and footer kept."""
    postings = max(tantivy.glob("*.idx"), key=lambda p: p.stat().st_size)
    data = bytearray(postings.read_bytes())
    size = len(data)
    data[size // 4 : 3 * size // 4] = bytes(3 * size // 4 - size // 4)
    postings.write_bytes(bytes(data))
    return postings


def test_postings_damaged_while_stopped_are_rebuilt_and_searches_answer(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    write_notes(root)
    d = Daemon(tmp_path, [root]).start()
    d.wait_idle()
    assert d.sources("QG-002") == ["note2.md"]
    assert d.stop() == 0

    postings = damage_postings(d.data_dir / "tantivy")
    d.start()
    replies = [d.search("quartz gauge calibrated", mode=mode) for mode in ("hybrid", "bm25")]
    assert replies[0]["results"] and replies[1]["results"], replies
    log = d.log()
    caught = log.find(f"{postings.name} fails its checksum")
    assert caught >= 0, log
    repaired = log.find("lexical missing", caught)  # refilled from the manifest's rows
    assert repaired > caught and log.find("ready: ", caught) > repaired, log
    assert "the lexical index is damaged" not in log  # no read met it
    for i in range(NOTES):
        assert d.sources(f"QG-{i:03d}") == [f"note{i}.md"]
    status = wait_for(lambda: (s := d.status())["state"] == "idle" and s, 60, "idle")
    assert status["errors"] == [], status
    assert "handler returned no reply" not in d.log()
    assert d.stop() == 0
