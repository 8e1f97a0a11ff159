"""The order in which `make test` hands test files to its two workers: longest first.

pytest-xdist's `--dist loadfile` gives a worker a whole test file at a time, in the
order it is handed them; by default it hands the files with the most tests first. That
put the long daemon files of one to three tests (kill -9 loops, vector-server outages:
30-60 s each) at the end, where one worker ran the last of them while the other had
nothing left. Handing the longest files first (the usual longest-processing-time rule)
leaves the unit files, a second or less each, to even the two workers out at the end.

The seconds per file are a past run's, kept in tests/file_seconds.json; they only decide
an order, so a stale figure costs some idle time at the end and nothing else. A file not
listed there (a new one) is taken for as long as the longest, so it cannot end a run.
`make test` passes `--no-loadscope-reorder` so that xdist keeps this order.

Refresh the figures after a change of the suite's shape:

    .venv/bin/pytest -n 2 --dist loadfile --junitxml=/tmp/times.xml
    .venv/bin/python -m tests.support.schedule /tmp/times.xml
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, TypeVar

REPO = Path(__file__).resolve().parents[2]
FILE_SECONDS = REPO / "tests" / "file_seconds.json"


class Item(Protocol):
    @property
    def nodeid(self) -> str: ...


ItemT = TypeVar("ItemT", bound=Item)


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def file_seconds(path: Path = FILE_SECONDS) -> dict[str, float]:
    """The kept seconds per test file; none (so collection order) if the file is unreadable."""
    try:
        data = json.loads(path.read_text())
        return {str(name): float(seconds) for name, seconds in data.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}


def longest_files_first(items: Sequence[ItemT], seconds: dict[str, float]) -> list[ItemT]:
    """`items` with their files in decreasing kept seconds; a file's own tests keep their
    order (the sort is stable and collection keeps a file's tests together)."""
    unknown = max(seconds.values(), default=0.0)
    return sorted(items, key=lambda item: -seconds.get(file_of(item.nodeid), unknown))


def seconds_from_junit(report: Path) -> dict[str, float]:
    """Seconds per test file from a pytest --junitxml report (every phase of every test)."""
    totals: dict[str, float] = defaultdict(float)
    for case in ElementTree.parse(report).iter("testcase"):
        module = _module_file(case.get("classname", ""))
        if module is not None:
            totals[module] += float(case.get("time") or 0.0)
    return dict(totals)


def _module_file(classname: str) -> str | None:
    """`tests.daemon.test_x` or `tests.daemon.test_x.TestClass` → tests/daemon/test_x.py."""
    parts = classname.split(".")
    for end in range(len(parts), 0, -1):
        candidate = "/".join(parts[:end]) + ".py"
        if (REPO / candidate).is_file():
            return candidate
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.support.schedule JUNIT_XML", file=sys.stderr)
        return 2
    totals = seconds_from_junit(Path(argv[0]))
    ordered = dict(sorted(((k, round(v, 1)) for k, v in totals.items()), key=lambda kv: -kv[1]))
    FILE_SECONDS.write_text(json.dumps(ordered, indent=1) + "\n")
    print(f"{len(ordered)} files, {sum(ordered.values()):.0f} s in all → {FILE_SECONDS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
