"""`follow_symlinks` changed by a reload applies to the links already in the roots.

Found by attack (by hand, then here): a link to a file outside the root, skipped with
`symbolic link (not followed)`, stayed skipped after a SIGHUP set `follow_symlinks = true`
(`rag status` went on saying "not followed"; only a new link was followed), and a link
followed while it was true stayed indexed, its outside text answering searches, after a
reload set it back to false — the setting a user turns off to keep outside text out.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.daemon import Daemon, wait_for
from tests.support.reload import Reloader, toml


def reasons(daemon: Daemon) -> dict[str, str]:
    return {e["source"]: str(e["reason"]) for e in daemon.status()["errors"]}


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
        assert reasons(daemon).get("link.md") == "symbolic link (not followed)"
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
