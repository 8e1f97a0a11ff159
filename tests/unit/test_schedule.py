"""`make test`'s file order (tests/support/schedule.py): longest files first, each file's
tests in their own order, a file with no kept figure among the first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.support import schedule


@dataclass
class Node:
    nodeid: str


def test_files_go_longest_first_and_keep_their_tests_in_order() -> None:
    items = [
        Node("tests/unit/test_a.py::one"),
        Node("tests/unit/test_a.py::two"),
        Node("tests/daemon/test_b.py::one"),
        Node("tests/daemon/test_new.py::one"),
        Node("tests/daemon/test_c.py::one"),
        Node("tests/daemon/test_c.py::two[x]"),
    ]
    seconds = {"tests/unit/test_a.py": 0.4, "tests/daemon/test_b.py": 30.0}
    seconds["tests/daemon/test_c.py"] = 55.0
    ordered = [n.nodeid for n in schedule.longest_files_first(items, seconds)]
    assert ordered == [
        "tests/daemon/test_new.py::one",  # unknown: as long as the longest, ties kept in order
        "tests/daemon/test_c.py::one",
        "tests/daemon/test_c.py::two[x]",
        "tests/daemon/test_b.py::one",
        "tests/unit/test_a.py::one",
        "tests/unit/test_a.py::two",
    ]


def test_no_kept_figures_leave_the_collection_order(tmp_path: Path) -> None:
    items = [Node("tests/unit/test_z.py::t"), Node("tests/unit/test_a.py::t")]
    (tmp_path / "bad.json").write_text("[1, 2]")
    for path in (tmp_path / "missing.json", tmp_path / "bad.json"):
        assert schedule.file_seconds(path) == {}
        assert schedule.longest_files_first(items, schedule.file_seconds(path)) == items


def test_seconds_per_file_are_summed_from_a_junit_report(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.unit.test_schedule" name="a" time="1.25"/>'
        '<testcase classname="tests.unit.test_schedule" name="b" time="0.5"/>'
        '<testcase classname="tests.daemon.test_eval" name="c" time="3"/>'
        '<testcase classname="tests.nowhere.test_gone" name="d" time="9"/>'
        "</testsuite></testsuites>"
    )
    assert schedule.seconds_from_junit(report) == {
        "tests/unit/test_schedule.py": 1.75,
        "tests/daemon/test_eval.py": 3.0,
    }


def test_the_kept_figures_are_readable() -> None:
    seconds = schedule.file_seconds()
    assert seconds and all(name.startswith("tests/") for name in seconds)
