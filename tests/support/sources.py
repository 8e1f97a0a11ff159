"""The project's own Python sources, for tests that read them (ast scans)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("shared/ragproto", "client/ragcli", "daemon/ragd", "bench")
_BUILT = REPO / "bench" / "out"  # what the bench builds (an sdist's own code among it): not ours


def our_sources() -> Iterator[Path]:
    """Every .py file of the three packages and the bench, in path order."""
    for folder in PACKAGES:
        for path in sorted((REPO / folder).rglob("*.py")):
            if _BUILT not in path.parents:
                yield path
