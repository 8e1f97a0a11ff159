"""constraints.txt pins every dependency, within pyproject's ranges, and .venv holds them.

A fresh clone's `make install` resolves against constraints.txt, so the packages a user
or CI gets are the ones the suite passed with (watchdog 7.1.1, released between two runs,
once failed a clean clone's CI while the developers' venvs still had 7.1.0).
"""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PINNED_ELSEWHERE = {"torch"}  # the Makefile installs it first, from the machine's index


def pins() -> dict[str, str]:
    found = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not name==version"
            found[canonicalize_name(name)] = version.strip()
    return found


def requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"].values()
    listed = project["dependencies"] + [r for group in extras for r in group]
    return [Requirement(r) for r in listed]


def test_every_dependency_is_pinned_inside_its_range():
    pinned = pins()
    for requirement in requirements():
        name = canonicalize_name(requirement.name)
        if name in PINNED_ELSEWHERE:
            assert name not in pinned
            continue
        assert name in pinned, f"{name} is a dependency but constraints.txt does not pin it"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"constraints.txt pins {name}=={pinned[name]}, outside pyproject's {requirement}"
        )


def test_the_environment_under_test_holds_the_pinned_versions():
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    differ = {
        name: (version, installed.get(name, "absent"))
        for name, version in pins().items()
        if installed.get(name) != version
    }
    assert not differ, f"pinned vs installed (run `make install`): {differ}"
