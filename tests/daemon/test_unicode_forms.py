"""Names in either Unicode normal form reach the same indexed file or root.

`café` typed on a keyboard is NFC (`é`, one code point); a name made on macOS, or
unpacked from its archives, is often NFD (`e` and a combining accent). Linux keeps the
bytes, so both print alike while they differ: `--in café.md`, `rag forget Résumés` and
`rag ingest Écoles` named nothing indexed (or nothing at all) when the disk spelled them
in NFD.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

from tests.support.daemon import Daemon


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_nfc_names_reach_files_and_roots_named_in_nfd(tmp_path: Path) -> None:
    root = tmp_path / nfd("Résumés")
    root.mkdir()
    (root / nfd("café.md")).write_text("# Café\n\nThe espresso is pulled by the quetzalcup.\n")
    (root / "other.md").write_text("# Other\n\nAnother quetzalcup lives here too.\n")
    d = Daemon(tmp_path / "t", [root]).start()
    try:
        d.wait_idle()
        for scope in (nfc("café.md"), str(tmp_path / nfc("Résumés") / nfc("café.md"))):
            found = d.rag("search", "quetzalcup", "--mode", "bm25", "--in", scope, "--json")
            assert found.returncode == 0, found.stderr
            sources = [r["source"] for r in json.loads(found.stdout)["results"]]
            assert sources == [nfd("café.md")], (scope, sources)
        schools = tmp_path / nfd("Écoles")  # a new root, given by its name typed in NFC
        schools.mkdir()
        (schools / nfd("élève.md")).write_text("# Élève\n\nThe pupil keeps a jerboa.\n")
        added = d.rag("ingest", str(tmp_path / nfc("Écoles")))
        assert added.returncode == 0, added.stderr
        d.wait_idle()
        assert d.sources("jerboa") == [nfd("Écoles/élève.md")]
        forgot = d.rag("forget", nfc("Résumés"))
        assert forgot.returncode == 0, forgot.stderr
        assert [root["name"] for root in d.wait_idle()["roots"]] == [nfd("Écoles")]
    finally:
        d.stop()
