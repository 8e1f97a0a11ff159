"""Another process holding `BEGIN EXCLUSIVE` on an SQLite database (attack41's lock on
chroma.sqlite3: a backup tool, a user at `sqlite3`, a second ChromaDB client)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HOLD = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=1)
db.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.readline()  # until the test lets go
db.execute("COMMIT")
"""


class Holder:
    """Another process holding `BEGIN EXCLUSIVE` on an SQLite database until `release`."""

    def __init__(self, database: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(database)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "held\n"

    def holding(self) -> bool:
        return self.process.poll() is None

    def release(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.close()
        self.process.wait(60)
        assert self.process.stdout is not None
        self.process.stdout.close()
