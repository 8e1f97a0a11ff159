"""A `rag` client whose look at a stopped daemon waits for the test (see
`stopped_look_hook/sitecustomize.py`): `StoppedLook(tmp)` gives the client's environment,
says when a look found the daemon stopped (`entered`), and lets it go on (`release`).
`looking_after(seconds)` is the environment of a client that looks after that much
silence instead of STOPPED_LOOK_S (15 s), its looks not held."""

from __future__ import annotations

import os
from pathlib import Path

HOOK_DIR = Path(__file__).parent / "stopped_look_hook"


def _hook_path() -> str:
    return os.pathsep.join([str(HOOK_DIR), *filter(None, [os.environ.get("PYTHONPATH")])])


def looking_after(seconds: float) -> dict[str, str]:
    return {"PYTHONPATH": _hook_path(), "RAGD_TEST_STOPPED_LOOK_S": str(seconds)}


class StoppedLook:
    def __init__(self, tmp: Path) -> None:
        self.entered_path = tmp / "look-entered"
        self.release_path = tmp / "look-release"

    def env(self, look_s: float | None = None) -> dict[str, str]:
        return {
            **(looking_after(look_s) if look_s else {"PYTHONPATH": _hook_path()}),
            "RAGD_TEST_LOOK_ENTERED": str(self.entered_path),
            "RAGD_TEST_LOOK_RELEASE": str(self.release_path),
        }

    def entered(self) -> bool:
        return self.entered_path.exists()

    def release(self) -> None:
        self.release_path.touch()
