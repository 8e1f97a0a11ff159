"""A root's display name: its folder's name, suffixed on a clash, and kept once removed
(a forget is logged, and its files' removals labelled, after the root has left)."""

from __future__ import annotations

from ragd.core import roots as roots_module
from ragd.core.roots import Roots


def test_a_second_folder_of_one_name_is_shown_suffixed_and_keeps_it_once_removed() -> None:
    roots = Roots(["/a/docs", "/b/docs"])
    assert [roots.name("/a/docs"), roots.name("/b/docs")] == ["docs", "docs-2"]
    assert roots.label("/b/docs", "x.md") == "docs-2/x.md"
    roots.remove("/b/docs")
    assert roots.name("/b/docs") == "docs-2"  # not "docs", the name of the one still watched
    assert roots.label("/b/docs", "") == "docs-2"
    assert roots.name("/a/docs") == "docs"


def test_names_of_removed_roots_are_bounded() -> None:
    roots = Roots([f"/r{i}/docs" for i in range(roots_module.MAX_FORMER_NAMES + 10)])
    for root in list(roots):
        roots.remove(root)
    assert len(roots._former) == roots_module.MAX_FORMER_NAMES
    assert roots.name("/r0/docs") == "docs"  # forgotten: its folder's name again
