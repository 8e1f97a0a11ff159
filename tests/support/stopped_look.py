"""A `rag` client whose look at a stopped daemon waits for the test (see
`stopped_look_hook/sitecustomize.py`): `StoppedLook(tmp)` gives the client's environment,
says when a look found the daemon stopped (`entered`), and lets it go on (`release`)."""

from __future__ import annotations

import os
from pathlib import Path

HOOK_DIR = Path(__file__).parent / "stopped_look_hook"


class StoppedLook:
    def __init__(self, tmp: Path) -> None:
        self.entered_path = tmp / "look-entered"
        self.release_path = tmp / "look-release"

    def env(self) -> dict[str, str]:
        path = [str(HOOK_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
        return {
            "PYTHONPATH": os.pathsep.join(path),
            "RAGD_TEST_LOOK_ENTERED": str(self.entered_path),
            "RAGD_TEST_LOOK_RELEASE": str(self.release_path),
        }

    def entered(self) -> bool:
        return self.entered_path.exists()

    def release(self) -> None:
        self.release_path.touch()
