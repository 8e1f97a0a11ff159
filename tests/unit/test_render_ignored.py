"""`rag status`'s ignored row: the counts, then the folders the daemon names."""

from __future__ import annotations

from ragcli.render import _ignored


def test_the_ignored_row_names_folders_and_counts_the_rest() -> None:
    why = "(ignore files, exclude, hidden names, skip_folders)"
    assert _ignored({}, []) == "nothing"
    # an older daemon names none: the counts alone, as before
    assert _ignored({"files": 1, "folders": 2}, []) == f"1 file, 2 folders {why}"
    assert _ignored({"files": 0, "folders": 7}, ["docs/tutorials", "build/a"]) == (
        f"0 files, 7 folders {why}: docs/tutorials/, build/a/ and 5 more"
    )
