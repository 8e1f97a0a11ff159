"""The installed version of ragd (client and daemon ship together), read only when asked:
`importlib.metadata` scans the installed distributions, which `rag ask` never needs."""

from __future__ import annotations


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragd")
    except PackageNotFoundError:
        return "unknown (not installed as a package)"
