"""A file or folder whose name is not UTF-8 is named on `rag`'s command line as the shell
gives it (its bytes): `ingest` and `--in` pass it to the daemon, which reads it as it
prints it (`caf\\xe9.md`). Before, `rag` refused every such argument. A root's own path
must be UTF-8: that one is refused, in one line, by the daemon."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.support.daemon import BIN, Daemon, wait_for

CAFE = b"caf\xe9.md"  # Latin-1 "café.md": not valid UTF-8
CAFE_SHOWN = "caf\\xe9.md"  # as the daemon prints it
DOCS = b"d\xffocs"
DOCS_SHOWN = "d\\xffocs"


def rag(daemon: Daemon, *argv: bytes) -> subprocess.CompletedProcess[bytes]:
    env = {k.encode(): v.encode() for k, v in daemon.env.items()}
    return subprocess.run(
        [os.fsencode(BIN / "rag"), *argv], env=env, capture_output=True, timeout=120
    )


def test_names_that_are_not_utf8_pass_through_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "seed.md").write_text("# Seed\n\nThe seed note carries seedtoken.\n")
    cafe = os.path.join(os.fsencode(root), CAFE)
    with open(cafe, "w") as handle:
        handle.write("# Cafe\n\nThe cafe opens at seven and carries latintoken.\n")
    daemon = Daemon(tmp_path, [root]).start()
    try:
        daemon.wait_searchable("latintoken", CAFE_SHOWN)
        out = rag(daemon, b"ingest", cafe)
        assert out.returncode == 0, out.stderr
        assert f"checking for changes: {CAFE_SHOWN}" in out.stderr.decode(), out.stderr
        out = rag(daemon, b"search", b"latintoken", b"--in", cafe, b"--json")
        assert out.returncode == 0, out.stderr
        reply = json.loads(out.stdout)
        assert reply["scope"] == [CAFE_SHOWN]
        assert {r["source"] for r in reply["results"]} == {CAFE_SHOWN}

        # A folder inside the root named in any bytes is read; a root's own path must be
        # UTF-8 (the index is keyed by it): refused in one line, the daemon serving on.
        inner = os.path.join(os.fsencode(root), DOCS)
        os.mkdir(inner)
        with open(os.path.join(inner, b"tide.md"), "w") as handle:
            handle.write("# Tide\n\nHigh water carries tidetoken.\n")
        daemon.wait_searchable("tidetoken", f"{DOCS_SHOWN}/tide.md")
        out = rag(daemon, b"search", b"tidetoken", b"--in", inner, b"--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["scope"] == [DOCS_SHOWN]
        outside = os.path.join(os.fsencode(tmp_path), DOCS)
        os.mkdir(outside)
        out = rag(daemon, b"ingest", outside)
        err = out.stderr.decode()
        assert out.returncode == 5 and err.count("\n") == 1, err  # a bad request
        assert f"rag: {DOCS_SHOWN}: a root's path must be UTF-8" in err, err
        assert [r["name"] for r in daemon.status()["roots"]] == ["notes"]
        out = rag(daemon, b"forget", os.fsencode(root))  # a root by its path still goes
        assert out.returncode == 0, out.stderr
        wait_for(lambda: daemon.sources("tidetoken") == [], 30, "the forgotten root's chunks")
        assert "UnicodeEncodeError" not in daemon.log(), daemon.log_tail()
        # A question is text: one that is not UTF-8 is still refused in one line.
        out = rag(daemon, b"ask", b"caf\xe9 hours?")
        assert out.returncode == 2 and b"not valid UTF-8" in out.stderr, out.stderr
    finally:
        daemon.stop()
