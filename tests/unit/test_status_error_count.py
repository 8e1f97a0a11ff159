"""`rag status` counts every file not indexed for a problem, not the 100 the daemon lists
(attack48: 6,000 binary `.md` files showed as `errors 100`)."""

from __future__ import annotations

from typing import Any

from tests.unit.test_ingest_skipped_lines import status_lines


def _errors_row(data: dict[str, Any]) -> str:
    base = {"roots": [{"name": "notes", "files": 2, "chunks": 4}]}
    rows = {line[:11].strip(): line[11:] for line in status_lines(base | data)}
    return rows["errors"]


def _file(n: int) -> dict[str, Any]:
    return {"source": f"bin{n}.md", "reason": "binary", "quarantined": False}


def test_files_past_the_listed_hundred_are_counted() -> None:
    store = {"source": "the data dir", "reason": "vector store locked"}
    errors = [store, *(_file(n) for n in range(100))]
    assert _errors_row({"errors": errors, "error_files": 6000}) == (
        "6,001 (20 shown; `rag status --json` lists 101)"
    )


def test_a_short_list_is_its_own_count() -> None:
    assert _errors_row({"errors": [_file(1), _file(2)], "error_files": 2}) == "2"
    assert _errors_row({"errors": [_file(1)]}) == "1"  # (a daemon older than the count)
    assert _errors_row({"errors": []}) == "none"
