"""The docs name the test that shows each promise (`tests/…py::test_name`, in the tables of
docs/reliability.md and elsewhere): a renamed or removed test must not leave a promise
pointing at nothing. reliability.md named `test_instruction_in_a_document_is_only_quoted`,
which no file defined."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# `tests/daemon/test_x.py::test_y` (a parametrised id or a class path may follow).
NAMED = re.compile(r"(tests/[\w/]+\.py)::(\w+)")


def named_tests() -> list[tuple[str, str, str]]:
    found = []
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for match in NAMED.finditer(doc.read_text(encoding="utf-8")):
            found.append((doc.name, match.group(1), match.group(2)))
    return found


def test_the_docs_name_tests() -> None:
    assert len(named_tests()) > 50  # the pattern still finds the tables' references


def test_every_test_the_docs_name_exists() -> None:
    missing = []
    for doc, path, name in named_tests():
        source = REPO / path
        text = source.read_text(encoding="utf-8") if source.is_file() else ""
        if not re.search(rf"^\s*(async\s+)?def {name}\(|^class {name}\b", text, re.M):
            missing.append(f"{doc}: {path}::{name}")
    assert not missing, "\n".join(missing)


def test_every_test_file_the_docs_name_exists() -> None:
    files = re.compile(r"\btests/[\w/]+\.py\b")
    missing = [
        f"{doc.name}: {path}"
        for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
        for path in files.findall(doc.read_text(encoding="utf-8"))
        if not (REPO / path).is_file()
    ]
    assert not missing, "\n".join(missing)
