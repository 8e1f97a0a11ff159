"""Settings that decide which files are read, changed by a reload, reach the files
already in the roots, not only the next one.

`follow_symlinks`, found by attack (by hand, then here): a link to a file outside the
root, skipped as a `symbolic link (not followed: …)`, stayed skipped after a SIGHUP set
`follow_symlinks = true` (`rag status` went on saying "not followed"; only a new link
was followed), and a link followed while it was true stayed indexed, its outside text
answering searches, after a reload set it back to false — the setting a user turns off
to keep outside text out.

The file limits (`max_file_mb`, `max_text_mb`, `parse_timeout_s`, `parse_memory_mb`),
found the same way: a file skipped as `too large (3 KB, cap 1 KB)` stayed skipped,
with that line in `rag status`, after a reload raised the cap (it is held back until it
changes, and nothing retried it).

A lowered `max_file_mb` (fix23, item 2): a file indexed under the old cap and over the new
one stayed in both indexes, its text answering searches, and `rag status` named no reason:
the walk a reload made skips every file whose size and mtime are as indexed.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.reload import Reloader, toml


def reasons(daemon: Daemon) -> dict[str, str]:
    """Why each file is not indexed: errors, and links not followed (listed apart)."""
    status = daemon.status()
    return {e["source"]: str(e["reason"]) for e in status["errors"] + status["not_followed"]}


def test_a_reload_of_follow_symlinks_applies_to_the_links_already_there(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "quay.md").write_text("# Quay\n\nThe quay bell rings at noon.\n")
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n\nThe CAPYBARA88 ledger is kept outside the notes.\n")
    (notes / "link.md").symlink_to(outside)
    base = {"roots": [str(notes)], "follow_symlinks": False}
    config = tmp_path / "config.toml"
    config.write_text(toml(base))
    daemon = Daemon(tmp_path, [], extra_args=["--config", str(config)]).start()
    reload = Reloader(daemon, config, base)
    try:
        daemon.wait_idle()
        assert (
            reasons(daemon).get("link.md")
            == "symbolic link (not followed: follow_symlinks = true reads it)"
        )
        assert daemon.sources("CAPYBARA88") == []

        reload(follow_symlinks=True)
        daemon.wait_searchable("CAPYBARA88", "link.md")
        assert "link.md" not in reasons(daemon)

        reload(follow_symlinks=False)
        wait_for(lambda: daemon.sources("CAPYBARA88") == [], 30, "the link's text to leave")
        wait_for(lambda: "link.md" in reasons(daemon), 30, "the link reported as not followed")
        assert daemon.sources("bell") == ["quay.md"]  # the rest stays indexed
    finally:
        daemon.stop()


def quay_and_big(tmp_path: Path, big: str, max_file_mb: float) -> tuple[Daemon, Reloader, Path]:
    """A daemon on `notes/` (quay.md and big.md holding `big`) under a config file."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "quay.md").write_text("# Quay\n\nThe quay bell rings at noon.\n")
    (notes / "big.md").write_text(big)
    base = {"roots": [str(notes)], "max_file_mb": max_file_mb}
    config = tmp_path / "config.toml"
    config.write_text(toml(base))
    daemon = Daemon(tmp_path, [], extra_args=["--config", str(config)]).start()
    return daemon, Reloader(daemon, config, base), notes


def test_a_reload_that_raises_a_limit_retries_the_files_it_held_back(tmp_path: Path) -> None:
    tariff = "# Tariff\n\n" + "The WALLABY55 tariff is printed. " * 100
    daemon, reload, _ = quay_and_big(tmp_path, tariff, max_file_mb=0.001)
    try:
        daemon.wait_idle()
        assert reasons(daemon).get("big.md", "").startswith("too large (")
        assert daemon.sources("WALLABY55") == []

        reload(max_file_mb=1)
        daemon.wait_searchable("WALLABY55", "big.md")
        assert "big.md" not in reasons(daemon)
        assert daemon.sources("bell") == ["quay.md"]
    finally:
        daemon.stop()


def test_a_reload_that_lowers_the_size_cap_prunes_the_files_now_over_it(tmp_path: Path) -> None:
    tariff = "# Tariff\n\n" + "The NUMBAT31 tariff is printed in full. " * 500  # ≈ 20 KB
    daemon, reload, notes = quay_and_big(tmp_path, tariff, max_file_mb=1)
    try:
        daemon.wait_idle()
        daemon.wait_searchable("NUMBAT31", "big.md")

        reload(max_file_mb=0.01)  # ≈ 10 KB: big.md is over it now
        wait_for(lambda: "big.md" in reasons(daemon), 30, "big.md reported as too large")
        daemon.wait_idle()
        assert daemon.sources("NUMBAT31") == []  # out of the lexical index
        dense = daemon.search("NUMBAT31 tariff printed in full", 20, mode="vector")["results"]
        assert [r["source"] for r in dense] == ["quay.md"]  # and out of the vector index
        assert [f["source"] for f in daemon.call("stats")["files"]] == ["quay.md"]
        # The reason is the one a file over the cap gets at its first index.
        (notes / "twin.md").write_text(tariff)
        wait_for(lambda: "twin.md" in reasons(daemon), 30, "twin.md reported as too large")
        assert reasons(daemon)["big.md"] == reasons(daemon)["twin.md"]
        assert reasons(daemon)["big.md"].startswith("too large (")
        (notes / "twin.md").unlink()  # (its chunks would be big.md's, which search shows once)
        wait_for(lambda: "twin.md" not in reasons(daemon), 30, "twin.md's reason to leave")

        reload(max_file_mb=1)  # raised again: it comes back
        daemon.wait_searchable("NUMBAT31", "big.md")
        assert "big.md" not in reasons(daemon)
    finally:
        daemon.stop()
