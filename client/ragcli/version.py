"""The installed version of ragd (client and daemon ship together), read only when asked:
`importlib.metadata` scans the installed distributions, which `rag ask` never needs.
`rag --version` and `ragd --version` print the same line (`version_line`)."""

from __future__ import annotations


def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ragd")
    except PackageNotFoundError:
        return "unknown (not installed as a package)"


def version_line(program: str) -> str:
    """What `PROGRAM --version` prints: the installed version and the wire protocol's."""
    from ragproto.protocol import PROTOCOL_VERSION

    return f"{program} {installed_version()} (protocol {PROTOCOL_VERSION})"
