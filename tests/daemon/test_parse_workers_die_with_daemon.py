"""A `kill -9`'d daemon leaves no parse worker behind: one in the middle of a parse (the
slow-parse hook keeps it busy for an hour) and one idle, waiting on its stdin pipe; nor
its vector store process (index/store_process.py), which would keep the store open."""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.processes import is_live, live_children
from tests.support.slow_parse import slow_parse_env

WORKER = "ragd.ingest.parse_child"
STORE_WORKER = "ragd.index.store_worker"


def parse_workers(parent: int) -> set[int]:
    """The live parse workers whose parent is `parent` (zombies count as gone)."""
    return live_children(parent, WORKER)


def test_parse_workers_end_when_the_daemon_is_killed(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "slow-manual.md").write_text("# Manual\n\nParsed slowly on purpose.\n")
    (root / "quick.md").write_text("# Quick\n\nParsed at once: marram.\n")
    env = {"RAG_PARSE_TIMEOUT_S": "3600", **slow_parse_env("slow-*.md", 3600)}
    daemon = Daemon(tmp_path, [root], env=env).start()
    assert daemon.proc is not None
    pid = daemon.proc.pid

    def busy_and_idle() -> set[int] | None:
        items = (daemon.status().get("progress") or {}).get("in_progress") or []
        parsing = [item for item in items if item["stage"] == "parsing"]
        workers = parse_workers(pid)
        return workers if parsing and daemon.sources("marram") and len(workers) == 2 else None

    workers = wait_for(busy_and_idle, 120, "one worker parsing the slow file, one idle")
    stores = live_children(pid, STORE_WORKER)
    assert len(stores) == 1, stores
    daemon.kill9()
    wait_for(
        lambda: not any(is_live(w, WORKER) for w in workers),
        30,
        f"the parse workers {sorted(workers)} to end with the daemon",
    )
    wait_for(
        lambda: not any(is_live(s, STORE_WORKER) for s in stores),
        30,
        f"the vector store process {sorted(stores)} to end with the daemon",
    )
