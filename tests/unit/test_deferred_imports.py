"""ragd/index/deferred_imports.py: a module the model's libraries import only for a function
ragd never calls is not imported while they load, and is the real one as soon as it is used."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragd.index.deferred_imports import StandIn, deferring

HEAVY = "deferredpkg.heavy"


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """`deferredpkg.heavy` (counts its imports in `deferredpkg.loads`), a library that
    imports a function from it by name, and one that imports a name not deferred."""
    pkg = tmp_path / "deferredpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("loads = []\n")
    (pkg / "heavy.py").write_text(
        "import deferredpkg\n"
        "deferredpkg.loads.append('heavy')\n"
        "SCALE = 3\n"
        "def distances(a, b, scale=1):\n    return abs(a - b) * SCALE * scale\n"
    )
    (tmp_path / "deferreduser.py").write_text("from deferredpkg.heavy import distances\n")
    (tmp_path / "deferredgreedy.py").write_text("from deferredpkg.heavy import SCALE\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("deferredpkg")]:
        del sys.modules[name]
    for name in ("deferreduser", "deferredgreedy"):
        sys.modules.pop(name, None)


def loads() -> list[str]:
    return list(importlib.import_module("deferredpkg").loads)


def test_a_deferred_function_imports_its_module_at_its_first_call(packages: Path) -> None:
    with deferring({HEAVY: ("distances",)}) as placed:
        assert placed == [HEAVY]
        user = importlib.import_module("deferreduser")
    assert loads() == []  # imported the library without the module
    assert HEAVY not in sys.modules  # no stand-in is left for a later import to find
    assert user.distances(5, 2, scale=2) == 18  # the real function, its arguments passed
    assert loads() == ["heavy"]
    assert not isinstance(sys.modules[HEAVY], StandIn)
    assert user.distances(1, 2) == 3 and loads() == ["heavy"]  # imported once


def test_a_name_not_deferred_is_the_real_module_s_at_once(packages: Path) -> None:
    with deferring({HEAVY: ("distances",)}):
        greedy = importlib.import_module("deferredgreedy")
        assert loads() == ["heavy"]  # read at import: the real module was imported then
        assert not isinstance(sys.modules[HEAVY], StandIn)
    assert greedy.SCALE == 3
    assert not isinstance(sys.modules[HEAVY], StandIn)


def test_a_module_already_imported_is_left_as_it_is(packages: Path) -> None:
    heavy = importlib.import_module(HEAVY)
    with deferring({HEAVY: ("distances",)}) as placed:
        assert placed == []
        assert importlib.import_module("deferreduser").distances is heavy.distances
    assert sys.modules[HEAVY] is heavy and loads() == ["heavy"]
