"""`embed_precision = "auto"` on real daemons: one decision per machine, in the user's cache
folder, shared by every data dir; the first index never waits for the measurement."""

from __future__ import annotations

import json
from pathlib import Path

from ragd.index import machine, precision
from ragd.index.precision_task import MEASURING
from tests.support.daemon import Daemon, wait_for


def settled_precision(daemon: Daemon) -> dict[str, str]:
    """The daemon's precision once no measurement is under way."""

    def done() -> dict[str, str] | None:
        embedding = daemon.call("stats")["embedding"]
        return None if embedding["precision_reason"] == MEASURING else embedding

    return wait_for(done, 120.0, "the precision measurement to finish")  # type: ignore[no-any-return]


def test_two_data_dirs_share_one_decision_per_machine(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "tide.md").write_text("# Tides\n\nThe quillfeather tide turns twice a day.\n")
    shared = tmp_path / "xdg-cache"
    env = {"RAG_EMBED_PRECISION": "auto", "XDG_CACHE_HOME": str(shared)}
    cache = shared / "ragd" / precision.CACHE_FILE
    native = machine.this_cpu().native_bf16

    first = Daemon(tmp_path / "a", [root], env=env).start()
    first.wait_searchable("quillfeather", "tide.md")  # indexed whether or not measured yet
    chosen = settled_precision(first)
    first.stop()
    measured = "measuring float32 against bfloat16" in first.log()
    if native:  # this machine could gain: measured once, cached for the machine
        assert measured
        assert "ran at" in chosen["precision_reason"]
        entries = json.loads(cache.read_text())["machines"]
        assert len(entries) == 1 and entries[0]["machine"]["cpu"] == machine.this_cpu().name
    else:  # it cannot: float32 at once, nothing measured or cached
        assert not measured and not cache.exists()
        assert chosen["precision_reason"] == precision.NO_NATIVE_BF16
    assert not (tmp_path / "a" / "data" / precision.CACHE_FILE).exists()

    second = Daemon(tmp_path / "b", [root], env=env).start()
    try:
        now = second.call("stats")["embedding"]  # right after READY: nothing to measure
        assert (now["precision"], now["precision_reason"]) == (
            chosen["precision"],
            chosen["precision_reason"],
        )
        second.wait_searchable("quillfeather", "tide.md")
        assert "measuring float32 against bfloat16" not in second.log()
        shown = second.rag("stats").stdout
        assert f"{chosen['precision']} (auto: {chosen['precision_reason']})" in shown
    finally:
        second.stop()
