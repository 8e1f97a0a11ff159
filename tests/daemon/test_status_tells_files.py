"""What `rag status` and every reply's `pending` count are files, told as they are: a
forget or a folder's scan is no file pending; a file with no text (an empty
`__init__.py`) is skipped as "no text", not an error; during a first index a file waiting
for a parse worker is "queued", and "parsing" only while a worker has it."""

from __future__ import annotations

import json
from pathlib import Path

from ragd.ingest.parse_pool import WORKERS
from tests.support.daemon import Daemon, wait_for
from tests.support.hung_stat import HungStat
from tests.support.slow_parse import slow_parse_env

NO_TEXT = {  # name → content: nothing any reader can index
    "harbour/__init__.py": "",
    "empty.md": "",
    "blank.rst": "   \n\n",
    "remarks.rst": ".. a comment, and nothing else\n",
}


def test_files_with_no_text_are_skipped_as_no_text_not_errors(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    (root / "harbour").mkdir(parents=True)
    for name, text in NO_TEXT.items():
        (root / name).write_text(text)
    (root / "api.rst").write_text(".. automodule:: harbour.tides\n   :members:\n")
    (root / "guide.md").write_text("# Guide\n\nThe tide tables are posted at the quay.\n")
    daemon = Daemon(tmp_path, [root]).start()
    try:
        status = daemon.wait_idle()
        assert status["errors"] == [], status["errors"]
        assert status["no_text_files"] == len(NO_TEXT)
        assert {item["source"] for item in status["no_text"]} == set(NO_TEXT)
        # A file of autodoc directives is indexed as what it names.
        assert {f["source"] for f in daemon.call("stats")["files"]} == {"api.rst", "guide.md"}
        shown = daemon.rag("status").stdout
        assert f"no text    {len(NO_TEXT)} files skipped: nothing to index" in shown, shown
        assert "errors     none" in shown, shown
        out = daemon.rag("ingest", str(root / "empty.md"))
        assert out.returncode == 0, out.stderr
        assert "skipped empty.md: empty file" in out.stderr.splitlines(), out.stderr
        assert "WARNING" not in "".join(
            line for line in daemon.log().splitlines() if "skipped" in line
        ), daemon.log_tail()
    finally:
        daemon.stop()


def test_status_names_the_folders_it_leaves_out(tmp_path: Path) -> None:
    """emcee's sdist lists `tutorials` in its docs/.gitignore: its six notebooks, the user
    guide, were never indexed, and `rag status` said only "3 folders" (newuser51). It names
    the shallowest few, and `rag ingest` of one says which rule leaves it out."""
    root = tmp_path / "emcee"
    for folder in ("docs/tutorials", "docs/user", ".github", "build/a", "build/b"):
        (root / folder).mkdir(parents=True)
    (root / "docs" / ".gitignore").write_text("tutorials\n")
    (root / ".gitignore").write_text("build/*\n")
    (root / "docs" / "tutorials" / "quickstart.md").write_text("# Quickstart\n\nSample.\n")
    (root / "docs" / "user" / "faq.md").write_text("# FAQ\n\nWalkers are members.\n")
    daemon = Daemon(tmp_path, [root]).start()
    try:
        status = daemon.wait_idle()
        assert status["ignored"]["folders"] == 4
        # a folder left out by its name alone (hidden, skip_folders) comes last (review51)
        assert status["ignored_folders"] == ["build/a", "build/b", "docs/tutorials", ".github"]
        shown = daemon.rag("status").stdout
        assert (
            "ignored    0 files, 4 folders (ignore files, exclude, hidden names, skip_folders): "
            "build/a/, build/b/, docs/tutorials/, .github/\n"
        ) in shown, shown
        out = daemon.rag("ingest", str(root / "docs" / "tutorials"))
        assert "docs/tutorials: not indexed: the folder docs/tutorials/ is left out" in (
            out.stdout + out.stderr
        )
    finally:
        daemon.stop()


def test_a_forget_or_a_scan_is_no_file_pending(tmp_path: Path) -> None:
    docs, other = tmp_path / "docs", tmp_path / "other"
    docs.mkdir()
    other.mkdir()
    (docs / "hung-notes.md").write_text("# Notes\n\nThe walk that lists this file hangs.\n")
    hung = HungStat(tmp_path, "hung-*")
    daemon = Daemon(tmp_path, [docs, other], env=hung.env()).start()
    try:
        # The writer is held in the first scan (its stat of hung-notes.md hangs): the
        # forget below stays queued behind it, as it would behind a long first index.
        wait_for(hung.entered, 60, "the writer stuck in the scan's stat")
        out = daemon.rag("forget", "other")
        assert out.returncode == 0, out.stderr
        status = daemon.status()
        assert status["state"] == "indexing" and status["pending"] == 0, status
        out = daemon.rag("ask", "--json", "When are the tide tables posted?")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["pending"] == 0  # was 2: the scan and the forget
        assert "still being indexed" not in out.stderr, out.stderr
        hung.release()
        daemon.wait_idle()
        assert daemon.status()["pending"] == 0
    finally:
        hung.release()
        daemon.stop()


# Enough that most files wait for one of the two parse workers. Each file is handed back
# to the writer after PARSE_PATIENCE_S (0.5 s) one at a time, so every file adds half a
# second before the status can be read.
FILES = 10


def test_a_first_index_shows_queued_files_apart_from_those_being_parsed(tmp_path: Path) -> None:
    root = tmp_path / "slow"
    root.mkdir()
    for i in range(FILES):
        (root / f"slow-{i:02d}.md").write_text(f"# Slow {i}\n\nA document that parses slowly.\n")
    env = {"RAG_PARSE_TIMEOUT_S": "600", **slow_parse_env("slow-*.md", 3600)}
    daemon = Daemon(tmp_path, [root], env=env).start()
    try:

        def everything_set_aside() -> dict[str, object] | None:
            status = daemon.status()
            items = (status.get("progress") or {}).get("in_progress") or []
            return status if len(items) == FILES else None

        status = wait_for(everything_set_aside, 120, f"{FILES} files set aside")
        progress = status["progress"]
        stages = [item["stage"] for item in progress["in_progress"]]
        # One file per parse worker is parsed; every other one waits its turn.
        assert stages.count("parsing") == WORKERS, stages
        assert stages.count("queued") == FILES - WORKERS, stages
        assert status["pending"] == FILES and progress["total"] == FILES, status
        shown = daemon.rag("status").stdout
        assert shown.count(": parsing for") == WORKERS, shown
        assert shown.count(": queued for") == FILES - WORKERS, shown
    finally:
        daemon.kill9()  # the slow parses are not this test's business
