from __future__ import annotations

from ragd.query.releases import another, named, same


def test_versions_are_read_without_their_v() -> None:
    assert named("What was fixed in pydantic 2.14.3?") == {"2.14.3"}
    assert named("Changelog > Release v3.3.0 (2026-05-14) > Fixes") == {"3.3.0"}
    assert named("Under Apache 2.0, what must I keep?") == {"2.0"}
    assert named("How do I build zstd with CMake?") == set()


def test_a_short_version_names_its_release_line() -> None:
    assert same("3.3", "3.3.0") and same("3.3.0", "3.3") and same("3.3", "3.3.1")
    assert not same("3.3", "3.30") and not same("2.14.3", "2.14.2")


def test_a_heading_naming_another_release_is_another_release() -> None:
    asked = {"2.14.3"}
    assert another(asked, "Pydantic > v2.14.2 (2026-10-29) > What's Changed > Fixes")
    assert not another(asked, "Pydantic > v2.14.3 (2026-11-04) > What's Changed > Fixes")
    assert not another(asked, "Pydantic > Installation")  # names no release at all
    assert not another({"3.3"}, "FareDeck Release Notes > Release v3.3.0 > New features")
